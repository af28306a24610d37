"""The five gates a community passes before abstract asks for its hub (docs/spec.md §7.6).

Every gate's value is recorded whether it passes or not, so the workbench can show why a
community got a hub or why not; `abstract` runs them and plans the hub.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import AbstractSettings
from ..errors import NoteError
from ..index.keyword import query_terms
from ..textrules import CJK_FUNCTION_CHARS
from ..vault.note import decode_note_bytes
from ..vault.vault import Vault
from .hub_rules import MemberHub, index_shaped, member_hub

GATES = ("no_hub", "min_nodes", "stability", "active_members", "name_diversity")
# Names compared for diversity: pairs grow as n², so a bigger community is measured on
# this many names spread evenly over its sorted members (a deterministic sample).
DIVERSITY_SAMPLE = 200

# A light suffix fold for English name words (not a stemmer): "deploying", "deployment"
# and "deploys" are one word, so names that only inflect the same words read as the
# same. First rule that leaves at least 3 letters wins.
_SUFFIXES = (
    ("ations", "at"), ("ation", "at"), ("ments", ""), ("ment", ""), ("ings", ""),
    ("ing", ""), ("ions", ""), ("ion", ""), ("ies", "y"), ("ed", ""), ("es", ""),
    ("s", ""), ("e", ""),
)
# Chinese function characters (textrules' one list) dropped from a name before its
# bigrams are taken, so 用户的偏好 and 用户偏好 are the same name.
_CJK_FUNCTION_CHARS = str.maketrans(dict.fromkeys(CJK_FUNCTION_CHARS))


# -- the gates -----------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """One gate of one community: its value, the threshold, pass or fail, and why."""

    name: str  # one of GATES
    value: float | int | None
    threshold: float | int
    passed: bool
    reason: str  # one line a person reads
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"name": self.name, "value": self.value, "threshold": self.threshold,
                "passed": self.passed, "reason": self.reason, "detail": dict(self.detail)}


@dataclass(frozen=True)
class CommunityGates:
    """Every gate of one community, in the spec's order."""

    community: str
    members: tuple[str, ...]  # sorted; existing digest notes only
    gates: tuple[Gate, ...]

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)

    @property
    def failed(self) -> Gate | None:
        """The first gate that failed (the reason the community gets no hub), or None."""
        return next((g for g in self.gates if not g.passed), None)

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)

    def to_json(self) -> dict:
        return {"community": self.community, "members": list(self.members),
                "passed": self.passed, "gates": [g.to_json() for g in self.gates]}


def _targets(graph, path: str) -> set[str]:
    """Digest notes `path` links to (any predicate). `graph` is a LinkGraph or a networkx
    (Multi)DiGraph of digest notes."""
    if hasattr(graph, "outbound"):
        return {t for t, _ in graph.outbound(path)}
    return set(graph.successors(path)) if path in graph else set()


def _sources(graph, path: str) -> set[str]:
    if hasattr(graph, "inbound"):
        return {s for s, _ in graph.inbound(path)}
    return set(graph.predecessors(path)) if path in graph else set()


def hub_coverage(members: Iterable[str], graph) -> tuple[str | None, float]:
    """(the member linking the largest share of the *other* members, that share).

    A member's share is |its outbound targets ∩ (community − itself)| / |community − 1|;
    links to itself or outside the community do not count. Ties go to the smaller path.
    A community of one has no other member: (None, 0.0).
    """
    group = sorted(set(members))
    if len(group) < 2:
        return None, 0.0
    wanted = set(group)
    best, best_share = None, -1.0
    for path in group:
        share = len((_targets(graph, path) & wanted) - {path}) / (len(group) - 1)
        if share > best_share:
            best, best_share = path, share
    return best, best_share


def community_has_hub(members: Iterable[str], graph,
                      coverage: float = AbstractSettings().hub_coverage) -> bool:
    """Gate (1) of docs/spec.md §7.6.1 on the links alone: some member links at least
    `coverage` of the other members and stands out (a hub written by abstract, a split
    parent, a person's overview). `community_hub` also reads the notes, for an index."""
    return member_hub(members, lambda p: _targets(graph, p), coverage=coverage).found


def community_hub(vault: Vault, members: Iterable[str],
                  coverage: float = AbstractSettings().hub_coverage) -> MemberHub:
    """Gate (1) of docs/spec.md §7.6.1: the member that is the community's hub (a hub
    note, a split parent, the person's index or map of content), or the member that
    links the most others (`found` False)."""
    def is_index(path: str) -> bool:
        current = vault.store.read(path)
        if current is None:
            return False
        try:
            return index_shaped(decode_note_bytes(current[0], path))
        except NoteError:
            return False

    graph = vault.graph
    return member_hub(members, lambda p: _targets(graph, p), coverage=coverage, is_index=is_index)


def _fold(word: str) -> str:
    if not (word.isascii() and word.isalpha()) or word.endswith("ss"):
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def name_tokens(name: str) -> frozenset[str]:
    """The words of a note name for comparing names: lower case, English stop words
    dropped (unless nothing else is left), a light suffix fold; a Chinese run gives its
    character bigrams, after dropping function characters (的, 之, 了, …). Slugs work
    as names: `-` and `_` separate words."""
    text = name.translate(_CJK_FUNCTION_CHARS)
    return frozenset(_fold(t) for t in query_terms(text, drop_stopwords=True))


