"""Dream (docs/spec.md §4): material -> Phase 1 extract -> Phase 2 integrate, with provenance."""
