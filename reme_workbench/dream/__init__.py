"""Dream (seed 000 §4.2): material -> Phase 1 extract -> Phase 2 integrate, with provenance."""
