"""Obsidian-native output: wikilinks, graph colour groups, JSON Canvas maps."""
