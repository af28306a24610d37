"""Tests of the vault core: notes, links, the scan and graph, the store and its checks, meta, health, import, bridge."""
