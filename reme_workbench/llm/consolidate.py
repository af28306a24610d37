"""The consolidate brain: what abstract, merge and split may ask (docs/spec.md §7.6–§7.8).

One narrow method per task, beside dream's `Brain` (not inside it: dream's offline
brain has nothing to say about merges, and consolidate's offline rules live in
`consolidate/`). Inputs are frozen dataclasses built by the caller (trusted: paths and
bodies read from the vault); outputs are the pydantic models of `schema.py`, validated
from the reply (untrusted), wrapped in a `BrainReply` with what they cost.

* `vote(PairRequest)` — one judge's `PairVote` on two notes. The merge phase asks three
  judges (`judge` 0, 1, 2): for a model, three independent calls at temperature > 0;
  for the offline brain, three different rules.
* `merge(MergeRequest)` — the winner's new body: its own text plus every statement and
  link of the loser's it lacks ("merge, do not refine").
* `plan_split(SplitRequest)` — whether a long note is dispersed, and a parent overview
  plus children when it is.
* `write_hub(HubRequest)` — a community's hub note.

`feedback` carries the mechanical rule the previous answer broke, for the one retry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..config import AbstractSettings
from .base import BrainReply, CandidateNote
from .schema import HubNote, MergedNote, PairVote, SplitPlan

__all__ = [
    "JUDGES",
    "NoteView",
    "PairRequest",
    "MergeRequest",
    "SplitRequest",
    "HubRequest",
    "ConsolidateBrain",
    "vote_all",
]

JUDGES = 3  # votes per candidate pair (docs/spec.md §7.7)
_ABSTRACT = AbstractSettings()  # a hub's budget and coverage by default: config.py's

# A digest note as the consolidate brain sees it: path, name, description, whole body.
NoteView = CandidateNote


@dataclass(frozen=True)
class PairRequest:
    """Are `a` and `b` the same concept? `judge` (0 .. JUDGES-1) picks the vote."""

    a: NoteView
    b: NoteView
    judge: int = 0
    # links both notes share and their provenance, for judges that read structure
    a_links: tuple[str, ...] = ()
    b_links: tuple[str, ...] = ()
    language: str = "auto"


@dataclass(frozen=True)
class MergeRequest:
    """Fold `loser` into `winner`: the new body of the winner keeps all of both."""

    winner: NoteView
    loser: NoteView
    language: str = "auto"
    feedback: str | None = None


@dataclass(frozen=True)
class SplitRequest:
    """Judge `note` (over `threshold` tokens: `tokens`) and plan its split if dispersed."""

    note: NoteView
    tokens: int
    threshold: int
    bucket: str = "wiki"
    language: str = "auto"
    feedback: str | None = None


@dataclass(frozen=True)
class HubRequest:
    """Write the hub of one community: `members` (central ones first), `central` the
    paths the caller ranks most central (pillar candidates). The body must stay under
    `max_tokens` and link at least `min_member_coverage` of the members (the checks'
    bounds). `vault_words` counts, for each topic word, the vault's digest notes (of
    `vault_notes`, the members included) whose name, description or headings hold it:
    what tells the community's words from the words every note shares (empty: unknown).
    `template_headings` are the headings (lower-cased, plain) so many digest notes share
    that a template gave them ("Plugins" on every author page): never a topic."""

    community: str
    members: tuple[NoteView, ...]
    central: tuple[str, ...] = ()
    language: str = "auto"
    feedback: str | None = None
    max_tokens: int = _ABSTRACT.max_tokens
    min_member_coverage: float = _ABSTRACT.min_member_coverage
    vault_notes: int = 0
    vault_words: Mapping[str, int] = field(default_factory=dict)
    template_headings: frozenset[str] = frozenset()

    @property
    def member_paths(self) -> frozenset[str]:
        return frozenset(m.path for m in self.members)


class ConsolidateBrain(ABC):
    """The brain-driven consolidate actions, one method each (see the module doc).
    Implementations must be safe to call from several threads at once."""

    model: str = "brain"
    # a model brain's three votes are independent requests, asked at once; a brain that
    # computes its votes in this process gains nothing from threads (False)
    votes_in_parallel: bool = True

    def read_ahead(self, notes: Iterable[NoteView]) -> int:
        """Called once before a run's votes with the notes they may read, so a brain that
        can prepare notes together does it in one go (the offline brain embeds their
        gists in one batch). A model brain sends each pair in its own request: nothing
        to prepare. Returns how many notes were prepared."""
        return 0

    @abstractmethod
    def vote(self, request: PairRequest) -> BrainReply[PairVote]:
        """One judge's vote: is_same, confidence in [0, 1], a reason a person can read."""

    @abstractmethod
    def merge(self, request: MergeRequest) -> BrainReply[MergedNote]:
        """The winner's new description and body, keeping every statement and link of both."""

    @abstractmethod
    def plan_split(self, request: SplitRequest) -> BrainReply[SplitPlan]:
        """Whether the note is overloaded; if so, the parent's overview and the children."""

    @abstractmethod
    def write_hub(self, request: HubRequest) -> BrainReply[HubNote]:
        """The community's hub note: overview, 3–5 pillars linked, what stays in the members."""


def vote_all(
    brain: ConsolidateBrain,
    a: NoteView,
    b: NoteView,
    *,
    a_links: Iterable[str] = (),
    b_links: Iterable[str] = (),
    language: str = "auto",
    parallel: bool = True,
) -> list[BrainReply[PairVote]]:
    """The JUDGES votes on `a` and `b` (judge 0, 1, 2), in judge order.

    `parallel` runs them in threads at once — a model brain's three calls are
    independent requests, so they need not wait on each other; an offline brain's rules
    are quick enough to run in turn (`parallel=False`). A judge that fails raises its
    BrainError (the first in judge order), after the other calls have finished."""
    requests = [
        PairRequest(a, b, judge, tuple(a_links), tuple(b_links), language)
        for judge in range(JUDGES)
    ]
    if not parallel:
        return [brain.vote(request) for request in requests]
    with ThreadPoolExecutor(max_workers=JUDGES, thread_name_prefix="reme-vote") as pool:
        futures = [pool.submit(brain.vote, request) for request in requests]
        return [future.result() for future in futures]
