"""Tests of consolidate: communities, archive, cooldowns, hubs, merge, split."""
