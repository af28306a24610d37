"""The D1 unlink as proposals: a person's link loses its brackets only when they agree.

Health finds links a change made unresolvable (docs/spec.md §7.5; a link that never
resolved is the person's, not yet written, and never proposed). Turning one into its
text removes something a person wrote, so `propose_unlinks` makes proposals
(`health.unlink`), one per note, never one for the whole vault: a person decides on each
note's links, and refusing one note's keeps nothing else waiting. With the default
policy each waits for a person, who can accept, reject or later revert it. Runs repeat
(consolidate is hourly on a timer), so a proposal is not made twice: one that waits for
the same note with the same links is kept, one that waits with other links (or an
older one spanning several notes) is superseded by the new one, and links a person
rejected unlinking are not proposed again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vault.health import HealthReport, UnlinkPlan, unlink_audit_lines
from ..vault.vault import Vault
from .model import Proposal
from .queue import Policy, ProposalQueue

__all__ = ["UNLINK_ACTION", "UnlinkOutcome", "propose_unlinks"]

UNLINK_ACTION = "health.unlink"
_SUPERSEDED = "superseded by "


@dataclass(frozen=True)
class UnlinkOutcome:
    """What became of this run's broken digest links (one proposal per note)."""

    links: int  # broken digest links the proposals cover
    notes: int
    proposal: str | None  # the first proposal's id (None on a dry run)
    state: str  # "applied", "pending", "rejected", "stale", "already pending", "dry run"
    superseded: tuple[str, ...] = ()  # waiting proposals these replace
    audit: tuple[str, ...] = ()  # one line per link: before → after, and why
    proposals: tuple[str, ...] = ()  # every note's proposal, in the order of the notes

    def to_json(self) -> dict:
        return {"links": self.links, "notes": self.notes, "proposal": self.proposal,
                "state": self.state, "superseded": list(self.superseded),
                "proposals": list(self.proposals)}

    @property
    def verdict(self) -> str:
        """What became of the links, in a few words: "unlink proposal waits for a person (p-…)"."""
        verb = {"applied": "replaced by their text", "already pending": "unlink proposal already waits",
                "pending": "unlink proposal waits for a person", "dry run": "unlink would be proposed"}
        said = verb.get(self.state, f"unlink proposal {self.state}")
        if len(self.proposals) > 1:
            said = said.replace("unlink proposal ", f"{len(self.proposals)} unlink proposals (one "
                                "per note) ").replace(" waits", " wait")
            return f"{said} ({', '.join(self.proposals[:3])}{' …' if len(self.proposals) > 3 else ''})"
        return said + (f" ({self.proposal})" if self.proposal else "")

    @property
    def summary(self) -> str:
        return f"{self.links} broken link(s) in {self.notes} note(s): {self.verdict}"


def _links(proposal: Proposal) -> frozenset[tuple]:
    return frozenset((r["source"], r["line"], r["column"], r["raw"])
                     for r in proposal.story.get("links", ()))


def _overall(states: list[str]) -> str:
    """One state for the notes' proposals: theirs when they agree, else the one that
    asks something of a person first."""
    if len(set(states)) == 1:
        return states[0]
    order = ("pending", "stale", "rejected", "already pending", "applied")
    return next((s for s in order if s in states), states[0])


def propose_unlinks(
    vault: Vault, report: HealthReport, policy: Policy, *, dry_run: bool = False
) -> UnlinkOutcome | None:
    """Propose turning `report`'s broken digest links into their text, one proposal per
    note (see the module doc). None when there is nothing to propose."""
    queue = ProposalQueue(vault)
    earlier = [p for p in queue.list() if p.action == UNLINK_ACTION]
    refused = frozenset(
        (r["source"], r["raw"])
        for p in earlier if p.state == "rejected" and not (p.error or "").startswith(_SUPERSEDED)
        for r in p.story.get("links", ()))
    plan = vault.plan_unlinks(report, skip=refused)
    if plan is None:
        return None
    notes = len(plan.ops)
    audit = tuple(unlink_audit_lines(plan.links))
    if dry_run:
        return UnlinkOutcome(len(plan.links), notes, None, "dry run", audit=audit)
    waiting = [p for p in earlier if p.state in ("pending", "stale")]
    done: list[Proposal] = []
    states: list[str] = []
    superseded: list[str] = []
    for one in plan.per_note():
        found, state, replaced = _propose_one(vault, queue, policy, one, waiting)
        waiting = [p for p in waiting if p.id not in replaced]
        done.append(found)
        states.append(state)
        superseded += replaced
    return UnlinkOutcome(len(plan.links), notes, done[0].id, _overall(states), tuple(superseded),
                         audit, tuple(p.id for p in done))


def _propose_one(vault: Vault, queue: ProposalQueue, policy: Policy, plan: UnlinkPlan,
                 waiting: list[Proposal]) -> tuple[Proposal, str, list[str]]:
    """(the proposal for one note's links, its state, the waiting ones it supersedes)."""
    (source,) = {op.path for op in plan.ops}
    wanted = frozenset((r["source"], r["line"], r["column"], r["raw"]) for r in plan.links)
    touching = [p for p in waiting if source in p.paths]
    for p in touching:
        if _links(p) == wanted and queue.is_current(p):  # else a new plan supersedes it
            # the policy may trust it now, but only a change that adds applies without a
            # person (docs/spec.md §3.7.3): an unlink removes brackets, so it waits
            if not policy.should_apply(UNLINK_ACTION) or queue.needs_a_person(p) is not None:
                return p, "already pending", []
            applied = queue.accept(p.id)  # the policy trusts it now: apply the one that waits
            return applied, applied.state, []
    proposal = queue.new(
        UNLINK_ACTION,
        f"D1: replace {len(plan.links)} broken link(s) in {source} by their text",
        plan.ops,
        checks=plan.checks,
        story={"rule": "docs/spec.md §7.5.3", "links": list(plan.links),
               "why": "these links named a file at the last health run and resolve to no "
                      "file of the vault now, by Obsidian's rules; each becomes its alias "
                      "with the name it meant, else its target text"},
    )
    now = vault.clock().isoformat()
    for p in touching:  # the vault moved on: the old plan would not apply cleanly anyway
        queue.save(p.with_state("rejected", now=now, error=f"{_SUPERSEDED}{proposal.id}"))
    submitted = queue.submit(proposal, policy)
    return submitted, submitted.state, [p.id for p in touching]
