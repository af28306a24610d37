"""Tests of dream: material, the pipeline, its checks, create races, predicate upgrades."""
