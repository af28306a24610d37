"""Merge proposals as a person reviews them: both notes side by side, the three votes
with their reasons, the planned winner and why, every inbound link that would move (and
the heading and block links pointed at the loser's text in the winner), and the
sentences of either note the merged body does not keep (docs/spec.md §7.7.5) — a merge
that drops any waits for a person, who reads them first.

A view over the `consolidate.merge` proposals in the queue (their story holds all of
it); the decision is `proposals.decide` like any other proposal's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..proposals import ProposalQueue
from ..proposals.model import Proposal
from ..vault.store import Delete
from ..vault.vault import Vault

__all__ = ["MergeReview", "merge_reviews", "merge_review"]


@dataclass(frozen=True)
class MergeReview:
    proposal: Proposal
    winner: str
    loser: str
    winner_text: str  # as planned against
    loser_text: str
    merged_text: str  # the winner after the merge
    votes: tuple[dict, ...]  # {judge, is_same, confidence, agrees, reason}
    agree: int
    winner_rule: str
    moves: dict[str, int]  # linking file -> links retargeted from the loser to the winner
    decided_by_person: bool = False
    # {note, sentence, closest, qualifiers: {lost, new}}: what the merged body does not say
    dropped_statements: tuple[dict, ...] = ()
    anchors: tuple[dict, ...] = ()  # {from, to (None: the note itself), files}

    @property
    def id(self) -> str:
        return self.proposal.id


def merge_review(proposal: Proposal) -> MergeReview:
    story = proposal.story
    winner, loser = str(story.get("winner", "")), str(story.get("loser", ""))

    def text(data: bytes | None) -> str:
        return "" if data is None else data.decode("utf-8", errors="replace")

    merged = next((text(op.content) for op in proposal.ops
                   if op.path == winner and not isinstance(op, Delete)), "")
    votes = tuple(v for v in story.get("votes") or [] if isinstance(v, dict))
    moves = {str(k): int(v) for k, v in (story.get("retargeted") or {}).items()
             if isinstance(v, int)}
    return MergeReview(proposal, winner, loser, text(proposal.before.get(winner)),
                       text(proposal.before.get(loser)), merged, votes,
                       int(story.get("agree", sum(bool(v.get("agrees")) for v in votes))),
                       str(story.get("winner_rule", "")), moves,
                       bool(story.get("decided_by_person")),
                       _rows(story.get("dropped_statements")), _rows(story.get("anchors")))


def _rows(value) -> tuple[dict, ...]:
    return tuple(v for v in value or () if isinstance(v, dict))


def merge_reviews(vault: Vault, *, state: str | None = "pending") -> list[MergeReview]:
    """Every merge proposal in `state` (all states with None), oldest first."""
    return [merge_review(p) for p in ProposalQueue(vault).list(state)
            if p.action == "consolidate.merge"]
