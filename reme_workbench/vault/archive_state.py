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

What Obsidian records as recently opened is use too (§7.3.2): `obsidian_recent_files`
reads `.obsidian/workspace.json` (and `workspace-mobile.json`) `lastOpenFiles`, most
recent first, and `opened_since` tells which of them were opened since the list the
last batch saw.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import UnsafePathError
from .layout import resolve_inside
from .meta import meta_path, parse_utc

__all__ = ["ACCESS_LOG", "ARCHIVED_META", "LOG_BYTES", "OBSIDIAN_OPEN", "AccessEvent",
           "ArchiveBatch", "access_log_size", "obsidian_recent_files", "opened_since",
           "read_access_events", "touched_after"]

ACCESS_LOG = "access_log"  # meta/access_log.jsonl
ARCHIVED_META = "archived"  # meta/archived.json
LOG_BYTES = "access_log_bytes"  # archived.json: how much of the log the batch read
OBSIDIAN_OPEN = "obsidian_last_open"  # archived.json: Obsidian's lastOpenFiles the batch saw
# Obsidian's own record of the files opened last (desktop, then mobile)
_WORKSPACES = (".obsidian/workspace.json", ".obsidian/workspace-mobile.json")
_MAX_WORKSPACE_BYTES = 8 * 1024 * 1024  # a workspace file is a few KB; more is not one


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


def obsidian_recent_files(root: Path | str) -> tuple[str, ...]:
    """The vault paths Obsidian lists as opened last (`lastOpenFiles` of
    `.obsidian/workspace.json`, then of `workspace-mobile.json`), most recent first.

    Obsidian writes these files itself, so anything may be there: a file that is missing,
    unreadable, not JSON, or without a list of strings gives nothing, never an error."""
    found: list[str] = []
    for rel in _WORKSPACES:
        try:
            full = resolve_inside(Path(root), rel)
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read(_MAX_WORKSPACE_BYTES + 1)
            doc = json.loads(raw.decode("utf-8")) if len(raw) <= _MAX_WORKSPACE_BYTES else None
        except (OSError, UnsafePathError, ValueError):
            continue
        recent = doc.get("lastOpenFiles") if isinstance(doc, dict) else None
        if isinstance(recent, list):
            found += [p for p in recent if isinstance(p, str) and p not in found]
    return tuple(found)


def opened_since(before: Iterable[str] | None, now: Iterable[str]) -> tuple[str, ...]:
    """The paths of `now` (a most-recent-first list) opened since `before` was read: new
    to the list, or moved ahead of where they were (opening a file puts it first and
    pushes the others back). With no `before` (no batch saw the list yet), all of them."""
    if before is None:
        return tuple(dict.fromkeys(now))
    was = {p: i for i, p in reversed(list(enumerate(before)))}
    return tuple(p for i, p in enumerate(dict.fromkeys(now)) if p not in was or i < was[p])
