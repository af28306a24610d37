"""The short-link half of the D1 fix as a proposal: a person's link is rewritten only when
they agree.

A short link Obsidian resolves to one file (`[[kanban]]`) is not broken; writing it as
its vault path (`[[digest/wiki/kanban.md|kanban]]`) loses nothing a reader sees, but it
rewrites a line a person wrote, and only a change that adds lines applies without a
person (docs/spec.md §3.7.3, §7.5.3). So `propose_normalization` makes the rewrite one
proposal, `health.normalize`, under the vault's policy: it waits for a person even when
`[proposals] auto_apply` names it. The plan is `vault.health.plan_link_normalization`'s
(each note re-read, only the reported links rewritten, its own check run here before the
proposal is made); the stored checks keep it to its notes and its new links to files that
exist, and each edit's stamp refuses a note changed since. Runs repeat, so, as for the
unlink: a waiting proposal with the same links is kept, one with other links is
superseded, and links a person rejected rewriting are not proposed again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..vault.checks import CheckSpec
from ..vault.health import HealthReport, plan_link_normalization
from ..vault.layout import is_digest_note
from ..vault.links import parse_links
from ..vault.resolve import LinkResolver
from ..vault.store import Changeset, CheckContext, Edit
from ..vault.vault import Vault
from .model import Proposal
from .queue import Policy, ProposalQueue

__all__ = ["NORMALIZE_ACTION", "NormalizeOutcome", "propose_normalization"]

NORMALIZE_ACTION = "health.normalize"
_SUPERSEDED = "superseded by "


@dataclass(frozen=True)
class NormalizeOutcome:
    """What became of this run's short digest links."""

    links: int  # short links the proposal rewrites
    notes: int
    proposal: str | None  # its id (None on a dry run)
    state: str  # "pending", "already pending", "applied", "rejected", "stale", "dry run"
    superseded: tuple[str, ...] = ()  # waiting proposals this one replaces
    held: str | None = None  # why a policy that trusts it did not apply it
    audit: tuple[str, ...] = ()  # one line per link: before → after

    def to_json(self) -> dict:
        return {"links": self.links, "notes": self.notes, "proposal": self.proposal,
                "state": self.state, "superseded": list(self.superseded)}

    @property
    def verdict(self) -> str:
        """What became of the links, in a few words."""
        verb = {"applied": "rewritten to vault paths",
                "already pending": "rewrite to vault paths already waits for a person",
                "pending": "rewrite to vault paths waits for a person",
                "dry run": "rewrite to vault paths would be proposed"}
        return verb.get(self.state, f"rewrite proposal {self.state}") + (
            f" ({self.proposal})" if self.proposal else "")

    @property
    def summary(self) -> str:
        return f"{self.links} short link(s) in {self.notes} note(s): {self.verdict}"


def _links(proposal: Proposal) -> frozenset[tuple]:
    return frozenset((r["source"], r["line"], r["column"], r["raw"])
                     for r in proposal.story.get("links", ()))


def _rewritten(changeset: Changeset, before: dict[str, bytes]) -> list[dict]:
    """One row per link the changeset rewrites: where it was, what it was, what it becomes
    (its check proved the links are the same, in order, but these)."""
    rows = []
    for op in changeset.ops:
        was = parse_links(before[op.path].decode("utf-8"))
        now = parse_links(op.content.decode("utf-8"))
        rows += [{"source": op.path, "line": old.line, "column": old.column, "raw": old.raw,
                  "replacement": new.raw, "path": new.target}
                 for old, new in zip(was, now, strict=True) if old.raw != new.raw]
    return rows


def propose_normalization(
    vault: Vault, report: HealthReport, policy: Policy, *, dry_run: bool = False
) -> NormalizeOutcome | None:
    """Propose rewriting `report`'s short digest links to their vault paths (see the
    module doc). None when there is nothing to propose."""
    queue = ProposalQueue(vault)
    earlier = [p for p in queue.list() if p.action == NORMALIZE_ACTION]
    refused = frozenset(
        (r["source"], r["raw"])
        for p in earlier if p.state == "rejected" and not (p.error or "").startswith(_SUPERSEDED)
        for r in p.story.get("links", ()))
    short = tuple(s for s in report.short_links
                  if is_digest_note(s.source) and (s.source, s.raw) not in refused)
    if not short:
        return None
    changeset = plan_link_normalization(vault.store, replace(report, short_links=short),
                                        LinkResolver(vault.scan.records),
                                        max_bytes=vault.max_note_bytes)
    if changeset is None:
        return None
    before = {}
    for op in changeset.ops:
        current = vault.store.read(op.path)
        before[op.path] = b"" if current is None else current[0]
    rows = _rewritten(changeset, before)
    notes = len(changeset.ops)
    audit = tuple(line for line in (changeset.audit.markdown if changeset.audit else "").splitlines()
                  if line.startswith("- "))
    if dry_run:
        return NormalizeOutcome(len(rows), notes, None, "dry run", audit=audit)
    wanted = frozenset((r["source"], r["line"], r["column"], r["raw"]) for r in rows)
    waiting = [p for p in earlier if p.state in ("pending", "stale")]
    for p in waiting:
        if _links(p) == wanted and queue.is_current(p):  # else a new plan supersedes it
            if not policy.should_apply(NORMALIZE_ACTION) or queue.needs_a_person(p) is not None:
                return NormalizeOutcome(len(rows), notes, p.id, "already pending", audit=audit)
            done = queue.accept(p.id)
            return NormalizeOutcome(len(rows), notes, done.id, done.state, audit=audit)
    paths = [op.path for op in changeset.ops]
    checks = [CheckSpec("only_paths", {"paths": paths}), CheckSpec("no_sources_written", {})]
    for op in changeset.ops:  # the person's other links are theirs: only the new ones must resolve
        keep = sorted(([lk.target, lk.predicate] for lk in parse_links(before[op.path].decode("utf-8"))),
                      key=lambda k: (k[0], k[1] or ""))
        checks.append(CheckSpec("links_resolve", {"path": op.path, "keep": keep}))
    proposal = queue.new(
        NORMALIZE_ACTION,
        f"D1: write {len(rows)} short link(s) in {notes} note(s) as vault paths",
        [Edit(op.path, op.content, op.expected) for op in changeset.ops],
        checks=checks,
        story={"rule": "docs/spec.md §7.5.3", "links": rows,
               "why": "each link resolves, by Obsidian's rules, to one file; written as that "
                      "file's vault path (alias, anchor, embed mark and predicate kept, a link "
                      "without an alias given what Obsidian showed) it reads the same",
               "audit": list(audit)},
        before=before,
    )
    failures = [f"{c.name}: {why}" for c in changeset.checks
                for why in c.fn(CheckContext(changeset, before, {op.path: op.content
                                                                 for op in changeset.ops}))]
    now = vault.clock().isoformat()
    if failures:  # the plan does not do what it says: kept for a person to read, never applied
        done = proposal.with_state("rejected", now=now, error="; ".join(failures))
        queue.save(done)
        return NormalizeOutcome(len(rows), notes, done.id, "rejected", audit=audit)
    for p in waiting:  # the vault moved on: the old plan would not apply cleanly anyway
        queue.save(p.with_state("rejected", now=now, error=f"{_SUPERSEDED}{proposal.id}"))
    done = queue.submit(proposal, policy)
    return NormalizeOutcome(len(rows), notes, done.id, done.state,
                            tuple(p.id for p in waiting), done.story.get("held"), audit)
