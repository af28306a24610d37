"""Tests of the index and recall: chunking, embedders, FTS5 + faiss, the background indexer, archived notes in recall."""
