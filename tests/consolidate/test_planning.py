"""Consolidate's face for one action outside a run: a merge proposal's pair read back
from its story (`MergeCandidate.from_json`, beside the `to_json` that wrote it), and the
subjects of split and hub proposals (`split.split_parent`, `abstract.hub_members`)."""

from __future__ import annotations

import pytest

from reme_workbench.consolidate.abstract import hub_members
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.split import split_parent
from reme_workbench.errors import RemeError

A, B = "digest/wiki/a.md", "digest/wiki/b.md"


def test_a_merge_candidate_reads_back_what_it_wrote():
    full = MergeCandidate(A, B, "c_01", 0.8125, 0.5, description_cosine=0.9375, community_b="c_02",
                          shared_identifier="github.com/acme/api", sole_identifier=True)
    plain = MergeCandidate(A, B, "c_01", 0.25, 0.75)
    assert MergeCandidate.from_json(full.to_json()) == full
    assert MergeCandidate.from_json(plain.to_json()) == plain


@pytest.mark.parametrize("data", [
    None, [A, B], {"a": A, "b": B}, {"a": A, "b": 3, "community": "c"},
    {"a": A, "b": B, "community": "c", "description_similarity": "high", "body_overlap": 0.5},
    {"a": A, "b": B, "community": "c", "description_similarity": True, "body_overlap": 0.5},
])
def test_a_pair_out_of_shape_is_refused_with_what_to_do(data):
    with pytest.raises(RemeError, match="p-1 does not name its pair.*consolidate --only communities,merge"):
        MergeCandidate.from_json(data, of="p-1")


def test_split_and_hub_proposals_name_their_subject():
    story = {"plan": {"parent": {"path": "digest/wiki/long.md", "tokens_before": 9000}}}
    assert split_parent(story, ["digest/wiki/x.md"]) == "digest/wiki/long.md"
    # a plan the checks refused says no parent: the first digest note it writes
    assert split_parent({"plan": "?"}, ["meta/x.json", "digest/wiki/y.md"]) == "digest/wiki/y.md"
    assert split_parent({}, ["meta/x.json"]) is None
    assert hub_members({"members": [A, B]}) == frozenset({A, B})
    assert hub_members({"members": "a, b"}) == frozenset()
