"""The D1 unlink as a proposal: a person's link loses its brackets only when they agree.

Health finds links that resolve to nothing (docs/spec.md §7.5). Turning one into its
text removes something a person wrote, so `propose_unlinks` makes it a proposal
(`health.unlink`) under the vault's policy: with the default policy it waits for a
person, who can accept, reject or later revert it. Runs repeat (consolidate is hourly on
a timer), so a proposal is not made twice: one that waits with the same links is kept,
one that waits with other links is superseded by the new one, and links a person
rejected unlinking are not proposed again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vault.health import HealthReport, unlink_audit_lines
from ..vault.vault import Vault
from .model import Proposal
from .queue import Policy, ProposalQueue

__all__ = ["UNLINK_ACTION", "UnlinkOutcome", "propose_unlinks"]

UNLINK_ACTION = "health.unlink"
_SUPERSEDED = "superseded by "


@dataclass(frozen=True)
class UnlinkOutcome:
    """What became of this run's broken digest links."""

    links: int  # broken digest links the proposal covers
    notes: int
    proposal: str | None  # its id (None on a dry run)
    state: str  # "applied", "pending", "rejected", "stale", "already pending", "dry run"
    superseded: tuple[str, ...] = ()  # waiting proposals this one replaces
    audit: tuple[str, ...] = ()  # one line per link: before → after, and why

    def to_json(self) -> dict:
        return {"links": self.links, "notes": self.notes, "proposal": self.proposal,
                "state": self.state, "superseded": list(self.superseded)}

    @property
    def verdict(self) -> str:
        """What became of the links, in a few words: "unlink proposal waits for a person (p-…)"."""
        verb = {"applied": "replaced by their text", "already pending": "unlink proposal already waits",
                "pending": "unlink proposal waits for a person", "dry run": "unlink would be proposed"}
        return verb.get(self.state, f"unlink proposal {self.state}") + (
            f" ({self.proposal})" if self.proposal else "")

    @property
    def summary(self) -> str:
        return f"{self.links} broken link(s) in {self.notes} note(s): {self.verdict}"


def _links(proposal: Proposal) -> frozenset[tuple]:
    return frozenset((r["source"], r["line"], r["column"], r["raw"])
                     for r in proposal.story.get("links", ()))


def propose_unlinks(
    vault: Vault, report: HealthReport, policy: Policy, *, dry_run: bool = False
) -> UnlinkOutcome | None:
    """Propose turning `report`'s broken digest links into their text (see the module
    doc). None when there is nothing to propose."""
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
    wanted = frozenset((r["source"], r["line"], r["column"], r["raw"]) for r in plan.links)
    waiting = [p for p in earlier if p.state in ("pending", "stale")]
    for p in waiting:
        if _links(p) == wanted and queue.is_current(p):  # else a new plan supersedes it
            # the policy may trust it now, but only a change that adds applies without a
            # person (docs/spec.md §3.7.3): an unlink removes brackets, so it waits
            if not policy.should_apply(UNLINK_ACTION) or queue.needs_a_person(p) is not None:
                return UnlinkOutcome(len(plan.links), notes, p.id, "already pending", audit=audit)
            done = queue.accept(p.id)  # the policy trusts it now: apply the one that waits
            return UnlinkOutcome(len(plan.links), notes, done.id, done.state, audit=audit)
    proposal = queue.new(
        UNLINK_ACTION,
        f"D1: replace {len(plan.links)} broken link(s) in {notes} note(s) by their text",
        plan.ops,
        checks=plan.checks,
        story={"rule": "docs/spec.md §7.5.3", "links": list(plan.links),
               "why": "these links resolve to no file of the vault, by Obsidian's rules; "
                      "each becomes its alias, else its target text"},
    )
    now = vault.clock().isoformat()
    for p in waiting:  # the vault moved on: the old plan would not apply cleanly anyway
        queue.save(p.with_state("rejected", now=now, error=f"{_SUPERSEDED}{proposal.id}"))
    done = queue.submit(proposal, policy)
    return UnlinkOutcome(len(plan.links), notes, done.id, done.state,
                         tuple(p.id for p in waiting), audit)