def _spread(items: Sequence[str], limit: int) -> list[str]:
    if len(items) <= limit:
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def name_diversity(names: Sequence[str]) -> tuple[float | None, dict]:
    """1 − the mean pairwise similarity of the names (None for fewer than 2 names).

    Similarity is a weighted Jaccard of `name_tokens`: each token weighs ln(1 + n/df),
    df the number of the n names that hold it. Words most names share are the
    community's topic ("inc-2026-031-…", "家庭网络…"): they weigh little, so a
    postmortem, a timeline and a root cause of one incident read as different names;
    identical names are similarity 1 whatever the weights. Over DIVERSITY_SAMPLE names,
    an even spread of that many sorted names is compared. `detail` names the most
    alike pair.
    """
    picked = _spread(sorted(names), DIVERSITY_SAMPLE)
    if len(picked) < 2:
        return None, {"names": len(picked)}
    tokens = [name_tokens(n) for n in picked]
    df: dict[str, int] = {}
    for toks in tokens:
        for t in toks:
            df[t] = df.get(t, 0) + 1
    weight = {t: math.log1p(len(tokens) / c) for t, c in df.items()}
    total, pairs = 0.0, 0
    alike = (-1.0, "", "")
    for (i, a), (j, b) in itertools.combinations(enumerate(tokens), 2):
        if not a and not b:
            sim = 1.0
        else:
            # fsum: exact whatever the set's (hash-seeded) order, so ties break alike
            sim = math.fsum(weight[t] for t in a & b) / math.fsum(weight[t] for t in a | b)
        total += sim
        pairs += 1
        if sim > alike[0]:
            alike = (sim, picked[i], picked[j])
    detail = {"names": len(picked), "sampled": len(picked) < len(names),
              "most_alike": [alike[1], alike[2], round(alike[0], 4)]}
    return 1.0 - total / pairs, detail


def rank_central(members: Iterable[str], graph) -> list[str]:
    """Members, most central first: by the number of other members linked either way
    (the community graph is undirected, docs/spec.md §7.2.1), then by distinct digest
    notes linking to it from anywhere, then by path (deterministic)."""
    group = set(members)

    def key(path: str) -> tuple[int, int, str]:
        sources = _sources(graph, path) - {path}
        tied = ((_targets(graph, path) | sources) & group) - {path}
        return (-len(tied), -len(sources), path)

    return sorted(group, key=key)


def _no_hub_gate(hub: MemberHub, cfg: AbstractSettings) -> Gate:
    best, share, linked, others = hub.member, hub.share, hub.links, hub.others
    typical = f"a typical member links {hub.typical:.0%}"
    if hub.found and hub.index:
        why = (f"{best} is an index of the community, a list of links to {linked} of the "
               f"{others} other members ({share:.0%}): it is the community's hub, and no "
               "new note is written")
    elif hub.found:
        why = (f"{best} already links {linked} of the {others} other members ({share:.0%}; "
               f"{typical}): the community has its hub")
    elif best is None:
        why = "no other member to link"
    elif share >= cfg.hub_coverage or hub.index:
        why = (f"no hub: {best} links {linked} of the {others} other members ({share:.0%}), "
               f"but so do the others ({typical}): a dense community, no note stands out")
    else:
        why = (f"no hub: the member linking most others, {best}, links {linked} of the "
               f"{others} ({share:.0%} < {cfg.hub_coverage:.0%})")
    return Gate("no_hub", round(share, 4), cfg.hub_coverage, not hub.found, why, hub.to_json())


def _gates(
    community: str,
    members: tuple[str, ...],
    *,
    hub: MemberHub,
    names: Mapping[str, str],
    stability: float | None,
    active: Iterable[str],
    cfg: AbstractSettings,
) -> CommunityGates:
    out = [_no_hub_gate(hub, cfg)]

    n = len(members)
    out.append(Gate("min_nodes", n, cfg.min_nodes, n >= cfg.min_nodes,
                    f"{n} members" + (f" (≥ {cfg.min_nodes})" if n >= cfg.min_nodes
                                      else f"; a hub needs at least {cfg.min_nodes}")))

    if stability is None:
        out.append(Gate("stability", None, cfg.min_stability, False,
                        "stability unknown (no previous run)"))
    else:
        ok = stability >= cfg.min_stability
        out.append(Gate("stability", round(stability, 4), cfg.min_stability, ok,
                        f"stability {stability:.2f}" + (f" (≥ {cfg.min_stability})" if ok else
                        f" < {cfg.min_stability}: the community is still changing")))

    busy = sorted(set(active) & set(members))
    ok = len(busy) >= cfg.min_active_nodes
    out.append(Gate("active_members", len(busy), cfg.min_active_nodes, ok,
                    f"{len(busy)} member(s) with access-log events in the last "
                    f"{cfg.active_window_days:g} days" + (f" (≥ {cfg.min_active_nodes})" if ok else
                    f"; a hub needs at least {cfg.min_active_nodes}"), {"active": busy}))

    diversity, detail = name_diversity([names.get(m) or _stem(m) for m in members])
    if diversity is None:
        out.append(Gate("name_diversity", None, cfg.min_name_diversity, False,
                        "fewer than 2 names to compare", detail))
    else:
        ok = diversity >= cfg.min_name_diversity
        a, b, _ = detail["most_alike"]
        out.append(Gate("name_diversity", round(diversity, 4), cfg.min_name_diversity, ok,
                        f"name diversity {diversity:.2f}" + (f" (≥ {cfg.min_name_diversity})"
                        if ok else f" < {cfg.min_name_diversity}: the names say nearly the "
                        f"same (most alike: {a!r}, {b!r}); merge them first"), detail))
    return CommunityGates(community, members, tuple(out))


def _stem(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base[:-3] if base.endswith(".md") else base
