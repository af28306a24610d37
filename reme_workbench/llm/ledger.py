"""A token ledger: what every brain call cost, per action and per material.

Each model exchange is one `record` (a retry is a second record), so `calls` counts
requests actually sent (or replayed from a cassette). Thread-safe: Phase 2 calls may
run in parallel.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict

from .base import Usage

__all__ = ["TokenLedger"]


class TokenLedger:
    """Prompt / completion / cached tokens per action ("extract", "integrate") and
    per material path."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_action: dict[str, Usage] = defaultdict(Usage)
        self._by_material: dict[str, Usage] = defaultdict(Usage)
        self._calls: dict[str, int] = defaultdict(int)

    def record(self, action: str, material: str | None, usage: Usage) -> None:
        with self._lock:
            self._by_action[action] += usage
            self._calls[action] += 1
            if material is not None:
                self._by_material[material] += usage

    def totals(self) -> Usage:
        with self._lock:
            return sum(self._by_action.values(), Usage())

    def calls(self) -> dict[str, int]:
        with self._lock:
            return dict(self._calls)

    def by_action(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._by_action)

    def by_material(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._by_material)

    def to_dict(self) -> dict:
        """A JSON-ready summary (what a benchmark or the audit log stores)."""
        by_action = self.by_action()
        calls = self.calls()
        return {
            "totals": {**self.totals().to_json(), "calls": sum(calls.values())},
            "by_action": {
                action: {**usage.to_json(), "calls": calls.get(action, 0)}
                for action, usage in sorted(by_action.items())
            },
            "by_material": {
                path: usage.to_json() for path, usage in sorted(self.by_material().items())
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def __repr__(self) -> str:
        t = self.totals()
        return (
            f"TokenLedger(prompt={t.prompt_tokens}, completion={t.completion_tokens}, "
            f"cached={t.cached_tokens})"
        )
