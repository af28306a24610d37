"""Tests of the workbench: widgets, notebooks, the browser."""
