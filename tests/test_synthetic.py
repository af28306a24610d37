"""The generator of digest vaults with planted communities (benchmarks and experiments)."""

from __future__ import annotations

import json

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.experiments.synthetic import (
    SyntheticSpec,
    generate_vault,
    plan_vault,
    read_truth,
    truth_path_for,
)
from reme_workbench.vault.layout import is_digest_note
from reme_workbench.vault.vault import Vault


def test_same_seed_same_vault_other_seed_another(tmp_path):
    spec = SyntheticSpec(notes=200, seed=3)
    one = generate_vault(tmp_path / "one", spec)
    two = generate_vault(tmp_path / "two", spec)
    files = sorted(p.relative_to(one.root).as_posix() for p in one.root.rglob("*.md"))
    assert files == sorted(p.relative_to(two.root).as_posix() for p in two.root.rglob("*.md"))
    assert all((one.root / f).read_bytes() == (two.root / f).read_bytes() for f in files)
    assert plan_vault(SyntheticSpec(notes=200, seed=4)) != one.notes


def test_the_truth_is_beside_the_vault_and_matches_what_was_written(tmp_path):
    made = generate_vault(tmp_path / "vault", SyntheticSpec(notes=300, mixing=0.2, seed=5))
    assert made.truth_path == truth_path_for(tmp_path / "vault") == tmp_path / "vault.planted.json"
    truth = read_truth(made.truth_path)
    assert truth["spec"]["notes"] == 300 and truth["spec"]["mixing"] == 0.2
    planted = truth["planted"]["communities"]
    assert planted["notes"] == made.planted()
    assert sum(planted["sizes"]) == 300
    assert all(5 <= s <= 40 for s in planted["sizes"])
    vault = Vault.open(made.root)
    notes = [p for p in vault.scan.records if is_digest_note(p)]
    assert sorted(notes) == sorted(planted["notes"])
    assert not vault.health().broken_links and not vault.health().missing_provenance
    (tmp_path / "old.json").write_text(json.dumps({"version": 0}), encoding="utf-8")
    with pytest.raises(RemeError, match="generate the vault again"):
        read_truth(tmp_path / "old.json")


@pytest.mark.parametrize("mixing", [0.0, 0.1, 0.3])
def test_links_leave_their_community_at_the_mixing_rate(tmp_path, mixing):
    made = generate_vault(tmp_path / "v", SyntheticSpec(notes=2000, mixing=mixing, seed=1))
    planted = made.planted()
    links = [(n.path, t) for n in made.notes for t, _ in n.links]
    out = sum(planted[a] != planted[b] for a, b in links) / len(links)
    assert out == pytest.approx(mixing, abs=0.02)
    assert all(a != b for a, b in links)  # no self-links
    per_note = len(links) / len(made.notes)
    assert 6 <= per_note <= 7.5  # ~6 links, a fifth of the notes repeat one target
    graph = Vault.open(made.root).graph.graph
    assert graph.number_of_nodes() == 2000
    # every planned link is an edge of the vault's graph (keyed by predicate)
    assert graph.number_of_edges() == len({(n.path, t, p) for n in made.notes for t, p in n.links})


def test_tiny_and_bad_specs(tmp_path):
    assert plan_vault(SyntheticSpec(notes=0)) == ()
    (alone,) = plan_vault(SyntheticSpec(notes=1))
    assert alone.links == ()
    few = plan_vault(SyntheticSpec(notes=3, min_community=5))  # one community of 3
    assert {n.community for n in few} == {0} and all(n.links for n in few)
    with pytest.raises(RemeError, match="mixing"):
        plan_vault(SyntheticSpec(mixing=1.5))
    with pytest.raises(RemeError, match="min_community"):
        plan_vault(SyntheticSpec(min_community=9, max_community=3))


def test_community_sizes_add_up_to_the_notes_asked_for():
    import random

    from reme_workbench.experiments.synthetic import SyntheticSpec, _community_sizes

    for seed in range(40):
        spec = SyntheticSpec(notes=97 + seed, seed=seed)
        sizes = _community_sizes(spec, random.Random(seed))
        assert sum(sizes) == spec.notes
        assert all(s >= spec.min_community for s in sizes) or len(sizes) == 1
