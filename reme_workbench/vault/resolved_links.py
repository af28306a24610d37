"""Which links resolved before: what tells a broken link from one not yet written.

A link that resolves to nothing is one of two things (docs/spec.md §7.5.1). A link to a
note the person means to write (`[[Linux]]`, a journal's `[[2024-05-20]]`) never
resolved: it is theirs, listed as *not yet written*, and nothing is proposed. A link a
change made unresolvable — it named a file at the last recorded health run, and that
file is gone — is a D1 fault, and stays one on later runs until it resolves again or
leaves the note.

`meta/resolved_links.json` is that record: the vault's files and their aliases at the
last health run that wrote one (consolidate, `health` with its report or `--fix`), and
the links found broken then. It is derived state: losing it (absent, unreadable, another
version) means no link is known to have resolved, so every link that resolves to
nothing now is treated as not yet written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

from .meta import read_meta, write_meta
from .resolve import LinkResolver

__all__ = ["RESOLVED_META", "ResolvedBefore", "load_resolved_before", "record_resolved"]

RESOLVED_META = "resolved_links"  # meta/resolved_links.json
_VERSION = 1


def _key(target: str) -> str:
    return " ".join(target.split()).lower()


@dataclass(frozen=True)
class ResolvedBefore:
    """The record as read: `files` (path -> aliases) at the last recorded run, and the
    `(source, target)` links already found broken (targets lowercased)."""

    files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    broken: frozenset[tuple[str, str]] = frozenset()

    @cached_property
    def _resolver(self) -> LinkResolver:  # built once, on the first dangling link asked about
        return LinkResolver(self.files, self.files)

    def resolved(self, source: str, target: str) -> bool:
        """Whether the link `target` in `source` resolved at the recorded run, or was
        already found broken then (a fault stays one until it resolves or goes)."""
        if (source, _key(target)) in self.broken:
            return True
        return bool(self.files) and self._resolver.resolve(target, source).path is not None


def load_resolved_before(root: Path | str) -> ResolvedBefore:
    """The record of `root`; an empty one (nothing resolved before) when there is none
    or it cannot be used."""
    data = read_meta(Path(root), RESOLVED_META, version=_VERSION).data
    if data is None:
        return ResolvedBefore()
    files = data.get("files")
    broken = data.get("broken")
    if not isinstance(files, dict) or not isinstance(broken, list):
        return ResolvedBefore()
    kept = {
        path: tuple(a for a in aliases if isinstance(a, str))
        for path, aliases in files.items()
        if isinstance(path, str) and isinstance(aliases, list)
    }
    pairs = frozenset(
        (row[0], _key(row[1])) for row in broken
        if isinstance(row, list) and len(row) == 2 and all(isinstance(v, str) for v in row)
    )
    return ResolvedBefore(kept, pairs)


def record_resolved(
    root: Path | str, files: Mapping[str, object], broken: Iterable[tuple[str, str]], *,
    now: datetime,
) -> bool:
    """Write the record: `files` (a scan's records, path -> record with `aliases`) as
    they are now, and the `(source, target)` links found broken now. Nothing is written
    when the record already says the same (an hourly run changes no file for nothing);
    returns whether it wrote."""
    payload = {
        "files": {path: list(getattr(rec, "aliases", ())) for path, rec in sorted(files.items())},
        "broken": [list(pair) for pair in sorted({(s, _key(t)) for s, t in broken})],
    }
    old = read_meta(Path(root), RESOLVED_META, version=_VERSION).data
    if old is not None and all(old.get(k) == v for k, v in payload.items()):
        return False
    write_meta(Path(root), RESOLVED_META, payload, version=_VERSION, now=now)
    return True
