"""Cooldowns: consolidate actions lock each other out for a while (docs/spec.md §7.4).

A merge makes a long note, a split cuts it back, a merge again …: without a memory of
what was done lately, the mechanical actions can undo each other in a loop. After an
action, its notes are off limits to the actions that would undo it:

| after    | may not                                  | window (key in [cooldowns]) |
|----------|------------------------------------------|-----------------------------|
| split    | be a merge candidate                     | split_to_merge_days (14)    |
| merge    | be evaluated for split                   | merge_to_split_days (14)    |
| abstract | be a merge candidate                     | abstract_to_merge_days (28) |
| merge    | be merged again without a person (alarm) | merge_to_merge_days (84)    |

The last rule is an alarm, not a silent skip: `merged_recently` tells the merge action
to hold its proposal for a person and write an alarm to the audit.

State is `meta/cooldowns.json` — `{"version": 1, "computed_at", "entries": [{"path",
"action", "started_at"}, ...]}` — never the notes. Windows are applied when asked, from
the settings of the run that asks (a changed window acts at once on entries already
recorded); a window of 0 days turns its rule off. Expired entries are pruned whenever
the file is written. A file that exists but is unreadable or of another version means
no loop defence: every cooldown is inactive, and `warning` says so (§7.4.4).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ..config import CooldownSettings
from ..errors import RemeError
from ..vault.meta import as_utc, iso_utc, parse_utc, read_meta, write_meta

__all__ = [
    "COOLDOWNS_META",
    "META_VERSION",
    "ACTIONS",
    "CooldownWindows",
    "CooldownEntry",
    "Cooldown",
    "Cooldowns",
]

COOLDOWNS_META = "cooldowns"
META_VERSION = 1
ACTIONS = ("split", "merge", "abstract")  # what can have happened to a note
REBUILD = "reme-workbench consolidate"  # no command rebuilds it: the next action rewrites it


_DEFAULTS = CooldownSettings()  # the spec's defaults, from the one place they live


@dataclass(frozen=True)
class CooldownWindows:
    """The four windows of §7.4.1; `timedelta(0)` turns a rule off."""

    split_to_merge: timedelta = timedelta(days=_DEFAULTS.split_to_merge_days)
    merge_to_split: timedelta = timedelta(days=_DEFAULTS.merge_to_split_days)
    merge_to_merge: timedelta = timedelta(days=_DEFAULTS.merge_to_merge_days)
    abstract_to_merge: timedelta = timedelta(days=_DEFAULTS.abstract_to_merge_days)

    @classmethod
    def from_settings(cls, cooldowns: CooldownSettings) -> CooldownWindows:
        """From the `[cooldowns]` section of `Settings`."""
        return cls(
            split_to_merge=timedelta(days=cooldowns.split_to_merge_days),
            merge_to_split=timedelta(days=cooldowns.merge_to_split_days),
            merge_to_merge=timedelta(days=cooldowns.merge_to_merge_days),
            abstract_to_merge=timedelta(days=cooldowns.abstract_to_merge_days),
        )

    def rules(self) -> tuple[tuple[str, str, timedelta, str], ...]:
        """(happened, then forbidden, window, the key that sets it)."""
        return (
            ("split", "merge", self.split_to_merge, "split_to_merge_days"),
            ("merge", "split", self.merge_to_split, "merge_to_split_days"),
            ("abstract", "merge", self.abstract_to_merge, "abstract_to_merge_days"),
        )

    def longest(self, happened: str) -> timedelta:
        """How long an entry of `happened` matters at all (for pruning)."""
        spans = [w for h, _, w, _ in self.rules() if h == happened]
        if happened == "merge":
            spans.append(self.merge_to_merge)
        return max(spans, default=timedelta(0))


@dataclass(frozen=True)
class CooldownEntry:
    path: str
    action: str  # what happened to the note: split, merge or abstract
    started_at: datetime

    def to_json(self) -> dict:
        return {"path": self.path, "action": self.action, "started_at": iso_utc(self.started_at)}


@dataclass(frozen=True)
class Cooldown:
    """An active cooldown: `forbids` on `path` until `until`, because of `entry`."""

    path: str
    forbids: str  # merge, split, or "merge-without-a-person" (the 12-week alarm)
    until: datetime
    entry: CooldownEntry
    key: str  # the [cooldowns] key of the window

    def to_json(self) -> dict:
        return {"path": self.path, "forbids": self.forbids, "until": iso_utc(self.until),
                "because": self.entry.action, "since": iso_utc(self.entry.started_at),
                "key": f"[cooldowns] {self.key}"}


def _check_action(action: str) -> str:
    if action not in ACTIONS:
        raise RemeError(f"Unknown consolidate action {action!r} for a cooldown; use one of "
                        f"{', '.join(ACTIONS)}.")
    return action


class Cooldowns:
    """The cooldown entries of one vault, read once; `save` writes them back pruned.

    `Cooldowns.load(root, windows)` is what an action uses; `active(path, action, now)`
    before it proposes, `start(path, action, now)` once its change applied, then `save`.
    """

    def __init__(self, entries: Iterable[CooldownEntry] = (), *,
                 windows: CooldownWindows = CooldownWindows(), warning: str | None = None,
                 root: Path | None = None) -> None:
        self.entries: list[CooldownEntry] = list(entries)
        self.windows = windows
        # set when meta/cooldowns.json exists but cannot be used: no loop defence (§7.4.4)
        self.warning = warning
        self.root = root

    @property
    def defended(self) -> bool:
        return self.warning is None

    @classmethod
    def load(cls, root: Path | str, windows: CooldownWindows = CooldownWindows()) -> Cooldowns:
        read = read_meta(Path(root), COOLDOWNS_META, version=META_VERSION, rebuild=REBUILD)
        if read.data is None:
            warning = None
            if read.exists:
                warning = (f"{read.warning} Until it is rewritten there is no loop defence: "
                           "every cooldown is inactive.")
            return cls((), windows=windows, warning=warning, root=Path(root))
        entries = []
        found = read.data.get("entries")
        for raw in found if isinstance(found, list) else ():
            if not isinstance(raw, dict):
                continue
            path, action, started = raw.get("path"), raw.get("action"), raw.get("started_at")
            when = parse_utc(started)
            if not (isinstance(path, str) and action in ACTIONS and when is not None):
                continue
            entries.append(CooldownEntry(path, action, when))
        return cls(entries, windows=windows, root=Path(root))

    # -- asking -----------------------------------------------------------------------
    def cooldowns(self, now: datetime, path: str | None = None) -> list[Cooldown]:
        """Every active cooldown (of `path`, if given), soonest to end first."""
        if not self.defended:
            return []
        now = as_utc(now)
        found = []
        for entry in self.entries:
            if path is not None and entry.path != path:
                continue
            rules = [(f, w, k) for h, f, w, k in self.windows.rules() if h == entry.action]
            if entry.action == "merge":
                rules.append(("merge-without-a-person", self.windows.merge_to_merge,
                              "merge_to_merge_days"))
            for forbids, window, key in rules:
                until = entry.started_at + window
                if window > timedelta(0) and entry.started_at <= now < until:
                    found.append(Cooldown(entry.path, forbids, until, entry, key))
        return sorted(found, key=lambda c: (c.until, c.path, c.forbids))

    def active(self, path: str, action: str, now: datetime) -> Cooldown | None:
        """The cooldown that forbids `action` (merge or split) on `path` now, if any.

        For a merge this is the split→merge and abstract→merge rules; the 12-week
        merge→merge rule does not forbid, it holds the proposal (`merged_recently`).
        """
        _check_action(action)
        blocking = [c for c in self.cooldowns(now, path) if c.forbids == action]
        return max(blocking, key=lambda c: c.until) if blocking else None

    def merged_recently(self, path: str, now: datetime) -> Cooldown | None:
        """The merge of `path` within `[cooldowns] merge_to_merge_days`, if any: a new
        merge touching it is held for a person and an alarm is audited (§7.4.2)."""
        alarms = [c for c in self.cooldowns(now, path) if c.forbids == "merge-without-a-person"]
        return max(alarms, key=lambda c: c.until) if alarms else None

    # -- recording --------------------------------------------------------------------
    def start(self, path: str, action: str, now: datetime) -> CooldownEntry:
        """Record that `action` just happened to `path` (call `save` to keep it)."""
        entry = CooldownEntry(path, _check_action(action), as_utc(now))
        self.entries.append(entry)
        return entry

    def sync_applied(self, proposals: Iterable, now: datetime) -> list[CooldownEntry]:
        """Start the cooldowns of consolidate proposals that applied (docs/spec.md §7.4.3).

        A proposal may wait for a person for days; its cooldowns start when it applied
        (its `updated_at` in state `applied`), not when it was planned. Each proposal lists
        them in `story["cooldowns"]` as `[{"path", "action"}]`. Idempotent: an entry
        already recorded, or one whose windows have all passed, is not added again.
        Returns the entries added (call `save` to keep them).
        """
        now = as_utc(now)
        have = {(e.path, e.action, e.started_at) for e in self.entries}
        added = []
        for proposal in proposals:
            if getattr(proposal, "state", None) != "applied":
                continue
            if not str(getattr(proposal, "action", "")).startswith("consolidate."):
                continue
            when = parse_utc(proposal.updated_at)
            if when is None:
                continue
            wanted = (proposal.story or {}).get("cooldowns")
            for item in wanted if isinstance(wanted, list) else ():
                if not isinstance(item, dict):
                    continue
                path, action = item.get("path"), item.get("action")
                if not isinstance(path, str) or action not in ACTIONS:
                    continue
                if (path, action, when) in have or now >= when + self.windows.longest(action):
                    continue
                entry = CooldownEntry(path, action, when)
                self.entries.append(entry)
                have.add((path, action, when))
                added.append(entry)
        return added

    def expired(self, now: datetime) -> list[CooldownEntry]:
        now = as_utc(now)
        return [e for e in self.entries if now >= e.started_at + self.windows.longest(e.action)]

    def prune(self, now: datetime) -> list[CooldownEntry]:
        """Drop the entries no window covers any more; returns what was dropped."""
        gone = self.expired(now)
        if gone:
            ids = {id(e) for e in gone}
            self.entries = [e for e in self.entries if id(e) not in ids]
        return gone

    def save(self, now: datetime, root: Path | str | None = None) -> Path:
        """Prune, then write `meta/cooldowns.json` atomically. Writing an unusable file
        over replaces it: from then on the loop defence holds again."""
        where = root if root is not None else self.root
        if where is None:
            raise RemeError("Cooldowns.save needs the vault root: load them with "
                            "Cooldowns.load(root) or pass root=.")
        self.prune(now)
        entries = sorted(self.entries, key=lambda e: (e.started_at, e.path, e.action))
        path = write_meta(Path(where), COOLDOWNS_META,
                          {"entries": [e.to_json() for e in entries]},
                          version=META_VERSION, now=as_utc(now))
        self.warning = None
        return path
