"""Progress on stderr for the long commands (index, dream, recall), only on a terminal.

One status line, redrawn in place (`\\r` + erase to the end of the line) and erased when
the work is done, so nothing of it is left in what the user scrolls back through. When
stderr is not a terminal (a pipe, a log file, a test runner) nothing is written at all:
progress is for a person watching.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_ERASE = "\r\x1b[K"
_INTERVAL = 0.1  # s between redraws: a fast loop must not flood the terminal


class Progress:
    """`update(text)` redraws the status line; `clear()` erases it (before other output)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = self.stream.isatty()
        except (AttributeError, ValueError):  # a closed or odd stream is no terminal
            self.enabled = False
        self._shown = False
        self._last = 0.0
        self._step: str | None = None  # milestones: the step last drawn

    def update(self, text: str, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and self._shown and now - self._last < _INTERVAL:
            return
        self._last = now
        width = _width()
        self.stream.write(_ERASE + (text if len(text) < width else text[: width - 2] + "…"))
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        if self._shown:
            self.stream.write(_ERASE)
            self.stream.flush()
            self._shown = False

    # -- what each command counts ---------------------------------------------------
    def files(self, label: str):
        """A `progress(done, total)` callback for VaultIndex.refresh: files indexed."""

        def report(done: int, total: int) -> None:
            if total:
                self.update(f"{label}: {done}/{total} files", force=done == total)

        return report

    def message(self, done: int, total: int, text: str) -> None:
        """A `progress(done, total, text)` callback of the operations layer
        (reme_workbench.ops), for many quick steps: redrawn at most every 0.1 s."""
        self.update(text, force=bool(total) and done >= total)

    def milestones(self, done: int, total: int, text: str) -> None:
        """As `message`, for a few slow steps (dream's files, and each file's units once
        found): a line that changes before its first comma is always drawn."""
        step = text.split(",")[0]
        self.update(text, force=step != self._step or (bool(total) and done >= total))
        self._step = step

    def steps(self, what: str, done: int, total: int) -> None:
        """A bar for a job of a few long steps (the demo's weeks): [####······] 3/9 what."""
        width = 20
        filled = round(width * done / total) if total else width
        self.update(f"[{'#' * filled}{'·' * (width - filled)}] {done}/{total} {what}", force=True)

    def queries(self, done: int, total: int) -> None:
        self.update(f"recall: {done}/{total} queries", force=done == total)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()


def _width() -> int:
    import shutil

    return max(shutil.get_terminal_size((80, 24)).columns, 20)
