"""The pure vault core: no LLM, no index, no network."""
