"""Consolidate: run what is due, record what changed (docs/spec.md §7.1).

The composition root of consolidate, like `dream/run.py`: `Consolidator` takes
everything injected (vault, settings, clock; index and brain for the brain-driven phases
of the next issue) and runs the phases in a fixed order:

| phase | due | what it does |
|---|---|---|
| `communities` | every `[schedule] communities_every_days` (7) | Leiden over the digest link graph: meta/communities.json, meta/community_changes.json |
| `archive` | every `[schedule] archive_every_days` (1) | recency of every digest note: meta/recency.json, meta/archived.json |
| `cooldowns` | every run | prunes expired entries of meta/cooldowns.json and lists the active ones |
| `health` | every run | D1 broken links (fixed in digest/ as `health --fix` does) and D10 provenance; audit/<date>/health_links.md |

A phase that is not due is skipped and the report says until when; `force` runs every
phase, `only` limits the run to the phases named. When each phase last ran is kept in
`meta/consolidate_state.json`. Every run in which a scheduled phase ran or a file changed
appends one entry to `audit/<date>/consolidate_actions.md`. `dry_run` computes and reports and writes
nothing — no meta file, no fix, no audit entry, no state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..config import Settings
from ..errors import RemeError
from ..vault.meta import read_meta, write_meta
from ..vault.vault import Vault

__all__ = ["PHASES", "PhaseOutcome", "ConsolidateReport", "Consolidator", "consolidate_vault"]

PHASES: tuple[str, ...] = ("communities", "archive", "cooldowns", "health")
STATE_META = "consolidate_state"
STATE_VERSION = 1


@dataclass(frozen=True)
class PhaseOutcome:
    """What one phase did: `ran`, why (due, forced, not due until …), what it changed."""

    phase: str
    ran: bool
    reason: str
    summary: str = ""  # one line a person reads: "12 communities (median 6, max 19)"
    changed: tuple[str, ...] = ()  # files written (meta/, audit/, digest/ for a D1 fix)
    details: dict = field(default_factory=dict)  # the figures, for --json and the workbench
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"phase": self.phase, "ran": self.ran, "reason": self.reason,
                "summary": self.summary, "changed": list(self.changed),
                "details": self.details, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class ConsolidateReport:
    phases: tuple[PhaseOutcome, ...]
    dry_run: bool
    audit: str | None  # the audit file the run appended to

    @property
    def ran(self) -> tuple[str, ...]:
        return tuple(p.phase for p in self.phases if p.ran)

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "ran": list(self.ran), "audit": self.audit,
                "phases": [p.to_json() for p in self.phases]}


def parse_only(only: str | Iterable[str] | None) -> tuple[str, ...]:
    """`--only communities,archive` -> the phases in run order; an unknown name is refused."""
    if only is None:
        return PHASES
    names = [n.strip() for n in (only.split(",") if isinstance(only, str) else only) if n.strip()]
    unknown = [n for n in names if n not in PHASES]
    if unknown or not names:
        raise RemeError(
            f"Unknown consolidate phase {', '.join(unknown) or '(none given)'}; the phases are "
            f"{', '.join(PHASES)} (for example --only communities,archive)."
        )
    return tuple(p for p in PHASES if p in names)


class Consolidator:
    """Runs the consolidate phases over one vault (see the module doc)."""

    def __init__(
        self,
        vault: Vault,
        settings: Settings,
        *,
        index=None,  # the brain-driven phases (abstract, merge) search with it
        brain=None,
        progress: Callable[[str, int, int], None] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.vault = vault
        self.settings = settings
        self.index = index
        self.brain = brain
        self.progress = progress  # (phase, phases done, phases to run)
        self.clock = clock or vault.clock  # the vault's by default, so audit dates agree

    # -- the schedule ---------------------------------------------------------------------
    def _every(self, phase: str) -> timedelta | None:
        schedule = self.settings.schedule
        days = {"communities": schedule.communities_every_days,
                "archive": schedule.archive_every_days}.get(phase)
        return None if days is None else timedelta(days=days)

    def last_runs(self) -> dict[str, str]:
        read = read_meta(self.vault.root, STATE_META, version=STATE_VERSION)
        runs = (read.data or {}).get("last_run", {})
        return {k: v for k, v in runs.items() if k in PHASES and isinstance(v, str)}

    def due(self, phase: str, last_runs: dict[str, str], now: datetime) -> tuple[bool, str]:
        """Whether `phase` is due now, and why (or until when it is not)."""
        every = self._every(phase)
        if every is None:
            return True, "runs every time"
        last = last_runs.get(phase)
        if last is None:
            return True, "never ran"
        try:
            when = datetime.fromisoformat(last.replace("Z", "+00:00"))
        except ValueError:
            return True, f"its last run time {last!r} cannot be read"
        if now - when >= every:
            return True, f"last ran {_ago(now - when)} ago"
        return False, f"not due until {(when + every).date().isoformat()}, ran {_ago(now - when)} ago"

    # -- the run ------------------------------------------------------------------------
    def run(
        self, only: str | Iterable[str] | None = None, *, dry_run: bool = False, force: bool = False
    ) -> ConsolidateReport:
        wanted = parse_only(only)
        now = self.clock()
        self.vault.refresh()
        last = self.last_runs()
        plan = []
        for phase in wanted:
            is_due, why = self.due(phase, last, now)
            if force and not is_due:
                is_due, why = True, f"forced, {why}"
            plan.append((phase, is_due, why))
        todo = sum(1 for _, d, _ in plan if d)
        outcomes: list[PhaseOutcome] = []
        done = 0
        for phase, is_due, why in plan:
            if not is_due:
                outcomes.append(PhaseOutcome(phase, False, why))
                continue
            if self.progress is not None:
                self.progress(phase, done, todo)
            started = time.monotonic()
            outcome = getattr(self, f"_{phase}")(now, dry_run, why)
            outcomes.append(_timed(outcome, time.monotonic() - started))
            done += 1
            if not dry_run:
                last[phase] = now.isoformat()
        if self.progress is not None and todo:
            self.progress("done", todo, todo)
        audit = None
        if not dry_run and done:
            write_meta(self.vault.root, STATE_META, {"last_run": last}, version=STATE_VERSION,
                       now=now)
            # an hourly timer must not fill the audit with "nothing to do": a run is
            # recorded when a scheduled phase ran or some file changed
            if any(o.ran and (o.changed or self._every(o.phase) is not None) for o in outcomes):
                audit = self._audit(outcomes, now)
        return ConsolidateReport(tuple(outcomes), dry_run, audit)

    # -- the phases -------------------------------------------------------------------------
    def _communities(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .communities import update_communities

        cfg = self.settings.communities
        report = update_communities(self.vault, resolution=cfg.resolution, seed=cfg.seed,
                                    trials=cfg.trials, now=now, dry_run=dry_run)
        stats = dict(report.stats)
        known = [s for s in report.stability.values() if s is not None]
        stable = (f"; stability against {report.previous_computed_at[:10]}: median "
                  f"{sorted(known)[len(known) // 2]:.2f}" if known and report.previous_computed_at
                  else "; stability unknown (no previous run)")
        summary = (f"{stats.get('n_communities', 0)} communities (median size "
                   f"{stats.get('median_size', 0)}, largest {stats.get('max_size', 0)}), "
                   f"modularity {report.partition.modularity:.3f}{stable}")
        details = {"stats": stats, "modularity": round(report.partition.modularity, 6),
                   "seed": report.partition.seed, "stability": report.stability,
                   "previous": report.previous_computed_at}
        return PhaseOutcome("communities", True, why, summary, tuple(report.paths), details)

    def _archive(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .archive import update_archive

        cfg = self.settings.archive
        report = update_archive(self.vault, tau_days=cfg.tau_update_days,
                                scale=cfg.centrality_scale, threshold=cfg.threshold,
                                window_days=cfg.hit_window_days, now=now, dry_run=dry_run)
        summary = (f"{len(report.scores)} notes scored, {len(report.archived)} archived "
                   f"({len(report.newly_archived)} new, {len(report.thawed)} thawed"
                   + (f", {len(report.kept_by_touch)} kept out: touched since the last batch"
                      if report.kept_by_touch else "") + ")")
        details = {"archived": list(report.archived), "newly_archived": list(report.newly_archived),
                   "thawed": list(report.thawed), "kept_by_touch": list(report.kept_by_touch),
                   "previous": report.previous_computed_at, "threshold": cfg.threshold,
                   "scored": len(report.scores)}
        return PhaseOutcome("archive", True, why, summary, tuple(report.paths), details)

    def _cooldowns(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .cooldowns import Cooldowns, CooldownWindows

        cooldowns = Cooldowns.load(self.vault.root, CooldownWindows.from_settings(
            self.settings.cooldowns))
        if not cooldowns.defended:  # leave the file for a person: it may be a newer version's
            return PhaseOutcome("cooldowns", True, why, cooldowns.warning or "",
                                details={"defended": False, "warning": cooldowns.warning})
        from ..proposals.queue import ProposalQueue

        started = cooldowns.sync_applied(ProposalQueue(self.vault).list("applied"), now)
        expired = cooldowns.prune(now)
        active = cooldowns.cooldowns(now)
        changed: tuple[str, ...] = ()
        if (expired or started) and not dry_run:
            cooldowns.save(now)
            changed = ("meta/cooldowns.json",)
        summary = (f"{len(active)} active" + (": " + "; ".join(
            f"{c.path} no {c.forbids} until {c.until.date().isoformat()}" for c in active[:3])
            + (" …" if len(active) > 3 else "") if active else "")
            + f", {len(expired)} expired entr{'y' if len(expired) == 1 else 'ies'} pruned"
            + (f", {len(started)} started by applied proposals" if started else ""))
        details = {"defended": True, "active": [c.to_json() for c in active],
                   "pruned": [e.to_json() for e in expired],
                   "started": [e.to_json() for e in started]}
        return PhaseOutcome("cooldowns", True, why, summary, changed, details)

    def _health(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from ..vault.layout import is_digest_note

        report = self.vault.health()
        in_digest = sum(1 for b in report.broken_links if is_digest_note(b.source))
        changed: list[str] = []
        fixed = 0
        if not dry_run and in_digest:
            result = self.vault.fix_links(report)  # D1: each broken digest link becomes its text
            if result is not None:
                changed += list(result.written)
            report = self.vault.health()
            fixed = in_digest - sum(1 for b in report.broken_links if is_digest_note(b.source))
        if not dry_run:
            rel = f"audit/{now.date().isoformat()}/health_links.md"
            before = (self.vault.store.read(rel) or (None,))[0]
            rel = self.vault.write_health_report(report)
            if (self.vault.store.read(rel) or (None,))[0] != before:  # today's report said the same: not a change
                changed.append(rel)
        summary = (f"D1 {len(report.broken_links)} broken link(s)"
                   + (f" after fixing {fixed} in digest/" if fixed else "")
                   + f", D10 {len(report.broken_provenance)} broken and "
                   f"{len(report.missing_provenance)} missing provenance")
        details = {**report.to_json(), "fixed": fixed}
        return PhaseOutcome("health", True, why, summary, tuple(dict.fromkeys(changed)), details)

    def _audit(self, outcomes: list[PhaseOutcome], now: datetime) -> str:
        lines = [f"## consolidate {now.strftime('%H:%M:%S')} UTC", ""]
        for o in outcomes:
            if o.ran:
                lines.append(f"- **{o.phase}** ({o.reason}): {o.summary}")
                lines += [f"  - wrote `{p}`" for p in o.changed]
            else:
                lines.append(f"- {o.phase}: skipped, {o.reason}")
        result = self.vault.record_audit("consolidate_actions", "\n".join(lines) + "\n")
        return next((p for p in result.written if p.startswith("audit/")),
                    f"audit/{now.date().isoformat()}/consolidate_actions.md")


def _timed(outcome: PhaseOutcome, seconds: float) -> PhaseOutcome:
    from dataclasses import replace

    return replace(outcome, seconds=seconds)


def _ago(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    if hours < 1:
        return f"{max(0, hours * 60):.0f} min"
    return f"{hours:.0f} h" if hours < 48 else f"{hours / 24:.0f} days"


def consolidate_vault(
    vault: Vault,
    settings: Settings,
    *,
    only: str | Iterable[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    index=None,
    brain=None,
    progress: Callable[[str, int, int], None] | None = None,
) -> ConsolidateReport:
    """Run what is due (the CLI's and the notebooks' entry point)."""
    return Consolidator(vault, settings, index=index, brain=brain, progress=progress).run(
        only, dry_run=dry_run, force=force)
