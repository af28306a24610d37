"""The split queue: notes a write left over the split trigger, waiting for `consolidate`.

docs/spec.md §7.8.1 / §7.8.4: after any write (dream or consolidate) whose body exceeds
`[split] token_threshold`, the note is queued; dream never waits for a split, and
`consolidate` runs the queue (`consolidate/split.py`), and also looks at every other
digest note over the threshold (an imported, hand-written or accepted note). The queue
lives in `vault/` so that dream and consolidate, which may not import each other, share
one reader and writer. It is pure file I/O: the caller counts the tokens
(`vault.tokens.estimate_tokens` on the body after the frontmatter, the one documented
counter) and passes them in.

`meta/split_queue.json`, version 1::

    {"version": 1, "computed_at": "...Z",
     "queue": [{"path", "tokens", "queued_at", "by"}, ...],
     "rejected": [{"path", "sha256", "rejected_at", "proposal", "reason"}, ...],
     "not_overloaded": [{"path", "sha256", "judged_at", "tokens", "reason"}, ...]}

* `queue` holds one entry per path (dedup): a second write of a queued note replaces
  its entry (tokens, by, and `queued_at` = the latest write), so a runner that settles
  the queue removes only the entries it saw, never one re-queued while it ran.
* `rejected` remembers splits refused by the checks, with the sha256 of the note they
  were planned from: such a note stays out of the queue until its bytes change
  (docs/spec.md §7.8, "rejected ... until the note changes").
* `not_overloaded` remembers the notes the brain judged not overloaded, with the sha256
  of the bytes it read: such a note is not asked about again until its bytes change
  (docs/spec.md §7.8.5). A file without the list (written before it existed) reads as
  an empty one.

The file is a trust boundary (a person may edit it): entries whose path is not a
digest note path, or whose fields have the wrong type, are dropped when read. A file of
another version or broken JSON is ignored with a warning (§8.1.2): nothing is queued
until a write replaces it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from ..errors import UnsafePathError
from .layout import is_digest_note, normalize_rel
from .meta import iso_utc, read_meta, write_meta

__all__ = [
    "SPLIT_QUEUE_META",
    "SPLIT_QUEUE_VERSION",
    "QueuedSplit",
    "RejectedSplit",
    "JudgedSplit",
    "SplitQueue",
    "read_split_queue",
    "write_split_queue",
    "enqueue_splits",
    "settle_split_queue",
]

SPLIT_QUEUE_META = "split_queue"
SPLIT_QUEUE_VERSION = 1
_REBUILD = "reme-workbench dream"  # the next write over the threshold queues the note again


def _digest_path(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        path = normalize_rel(value)
    except (UnsafePathError, ValueError):
        return None
    return path if is_digest_note(path) else None


@dataclass(frozen=True)
class QueuedSplit:
    """A note waiting for the split action: `tokens` of its body when `by` queued it."""

    path: str
    tokens: int
    queued_at: str  # ISO 8601 UTC of the latest write that queued it
    by: str  # what wrote it: "dream", "consolidate.merge", "consolidate.split", ...

    def to_json(self) -> dict:
        return {"path": self.path, "tokens": self.tokens, "queued_at": self.queued_at,
                "by": self.by}


@dataclass(frozen=True)
class RejectedSplit:
    """A split the checks refused; the note is not queued again while its bytes match."""

    path: str
    sha256: str
    rejected_at: str
    proposal: str | None = None
    reason: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "rejected_at": self.rejected_at,
                "proposal": self.proposal, "reason": self.reason}


@dataclass(frozen=True)
class JudgedSplit:
    """A note the brain judged not overloaded; not asked again while its bytes match."""

    path: str
    sha256: str
    judged_at: str
    tokens: int = 0
    reason: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "judged_at": self.judged_at,
                "tokens": self.tokens, "reason": self.reason}


@dataclass(frozen=True)
class SplitQueue:
    entries: tuple[QueuedSplit, ...] = ()
    rejected: tuple[RejectedSplit, ...] = ()
    warning: str | None = None  # the file exists but was unusable (ignored)
    not_overloaded: tuple[JudgedSplit, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(e.path for e in self.entries)

    def rejected_sha(self, path: str) -> str | None:
        return next((r.sha256 for r in self.rejected if r.path == path), None)

    def to_json(self) -> dict:
        return {"queue": [e.to_json() for e in self.entries],
                "rejected": [r.to_json() for r in self.rejected],
                "not_overloaded": [j.to_json() for j in self.not_overloaded]}


def read_split_queue(root: Path | str) -> SplitQueue:
    """The queue as stored; a missing file is an empty queue, an unusable one too (with
    `warning` set)."""
    read = read_meta(Path(root), SPLIT_QUEUE_META, version=SPLIT_QUEUE_VERSION, rebuild=_REBUILD)
    if read.data is None:
        return SplitQueue(warning=read.warning if read.exists else None)
    entries: dict[str, QueuedSplit] = {}
    raw_queue = read.data.get("queue")
    for raw in raw_queue if isinstance(raw_queue, list) else ():
        if not isinstance(raw, dict):
            continue
        path, tokens = _digest_path(raw.get("path")), raw.get("tokens")
        queued_at, by = raw.get("queued_at"), raw.get("by")
        if path is None or not isinstance(tokens, int) or isinstance(tokens, bool):
            continue
        if not isinstance(queued_at, str) or not isinstance(by, str):
            continue
        entries[path] = QueuedSplit(path, tokens, queued_at, by)  # a duplicate: the last wins
    rejected: dict[str, RejectedSplit] = {}
    raw_rejected = read.data.get("rejected")
    for raw in raw_rejected if isinstance(raw_rejected, list) else ():
        if not isinstance(raw, dict):
            continue
        path, sha, when = _digest_path(raw.get("path")), raw.get("sha256"), raw.get("rejected_at")
        if path is None or not isinstance(sha, str) or not isinstance(when, str):
            continue
        proposal, reason = raw.get("proposal"), raw.get("reason")
        rejected[path] = RejectedSplit(path, sha, when,
                                       proposal if isinstance(proposal, str) else None,
                                       reason if isinstance(reason, str) else "")
    judged: dict[str, JudgedSplit] = {}
    raw_judged = read.data.get("not_overloaded")
    for raw in raw_judged if isinstance(raw_judged, list) else ():
        if not isinstance(raw, dict):
            continue
        path, sha, when = _digest_path(raw.get("path")), raw.get("sha256"), raw.get("judged_at")
        if path is None or not isinstance(sha, str) or not isinstance(when, str):
            continue
        tokens, reason = raw.get("tokens"), raw.get("reason")
        judged[path] = JudgedSplit(
            path, sha, when,
            tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0,
            reason if isinstance(reason, str) else "")
    return SplitQueue(tuple(entries.values()), tuple(rejected.values()),
                      not_overloaded=tuple(judged.values()))


def write_split_queue(root: Path | str, queue: SplitQueue, *, now: datetime) -> Path:
    """Write the queue atomically (docs/spec.md §8.1.1)."""
    return write_meta(Path(root), SPLIT_QUEUE_META, queue.to_json(),
                      version=SPLIT_QUEUE_VERSION, now=now)


def enqueue_splits(
    root: Path | str, items: Iterable[tuple[str, int]], *, by: str, now: datetime
) -> SplitQueue:
    """Queue each `(path, body tokens)`; a path already queued gets the new entry in its
    place. Reads the file again first, so entries other writers added are kept.
    Returns the queue as written (its `warning` says when an unusable file was replaced)."""
    current = read_split_queue(root)
    entries = {e.path: e for e in current.entries}
    when = iso_utc(now)
    added = False
    for path, tokens in items:
        clean = _digest_path(path)
        if clean is None:
            raise UnsafePathError(
                f"{path!r} is not a digest note path; only digest notes are split.", path=path
            )
        entries[clean] = QueuedSplit(clean, int(tokens), when, by)
        added = True
    queue = replace(current, entries=tuple(entries.values()))
    if added:
        write_split_queue(root, queue, now=now)
    return queue


def settle_split_queue(
    root: Path | str,
    handled: Iterable[QueuedSplit],
    *,
    rejected: Iterable[RejectedSplit] = (),
    forget_rejected: Iterable[str] = (),
    not_overloaded: Iterable[JudgedSplit] = (),
    forget_judged: Iterable[str] = (),
    now: datetime,
) -> SplitQueue:
    """After a run: remove the `handled` entries (only while unchanged: an entry queued
    again meanwhile has a newer `queued_at` and stays), remember `rejected` and the
    `not_overloaded` judgements, and forget the rejections of `forget_rejected` and the
    judgements of `forget_judged` (their notes changed or are gone).

    Reads the file again first, so what dream queued during the run is kept."""
    current = read_split_queue(root)
    done = {(h.path, h.queued_at) for h in handled}
    entries = tuple(e for e in current.entries if (e.path, e.queued_at) not in done)
    forget = set(forget_rejected)
    kept = {r.path: r for r in current.rejected if r.path not in forget}
    for r in rejected:
        kept[r.path] = r
    unjudged = set(forget_judged)
    judged = {j.path: j for j in current.not_overloaded if j.path not in unjudged}
    for j in not_overloaded:
        judged[j.path] = j
    queue = SplitQueue(entries, tuple(kept.values()), not_overloaded=tuple(judged.values()))
    if queue.to_json() != current.to_json():
        write_split_queue(root, queue, now=now)
    return queue
