"""Consolidate: run what is due, record what changed (docs/spec.md §7.1).

`Consolidator` takes everything injected — vault, settings, clock, and for the phases
that need them the brain (abstract, merge, split), the embedder and the index (merge) —
and runs the phases in a fixed order. The brain and the embedder come from the
composition root (`ops.Workspace`: `get_consolidate_brain()`, `get_embedder()`); this module
imports no brain:

| phase | due | what it does |
|---|---|---|
| `communities` | every `[schedule] communities_every_days` (7) | Leiden over the digest link graph: meta/communities.json, meta/community_changes.json, meta/misfiled.json |
| `archive` | every `[schedule] archive_every_days` (1) | recency of every digest note: meta/recency.json, meta/archived.json |
| `abstract` | with communities | gates every community; a hub proposal (`consolidate.abstract`) for each that passes |
| `merge` | with communities | candidate pairs, three votes each: merge proposals (`consolidate.merge`), uncertain pairs in audit/<date>/dups_uncertain.md |
| `split` | every run | drains meta/split_queue.json and looks at every other digest note over the threshold: a split proposal (`consolidate.split`) for each overloaded note |
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
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from ..config import Settings
from ..errors import RemeError
from ..vault.meta import read_meta, write_meta
from ..vault.vault import Vault

__all__ = [
    "PHASES", "PhaseOutcome", "ConsolidateReport", "Consolidator",
    "consolidate_vault",
]

PHASES: tuple[str, ...] = (
    "communities", "abstract", "merge", "split", "archive", "cooldowns", "health",
)
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
    seconds: float = 0.0  # wall
    audit: tuple[str, ...] = ()  # the phase's own lines for consolidate_actions.md
    cpu_seconds: float = 0.0  # this process's CPU, every thread
    embedding_seconds: float = 0.0  # the part of cpu_seconds spent embedding (0: not counted)

    def to_json(self) -> dict:
        return {"phase": self.phase, "ran": self.ran, "reason": self.reason,
                "summary": self.summary, "changed": list(self.changed),
                "details": self.details, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3),
                "embedding_seconds": round(self.embedding_seconds, 3)}


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
        index=None,
        brain=None,  # the ConsolidateBrain of abstract, merge and split
        embedder=None,  # merge's: its candidates, and the index when built with it
        progress: Callable[[str, int, int], None] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.vault = vault
        self.settings = settings
        self.index = index
        self.brain = brain
        self.embedder = embedder
        self._fresh_communities: tuple[dict, dict] | None = None  # this run's, when it computed them
        self._index_tried = False
        self._opened_index = None  # the index this Consolidator opened itself (to close)
        self.progress = progress  # (phase, phases done, phases to run)
        self.clock = clock or vault.clock  # the vault's by default, so audit dates agree

    # -- the schedule ---------------------------------------------------------------------
    def _every(self, phase: str) -> timedelta | None:
        schedule = self.settings.schedule
        days = {"communities": schedule.communities_every_days,
                # abstract and merge read the communities: they run on the same week
                "abstract": schedule.communities_every_days,
                "merge": schedule.communities_every_days,
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
        if dry_run:  # writes nothing, so it need not wait for another run
            try:
                return self._run(wanted, dry_run=True, force=force, lock=None)
            finally:
                self._close_index()
        from ..vault.lock import RunLock

        # Runs on one vault queue (.reme/consolidate.lock): the second reads the state the
        # first wrote, so it skips what is no longer due instead of doing it twice.
        try:
            with RunLock(self.vault.root, "consolidate", doing="consolidating this vault") as lock:
                return self._run(wanted, dry_run=False, force=force, lock=lock)
        finally:
            self._close_index()

    def _close_index(self) -> None:
        if self._opened_index is not None:
            self._opened_index.close()
            self._opened_index = self.index = None
            self._index_tried = False

    def _run(self, wanted: tuple[str, ...], *, dry_run: bool, force: bool, lock) -> ConsolidateReport:
        now = self.clock()
        # once: every phase writes through vault.apply, which refreshes what it wrote
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
            if lock is not None:  # a waiting run shows it, and waits on while it changes
                lock.set_status(f"phase {phase} ({done + 1}/{todo})")
            started, cpu, embedding = time.monotonic(), time.process_time(), self._embedding()
            outcome = getattr(self, f"_{phase}")(now, dry_run, why)
            outcomes.append(replace(outcome, seconds=time.monotonic() - started,
                                    cpu_seconds=time.process_time() - cpu,
                                    embedding_seconds=self._embedding() - embedding))
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

        report = update_communities(self.vault, self.settings.communities, now=now,
                                    dry_run=dry_run,
                                    hub_coverage=self.settings.abstract.hub_coverage)
        stats = dict(report.stats)
        known = [s for s in report.stability.values() if s is not None]
        stable = (f"; stability against {report.previous_computed_at[:10]}: median "
                  f"{sorted(known)[len(known) // 2]:.2f}" if known and report.previous_computed_at
                  else "; stability unknown (no previous run)")
        summary = (f"{stats.get('n_communities', 0)} communities (median size "
                   f"{stats.get('median_size', 0)}, largest {stats.get('max_size', 0)}), "
                   f"modularity {report.partition.modularity:.3f}{stable}")
        if report.misfiled:  # §7.2.8: reported for a person's rename, never moved
            summary += (f"; {len(report.misfiled)} note(s) sit among another bucket's notes "
                        "(meta/misfiled.json)")
        details = {"stats": stats, "modularity": round(report.partition.modularity, 6),
                   "seed": report.partition.seed, "stability": report.stability,
                   "previous": report.previous_computed_at,
                   "misfiled": [m.to_json() for m in report.misfiled]}
        self._fresh_communities = (dict(report.partition.communities), dict(report.stability))
        return PhaseOutcome("communities", True, why, summary, tuple(report.paths), details)

    # -- the brain-driven phases ------------------------------------------------------------
    def _embedder(self):
        if self.embedder is None:
            raise RemeError("consolidate's merge phase needs an embedder: pass the vault's "
                            "(Workspace.get_embedder()) as embedder=, or leave merge out (--only).")
        return self.embedder

    def _embedding(self) -> float:
        """CPU seconds spent embedding so far, when the embedder counts them
        (`index.metered.MeteredEmbedder`, as `ops.consolidate` passes it); else 0."""
        return float(getattr(self.embedder, "seconds", 0.0) or 0.0)

    def _index(self):
        """The vault's index when it was built with this run's embedder (merge reads the
        description vectors it stored), else None; opened once, closed by `run`."""
        if self.index is None and not self._index_tried:
            self._index_tried = True
            from ..index.factory import embedder_spec
            from ..index.store import VaultIndex, recorded_embedder

            if recorded_embedder(self.vault.root) == embedder_spec(self._embedder().name):
                self.index = self._opened_index = VaultIndex(
                    self.vault.root, self._embedder(), scan=self.vault.scan)
        return self.index

    def _brain(self):
        if self.brain is None:
            raise RemeError("consolidate's abstract, merge and split phases need a brain: pass "
                            "one (Workspace.get_consolidate_brain(), the offline one by default) as "
                            "brain=, or leave them out (--only).")
        return self.brain

    def _policy(self):
        from ..proposals.queue import Policy

        return Policy(frozenset(self.settings.proposals.auto_apply))

    def _load_cooldowns(self, now: datetime):
        """The cooldowns with those of the proposals applied since they were last saved
        (a merge applied earlier in this run must hold back a split of its winner), and
        the entries that added; nothing is synced into a file that cannot be used."""
        from ..proposals.queue import ProposalQueue
        from .cooldowns import Cooldowns, CooldownWindows

        cooldowns = Cooldowns.load(self.vault.root, CooldownWindows.from_settings(
            self.settings.cooldowns))
        if not cooldowns.defended:
            return cooldowns, []
        return cooldowns, cooldowns.sync_applied(ProposalQueue(self.vault).list("applied"), now)

    def _live_cooldowns(self, now: datetime, dry_run: bool):
        """`_load_cooldowns`, saved when it started some (for merge and split)."""
        cooldowns, started = self._load_cooldowns(now)
        if started and not dry_run:
            cooldowns.save(now)
        return cooldowns

    def _read_communities(self) -> tuple[dict | None, dict, list[str]]:
        if self._fresh_communities is not None:
            communities, stability = self._fresh_communities
            return communities, stability, []
        from .abstract import load_communities

        return load_communities(self.vault.root)

    def _abstract(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .abstract import plan_abstracts

        communities, stability, warnings = self._read_communities()
        if communities is None:
            return PhaseOutcome("abstract", True, why, _NO_COMMUNITIES,
                                details={"warnings": warnings})
        run = plan_abstracts(
            self.vault, self._brain(), self.settings.abstract, communities=communities,
            stability=stability, now=now, policy=self._policy(),
            language=self.settings.llm.language, dry_run=dry_run)
        details = {**run.to_json(), "warnings": warnings}
        changed = tuple(f"meta/proposals/{o.proposal_id}.json" for o in run.outcomes
                        if o.proposal_id and not dry_run and o.state != "already-pending")
        return PhaseOutcome("abstract", True, why, run.summary(), changed, details,
                            audit=tuple(run.audit_markdown().splitlines()))

    def _merge(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .candidates import mine_candidates
        from .planning import plan_merge_pairs

        communities, _, warnings = self._read_communities()
        if communities is None:
            return PhaseOutcome("merge", True, why, _NO_COMMUNITIES,
                                details={"warnings": warnings})
        cfg = self.settings.merge
        cooldowns = self._live_cooldowns(now, dry_run)
        candidates = mine_candidates(
            self.vault, communities, self._embedder(), cfg, cooldowns=cooldowns, now=now,
            cache=not dry_run, index=self._index())
        run = plan_merge_pairs(self.vault, self._brain(), [c for c in candidates if not c.skipped],
                               self.settings, now=now, cooldowns=cooldowns, policy=self._policy(),
                               audit=False, dry_run=dry_run)
        details = {**run.to_json(), "candidates": len(candidates),
                   "skipped_by_cooldown": [c.to_json() for c in candidates if c.skipped],
                   "warnings": warnings}
        changed = [f"meta/proposals/{p.id}.json" for p in run.proposals if not dry_run]
        if run.uncertain_report and run.uncertain_new:
            changed.append(run.uncertain_report)
        summary = f"{len(candidates)} candidate pair(s): {run.summary()}"
        return PhaseOutcome("merge", True, why, summary, tuple(changed), details,
                            audit=tuple(run.audit_lines))

    def _split(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .split import run_split_queue

        run = run_split_queue(
            self.vault, self._brain(), threshold=self.settings.split.token_threshold,
            cooldowns=self._live_cooldowns(now, dry_run), now=now, policy=self._policy(),
            language=self.settings.llm.language, dry_run=dry_run, audit=False)
        details = run.to_json()
        # the queue file counts: a run that only judged notes not overloaded is audited
        changed = tuple(f"meta/proposals/{o.proposal_id}.json" for o in run.outcomes
                        if o.proposal_id and not dry_run) + run.written
        return PhaseOutcome("split", True, why, run.summary(), changed, details,
                            audit=tuple(run.audit_lines()))

    def _archive(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        from .archive import update_archive

        cfg = self.settings.archive
        # the access log keeps every line of the longest window that counts hits (§7.3.11)
        report = update_archive(self.vault, cfg, now=now, dry_run=dry_run,
                                keep_days=self.settings.abstract.active_window_days)
        summary = (f"{len(report.scores)} notes scored, {len(report.archived)} archived "
                   f"({len(report.newly_archived)} new, {len(report.thawed)} thawed"
                   + (f", {len(report.kept_by_touch)} kept out: touched since the last batch"
                      if report.kept_by_touch else "") + ")")
        if report.held_back:  # §7.3.9: said, so a person knows the archive is not done
            summary += (f"; {len(report.held_back)} more under the threshold held back: one run "
                        f"archives at most {cfg.max_share_per_run * 100:g} % of the "
                        f"{report.live} live notes ([archive] max_share_per_run)")
        used = [f"{len(report.opened)} opened in Obsidian"] if report.opened else []
        used += [f"{len(report.adopted)} seen for the first time (their recency starts now)"
                 ] if report.adopted else []
        if used:
            summary += "; in use: " + ", ".join(used)
        if report.compacted:
            summary += (f"; access log compacted from {report.compacted[0]:,} to "
                        f"{report.compacted[1]:,} bytes")
        details = {"archived": list(report.archived), "newly_archived": list(report.newly_archived),
                   "thawed": list(report.thawed), "kept_by_touch": list(report.kept_by_touch),
                   "previous": report.previous_computed_at, "threshold": cfg.threshold,
                   "scored": len(report.scores), "held_back": list(report.held_back),
                   "live": report.live, "allowed": report.allowed,
                   "max_share_per_run": cfg.max_share_per_run,
                   "opened_in_obsidian": list(report.opened), "adopted": list(report.adopted),
                   "access_log_compacted": list(report.compacted) if report.compacted else None}
        return PhaseOutcome("archive", True, why, summary, tuple(report.paths), details)

    def _cooldowns(self, now: datetime, dry_run: bool, why: str) -> PhaseOutcome:
        cooldowns, started = self._load_cooldowns(now)
        if not cooldowns.defended:  # leave the file for a person: it may be a newer version's
            return PhaseOutcome("cooldowns", True, why, cooldowns.warning or "",
                                details={"defended": False, "warning": cooldowns.warning})
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
        """D1 and D10 (docs/spec.md §7.5): short links in digest/ proposed for writing as
        vault paths, links a change made unresolvable proposed for unlinking note by note
        — each a proposal under the policy, which waits for a person since it rewrites
        their lines (§3.7.3); links never resolved listed as not yet written; the report,
        and the record of what resolves now (meta/resolved_links.json)."""
        from ..proposals.normalize import propose_normalization
        from ..proposals.unlink import propose_unlinks
        from ..vault.layout import is_digest_note

        report = self.vault.health()
        changed: list[str] = []
        audit: list[str] = []
        normalized = 0
        rewrite = propose_normalization(self.vault, report, self._policy(), dry_run=dry_run)
        if rewrite is not None and rewrite.state not in ("already pending", "dry run"):
            changed.append(f"meta/proposals/{rewrite.proposal}.json")
            audit += [f"D1 short links ({rewrite.summary}):", *rewrite.audit]
            if rewrite.state == "applied":
                report = self.vault.health()
                normalized = rewrite.links
        unlink = None
        if any(is_digest_note(b.source) for b in report.broken_links):
            unlink = propose_unlinks(self.vault, report, self._policy(), dry_run=dry_run)
            if unlink is not None and unlink.state == "applied":
                changed.append(f"meta/proposals/{unlink.proposal}.json")
                report = self.vault.health()
            elif unlink is not None and unlink.state not in ("already pending", "dry run"):
                changed.append(f"meta/proposals/{unlink.proposal}.json")
            if unlink is not None and unlink.state != "already pending":
                audit += [f"D1 unlink ({unlink.summary}):", *unlink.audit]
        if not dry_run:
            # bookkeeping like the scan cache, not a change to report (an hourly run that
            # only saw new notes would otherwise be audited)
            self.vault.record_resolved_links(report)
            rel = f"audit/{now.date().isoformat()}/health_links.md"
            before = (self.vault.store.read(rel) or (None,))[0]
            rel = self.vault.write_health_report(report)
            if (self.vault.store.read(rel) or (None,))[0] != before:  # today's report said the same: not a change
                changed.append(rel)
        parts = [f"D1 {len(report.broken_links)} broken link(s)"
                 + (f" ({unlink.links} in digest/: {unlink.verdict})" if unlink is not None else "")]
        if rewrite is not None:
            parts.append(rewrite.summary)
        if report.ambiguous_links:
            parts.append(f"{len(report.ambiguous_links)} ambiguous link(s) left for a person")
        if report.unwritten_links:
            parts.append(f"{len(report.unwritten_links)} link(s) to notes not yet written "
                         "(yours: nothing proposed)")
        summary = (", ".join(parts) + f", D10 {len(report.broken_provenance)} broken and "
                   f"{len(report.missing_provenance)} missing provenance")
        fixed = unlink.links if unlink is not None and unlink.state == "applied" else 0
        details = {**report.to_json(), "normalized": normalized, "fixed": fixed,
                   "normalize": rewrite.to_json() if rewrite else None,
                   "unlink": unlink.to_json() if unlink else None}
        return PhaseOutcome("health", True, why, summary, tuple(dict.fromkeys(changed)), details,
                            audit=tuple(audit))

    def _audit(self, outcomes: list[PhaseOutcome], now: datetime) -> str:
        lines = [f"## consolidate {now.strftime('%H:%M:%S')} UTC", ""]
        for o in outcomes:
            if o.ran:
                lines.append(f"- **{o.phase}** ({o.reason}): {o.summary}")
                lines += [f"  - wrote `{p}`" for p in o.changed]
                lines += [f"  {line}" if line.strip() else "" for line in o.audit]
            else:
                lines.append(f"- {o.phase}: skipped, {o.reason}")
        result = self.vault.record_audit("consolidate_actions", "\n".join(lines) + "\n")
        return next((p for p in result.written if p.startswith("audit/")),
                    f"audit/{now.date().isoformat()}/consolidate_actions.md")


_NO_COMMUNITIES = ("no usable meta/communities.json: run `reme-workbench consolidate --only "
                   "communities --force` first")




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
    embedder=None,
    progress: Callable[[str, int, int], None] | None = None,
) -> ConsolidateReport:
    """Run what is due (the CLI's and the notebooks' entry point)."""
    return Consolidator(vault, settings, index=index, brain=brain, embedder=embedder,
                        progress=progress).run(only, dry_run=dry_run, force=force)
