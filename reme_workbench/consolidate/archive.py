"""Archive: a recency score for every digest note, and the soft archive of the cold ones.

docs/spec.md §7.3. Once a day (`[schedule] archive_every_days`) every digest note gets

    recency = exp(−Δ / τ) × (1 + ln(1 + hits)) × (1 + ln(1 + inbound) / SCALE)

where Δ is the days since its last use (the later of the file's mtime and its last
event in `meta/access_log.jsonl` other than a `recall` hit: a dream or consolidate
change, an import, an `open` by a person or an agent, a thaw), hits its access-log
events of the last `[archive] hit_window_days`, and inbound the number of other digest
notes that link to it. Use is use (§7.3.2): before scoring, the batch logs an `open`
for each note Obsidian lists as opened since the last batch (`.obsidian/workspace.json`
`lastOpenFiles`), and an `adopt` for each note the log has never seen (copied in by
hand): its recency starts now, not at its old file time. The score is stored clipped to
[0, 1] — a fresh, used note would otherwise score above 1, and recall reads it as a
factor:

* `meta/recency.json` — `{"version": 1, "computed_at", "scores": {path: 0..1},
  "clipped": [0, 1], "tau_update_days", "centrality_scale", "hit_window_days"}`;
* `meta/archived.json` — `{"version": 1, "computed_at", "archived": [path, ...] (sorted),
  "threshold", "access_log_bytes", "max_share_per_run", "held_back", "obsidian_last_open"}`:
  the notes scoring under `[archive] threshold`, except those touched (any access-log
  event) since the previous batch — they thaw (§7.3.6) — and, of those not archived
  before, at most `[archive] max_share_per_run` of the live notes, coldest first (the
  rest are `held_back` for a later batch, §7.3.9); how many bytes of the access log this
  batch read (`vault/archive_state.py`: recall counts every line after them as a touch,
  so a note used after the batch is found again at once, not at the next batch); and
  Obsidian's `lastOpenFiles` as this batch saw it.

Recall reads `scores` and `archived` (index/recall.py): those keys are a contract.
Archiving is soft: no note is moved or changed. Pure parts first (`recency_score`,
`read_access_log`, `archive_decision`, `compact_log`), then the one writer
(`update_archive`).

The batch is also the access log's aggregator (§7.3.11): after scoring, it compacts the
lines it read that are older than every window a score or a gate counts hits in. Of those,
each path keeps its newest use (the newest event that is not a recall hit: Δ runs from
it) and its newest event of any kind when that is newer (a touch); the kept line says how
many lines it stands for (`aggregated`). Every later batch, recall and abstract's gate
read the same figures from the compacted log as from the whole one, and the log holds at
most two lines per path ever used plus the lines of the window. Lines appended while it
runs stay, after what it read; the new `access_log_bytes` is written before the new log
replaces the old one (`vault.meta.rewrite_jsonl`, under the lock every appender takes).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import ArchiveSettings
from ..vault.archive_state import (
    LOG_BYTES,
    OBSIDIAN_OPEN,
    ArchiveBatch,
    access_log_size,
    obsidian_recent_files,
    opened_since,
    read_access_events,
    touched_after,
)
from ..vault.meta import as_utc, log_access, parse_utc, read_meta, rewrite_jsonl, write_meta

if TYPE_CHECKING:
    from ..vault.vault import Vault

__all__ = [
    "RECENCY_META",
    "ARCHIVED_META",
    "META_VERSION",
    "OPEN_EVENT",
    "ADOPT_EVENT",
    "THAW_EVENT",
    "NoteActivity",
    "ArchiveReport",
    "recency_score",
    "read_access_log",
    "note_activity",
    "archive_decision",
    "cap_new_archivals",
    "update_archive",
    "compact_log",
    "thaw",
]

RECENCY_META = "recency"
ARCHIVED_META = "archived"
META_VERSION = 1
REBUILD = "reme-workbench consolidate --only archive --force"
RECALL_EVENT = "recall"
OPEN_EVENT = "open"  # a person or an agent opened the note (`note`, POST /note, Obsidian)
ADOPT_EVENT = "adopt"  # the first batch that saw a note no event ever named (copied in)
THAW_EVENT = "thaw"  # a person took the note out of the archive by hand
HIT_ONLY_EVENTS = frozenset({RECALL_EVENT})  # every other event is a use (§7.3.2)
_DAY = 86400.0


_DEFAULTS = ArchiveSettings()  # the spec's defaults, from the one place they live


def recency_score(days_since_update: float, hits: int, inbound: int, *,
                  tau_days: float = _DEFAULTS.tau_update_days,
                  scale: float = _DEFAULTS.centrality_scale) -> float:
    """The raw score of §7.3.1 (not clipped): 1.0 for a note updated now, unused, unlinked.

    A negative `days_since_update` (a last update in the future) counts as now.
    """
    days = max(0.0, float(days_since_update))
    return (math.exp(-days / tau_days)
            * (1.0 + math.log1p(max(0, hits)))
            * (1.0 + math.log1p(max(0, inbound)) / scale))


def _clip(score: float) -> float:
    return min(1.0, max(0.0, score))


@dataclass(frozen=True)
class NoteActivity:
    """What the access log says of one path."""

    last_change: datetime | None = None  # newest use: an event that is not a recall hit
    last_event: datetime | None = None  # newest event of any kind (for thaw)
    hits: int = 0  # events of any kind inside the hit window


def read_access_log(root: Path | str) -> Iterator[tuple[str, str, datetime]]:
    """(path, event, ts) of every usable line of `meta/access_log.jsonl`, in file order.

    A line that is not a JSON object with a string `path`, a string `event` and an ISO
    `ts` is skipped (§7.3.7): the log is appended by several processes and a torn or
    foreign line must not stop the batch. A missing log yields nothing.
    """
    for event in read_access_events(root):
        yield event.path, event.event, event.ts


def note_activity(
    events: Iterable[tuple[str, str, datetime]], *, now: datetime, window_days: float,
    paths: Iterable[str] | None = None,
) -> dict[str, NoteActivity]:
    """Fold access-log events into one `NoteActivity` per path (only `paths`, if given).

    Hits count events with `now - window_days <= ts <= now`: an event stamped after
    `now` (a clock ahead of ours) is a touch but not a hit in this window.
    """
    now = as_utc(now)
    since = now - timedelta(days=window_days)
    wanted = None if paths is None else set(paths)
    last_change: dict[str, datetime] = {}
    last_event: dict[str, datetime] = {}
    hits: dict[str, int] = {}
    for note, event, when in events:
        if wanted is not None and note not in wanted:
            continue
        if note not in last_event or when > last_event[note]:
            last_event[note] = when
        if event not in HIT_ONLY_EVENTS and (note not in last_change or when > last_change[note]):
            last_change[note] = when
        if since <= when <= now:
            hits[note] = hits.get(note, 0) + 1
    return {
        note: NoteActivity(last_change.get(note), last_event[note], hits.get(note, 0))
        for note in last_event
    }


def archive_decision(
    scores: Mapping[str, float], threshold: float, *,
    touched: Iterable[str] = (),
) -> tuple[str, ...]:
    """The archived paths (sorted): stored score under `threshold`, and not `touched`."""
    keep_out = set(touched)
    return tuple(sorted(p for p, s in scores.items() if s < threshold and p not in keep_out))


def cap_new_archivals(
    archived: Sequence[str], scores: Mapping[str, float], was: Iterable[str], share: float,
) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """(archived, held back, how many new ones one run may take) under the cap of §7.3.9:
    the notes archived before stay; of the others, one run archives at most `share` of
    the live notes (scored and not staying archived), rounded down — the coldest first,
    by score then path — and holds the rest back for a later batch."""
    was = set(was)
    stay = [p for p in archived if p in was]
    new = sorted((p for p in archived if p not in was), key=lambda p: (scores[p], p))
    allowed = math.floor(share * (len(scores) - len(stay)) + 1e-9)
    return tuple(sorted(stay + new[:allowed])), tuple(sorted(new[allowed:])), allowed


AGGREGATED = "aggregated"  # a compacted line: how many lines of its path it stands for


def compact_log(data: bytes, *, before: datetime) -> bytes:
    """The access-log lines `data` with every line stamped before `before` folded into at
    most two per path (see the module doc): its newest use, and its newest event when
    that is a recall hit after it, in time order, each with `aggregated` — so the sum of
    a path's `aggregated` (1 for a plain line) is the number of lines it ever had. Lines
    stamped at or after `before` stay as they are, in order; unusable lines (§7.3.7) go."""
    before = as_utc(before)
    old: dict[str, list[tuple[datetime, bool, dict]]] = {}
    kept: list[bytes] = []
    for raw in data.splitlines(keepends=True):
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        when = parse_utc(doc.get("ts")) if isinstance(doc, dict) else None
        if when is None or not isinstance(doc.get("path"), str) or not isinstance(doc.get("event"), str):
            continue
        if when >= before:
            kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
            continue
        old.setdefault(doc["path"], []).append((when, doc["event"] in HIT_ONLY_EVENTS, doc))
    folded: list[tuple[datetime, str, dict]] = []
    for path, lines in old.items():
        count = sum(_weight(doc) for _, _, doc in lines)
        uses = [line for line in lines if not line[1]]
        newest = max(lines, key=lambda line: line[0])
        use = max(uses, key=lambda line: line[0]) if uses else None
        picked = [use] if use is not None else []
        if use is None or newest[0] > use[0]:
            picked.append(newest)
        for i, (when, _, doc) in enumerate(picked):
            share = count - (len(picked) - 1) if i == len(picked) - 1 else 1
            folded.append((when, path, {**doc, AGGREGATED: share}))
    lines_out = [json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
                 for _, _, doc in sorted(folded, key=lambda f: (f[0], f[1]))]
    return b"".join(lines_out + kept)


def _weight(doc: dict) -> int:
    value = doc.get(AGGREGATED)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _compact(root: Path, *, read: int, before: datetime, archived_doc: dict,
             now: datetime) -> tuple[int, int] | None:
    """Compact the first `read` bytes of the access log (what this batch read), the lines
    after them kept as they are, and record the new offset in meta/archived.json first;
    the log's size before and after, or None when nothing was compacted."""
    moved: list[tuple[int, int]] = []

    def rewrite(data: bytes) -> bytes | None:
        cut = data.rfind(b"\n", 0, min(read, len(data))) + 1  # whole lines of what was read
        head = compact_log(data[:cut], before=before)
        if len(head) >= cut:
            return None  # nothing older than the windows: leave the log alone
        offset = len(head) + max(0, read - cut)
        # before the log: a reader between the two sees lines after the new offset as
        # touches (a note shown a moment early), never a touch hidden
        write_meta(root, ARCHIVED_META, {**archived_doc, LOG_BYTES: offset},
                   version=META_VERSION, now=now)
        moved.append((len(data), len(head) + len(data) - cut))
        return head + data[cut:]

    return moved[0] if rewrite_jsonl(root, "access_log", rewrite) else None


