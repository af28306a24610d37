"""Which notes are archived now: the last archive batch's list less the notes touched
since that batch (docs/spec.md §7.3.6).

The archive batch (`consolidate/archive.py`) writes `meta/archived.json` once a day; a
note used after that — a dream update, a person opening it (`note`), a recall that asked
for archived notes, a thaw by hand — must not wait for the next batch to be found again.
The batch records how far it read the access log (`access_log_bytes`, the log's size when
it started reading): every line after that offset is a touch since the batch. When the
file does not say (written by an older build) or the log is now shorter than that (it
was replaced), the lines stamped after the batch's `computed_at` are the touches.

Recall (its archived filter, §6.5.1), the note context and the workbench all read the
archive through `ArchiveBatch.archived_now`, so they agree on what is archived.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import UnsafePathError
from .meta import meta_path, parse_utc

__all__ = ["ACCESS_LOG", "ARCHIVED_META", "LOG_BYTES", "AccessEvent", "ArchiveBatch",
           "access_log_size", "read_access_events", "touched_after"]

ACCESS_LOG = "access_log"  # meta/access_log.jsonl
ARCHIVED_META = "archived"  # meta/archived.json
LOG_BYTES = "access_log_bytes"  # archived.json: how much of the log the batch read


@dataclass(frozen=True)
class AccessEvent:
    """One usable line of `meta/access_log.jsonl`."""

    path: str
    event: str
    ts: datetime


def _log_path(root: Path | str) -> Path:
    return meta_path(Path(root), ACCESS_LOG, ".jsonl")


def access_log_size(root: Path | str) -> int:
    """The access log's size in bytes now (0 when there is none yet)."""
    try:
        return os.stat(_log_path(root)).st_size
    except (OSError, UnsafePathError):
        return 0


def read_access_events(root: Path | str, *, start: int = 0) -> Iterator[AccessEvent]:
    """Every usable line of the access log from byte `start` on, in file order.

    A line that is not a JSON object with a string `path`, a string `event` and an ISO
    `ts` is skipped (§7.3.7): several processes append to the log and a torn or foreign
    line must not stop a reader. When `start` falls inside a line, that line is skipped.
    A missing log yields nothing.
    """
    try:
        fh = open(_log_path(root), "rb")  # noqa: SIM115 (closed below; a generator owns it)
    except (OSError, UnsafePathError):  # missing (the usual case before any use), not a file
        return
    with fh:
        if start > 0:
            fh.seek(start - 1)
            if fh.read(1) != b"\n":
                fh.readline()  # the rest of a line that began before `start`
        for raw in fh:
            try:
                doc = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(doc, dict):
                continue
            note, event, when = doc.get("path"), doc.get("event"), parse_utc(doc.get("ts"))
            if isinstance(note, str) and isinstance(event, str) and when is not None:
                yield AccessEvent(note, event, when)


def touched_after(root: Path | str, *, offset: int | None, since: datetime | None,
                  paths: Iterable[str] | None = None) -> frozenset[str]:
    """The paths (only `paths`, if given) with an access-log line after byte `offset`;
    when `offset` is None or past the log's end, those with a line stamped after
    `since` (None: no reference, nothing counts as touched)."""
    wanted = None if paths is None else frozenset(paths)
    if wanted is not None and not wanted:
        return frozenset()
    if offset is not None and 0 <= offset <= access_log_size(root):
        events = read_access_events(root, start=offset)
        found = {e.path for e in events}
    elif since is not None:
        found = {e.path for e in read_access_events(root) if e.ts > since}
    else:
        return frozenset()
    return frozenset(found if wanted is None else found & wanted)


@dataclass(frozen=True)
class ArchiveBatch:
    """What `meta/archived.json` says: the archived paths, when the batch ran and how
    much of the access log it had read."""

    listed: frozenset[str]
    computed_at: datetime | None
    log_bytes: int | None

    @classmethod
    def from_doc(cls, doc: Mapping) -> ArchiveBatch | None:
        """The batch of an archived.json document; None when it lists no `archived`."""
        found = doc.get("archived")
        if not isinstance(found, list):
            return None
        size = doc.get(LOG_BYTES)
        usable = isinstance(size, int) and not isinstance(size, bool) and size >= 0
        return cls(frozenset(p for p in found if isinstance(p, str)),
                   parse_utc(doc.get("computed_at")), size if usable else None)

    def thawed(self, root: Path | str) -> frozenset[str]:
        """The listed notes touched since the batch: out of the archive already."""
        return touched_after(root, offset=self.log_bytes, since=self.computed_at,
                             paths=self.listed)

    def archived_now(self, root: Path | str) -> frozenset[str]:
        """The listed notes not touched since the batch."""
        return self.listed - self.thawed(root) if self.listed else self.listed
