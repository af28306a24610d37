"""Keyword + vector index of the vault and hybrid recall (the index is a cache in .reme/)."""