@dataclass(frozen=True)
class ArchiveReport:
    scores: Mapping[str, float]  # path -> stored (clipped) score
    archived: tuple[str, ...]
    newly_archived: tuple[str, ...]  # archived now, not in the previous batch
    thawed: tuple[str, ...]  # in the previous batch, out now (deleted notes are not counted)
    kept_by_touch: tuple[str, ...]  # under the threshold but touched since the last batch
    previous_computed_at: str | None  # the previous archived.json's batch, if usable
    computed_at: datetime
    paths: tuple[str, ...]  # meta files written (vault-relative); empty on a dry run
    held_back: tuple[str, ...] = ()  # under the threshold, left live by the cap (§7.3.9)
    live: int = 0  # notes live before this batch took any: what the cap is a share of
    allowed: int = 0  # how many notes this batch could archive anew
    opened: tuple[str, ...] = ()  # opened in Obsidian since the last batch (lastOpenFiles)
    adopted: tuple[str, ...] = ()  # first seen by this batch: recency starts now
    compacted: tuple[int, int] | None = None  # the access log's bytes before and after (§7.3.11)


def _previous_batch(root: Path) -> tuple[ArchiveBatch | None, str | None, list[str] | None]:
    """(the previous batch, its `computed_at` as written, Obsidian's lastOpenFiles as it
    saw them — None when it recorded none)."""
    read = read_meta(root, ARCHIVED_META, version=META_VERSION, rebuild=REBUILD)
    batch = None if read.data is None else ArchiveBatch.from_doc(read.data)
    if batch is None:
        return None, None, None  # no thaw reference: every note is scored afresh
    stamp = read.data.get("computed_at")
    seen = read.data.get(OBSIDIAN_OPEN)
    seen = [p for p in seen if isinstance(p, str)] if isinstance(seen, list) else None
    return batch, stamp if isinstance(stamp, str) else None, seen


def _used_now(act: NoteActivity, now: datetime) -> NoteActivity:
    """`act` with one more use at `now` (counted as a hit: it is in the window)."""
    last = act.last_change if act.last_change is not None and act.last_change > now else now
    seen = act.last_event if act.last_event is not None and act.last_event > now else now
    return NoteActivity(last, seen, act.hits + 1)


def _log_uses(root: Path, uses: Iterable[tuple[str, str]], now: datetime) -> None:
    """Append the batch's own use lines; a line that cannot be written is a warning (the
    batch still counts the use, §7.3.7)."""
    import warnings

    from ..errors import RemeError

    for path, event in uses:
        try:
            log_access(root, path, now, event, **({"via": "obsidian"} if event == OPEN_EVENT else {}))
        except (OSError, RemeError) as exc:
            warnings.warn(f"meta/access_log.jsonl not written ({exc}).", RuntimeWarning, stacklevel=3)
            return


def update_archive(
    vault: Vault,
    cfg: ArchiveSettings,
    *,
    now: datetime,
    dry_run: bool = False,
    keep_days: float | None = None,
) -> ArchiveReport:
    """Score every digest note of `vault` as it is now with the `[archive]` settings
    `cfg`, write both meta files (and the batch's `open` / `adopt` lines in the access
    log, see the module doc), and compact the access log's lines older than `keep_days`
    (default and at least `[archive] hit_window_days`; the caller passes the longest
    window anything counts hits in, e.g. abstract's).

    The caller refreshes the vault first. `dry_run` computes the same report and
    writes nothing.
    """
    tau_days, scale = cfg.tau_update_days, cfg.centrality_scale
    threshold, window_days = cfg.threshold, cfg.hit_window_days
    now = as_utc(now)
    graph = vault.graph.graph  # exactly the readable digest notes, edges between them
    records = vault.scan.records
    notes = list(graph.nodes)
    activity = note_activity(read_access_log(vault.root), now=now, window_days=window_days,
                             paths=notes)
    batch, previous_stamp, seen_open = _previous_batch(vault.root)
    # use is use (§7.3.2): opened in Obsidian since the last batch, or never seen before
    recent = obsidian_recent_files(vault.root)
    opened = tuple(p for p in opened_since(seen_open, recent) if p in graph)
    adopted = tuple(p for p in notes if p not in activity and p not in opened)
    for path in (*opened, *adopted):
        activity[path] = _used_now(activity.get(path, NoteActivity()), now)
    if not dry_run:
        _log_uses(vault.root, [*((p, OPEN_EVENT) for p in opened),
                               *((p, ADOPT_EVENT) for p in adopted)], now)
    log_bytes = access_log_size(vault.root)  # what recall will count as after this batch
    previous_at = batch.computed_at if batch is not None else None
    # touched since the previous batch: stamped after it, or appended after what it read
    # (recall thawed those at once, §7.3.6; the batch must not archive them again)
    since_batch = (frozenset() if batch is None else
                   touched_after(vault.root, offset=batch.log_bytes, since=previous_at))
    scores: dict[str, float] = {}
    touched: list[str] = []
    pred = graph.pred
    for path in notes:
        act = activity.get(path, NoteActivity())
        updated = datetime.fromtimestamp(records[path].mtime_ns / 1e9, UTC)
        if act.last_change is not None and act.last_change > updated:
            updated = act.last_change
        inbound = len(pred[path]) - (1 if path in pred[path] else 0)
        raw = recency_score((now - updated).total_seconds() / _DAY, act.hits, inbound,
                            tau_days=tau_days, scale=scale)
        scores[path] = round(_clip(raw), 6)
        if path in since_batch or (previous_at is not None and act.last_event is not None
                                   and act.last_event > previous_at):
            touched.append(path)
    was = batch.listed if batch is not None else frozenset()
    archived, held_back, allowed = cap_new_archivals(
        archive_decision(scores, threshold, touched=touched), scores, was, cfg.max_share_per_run)
    kept = tuple(sorted(p for p in touched if scores[p] < threshold))
    paths: tuple[str, ...] = ()
    compacted = None
    if not dry_run:
        write_meta(vault.root, RECENCY_META, {
            "scores": dict(sorted(scores.items())),
            "clipped": [0, 1],  # §7.3.4: raw scores above 1 are stored as 1
            "tau_update_days": tau_days,
            "centrality_scale": scale,
            "hit_window_days": window_days,
        }, version=META_VERSION, now=now)
        archived_doc = {
            "archived": list(archived), "threshold": threshold, LOG_BYTES: log_bytes,
            "max_share_per_run": cfg.max_share_per_run, "held_back": list(held_back),
            OBSIDIAN_OPEN: list(recent),
        }
        write_meta(vault.root, ARCHIVED_META, archived_doc, version=META_VERSION, now=now)
        paths = (f"meta/{RECENCY_META}.json", f"meta/{ARCHIVED_META}.json")
        keep = max(window_days, keep_days if keep_days is not None else window_days)
        compacted = _compact(vault.root, read=log_bytes, before=now - timedelta(days=keep),
                             archived_doc=archived_doc, now=now)
        if compacted is not None:
            paths += ("meta/access_log.jsonl",)
    archived_set = set(archived)
    stay = sum(1 for p in archived if p in was)
    return ArchiveReport(
        scores=scores,
        archived=archived,
        newly_archived=tuple(p for p in archived if p not in was),
        thawed=tuple(sorted(p for p in was if p in scores and p not in archived_set)),
        kept_by_touch=kept,
        previous_computed_at=previous_stamp,
        computed_at=now,
        paths=paths,
        held_back=held_back,
        live=len(scores) - stay,
        allowed=allowed,
        opened=opened,
        adopted=adopted,
        compacted=compacted,
    )


def thaw(root: Path | str, path: str, now: datetime) -> None:
    """Take `path` out of the archive by hand (docs/spec.md §7.3.6): a `thaw` access-log
    line (its recency starts again; recall counts it as a touch since the batch and finds
    the note at once, and the next batch keeps it out) and the note taken off
    meta/archived.json, which keeps its batch time and log offset. No note is moved or
    edited."""
    root = Path(root)
    log_access(root, path, now, THAW_EVENT)
    doc = read_meta(root, ARCHIVED_META, version=META_VERSION, rebuild=REBUILD).data or {}
    listed = [p for p in doc.get("archived") or [] if isinstance(p, str)]
    batch = parse_utc(doc.get("computed_at")) or now
    kept = {k: v for k, v in doc.items() if k not in ("archived", "threshold")}
    write_meta(root, ARCHIVED_META, {**kept, "archived": [p for p in listed if p != path],
                                     "threshold": doc.get("threshold", _DEFAULTS.threshold)},
               version=META_VERSION, now=batch)
