"""The one generator of vaults with a planted truth: communities and mixing, time and
stale notes, hub notes, overloaded notes (duplicate pairs: tests/test_duplicates.py)."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.experiments.generator import (
    VaultSpec,
    generate_vault,
    plan_vault,
    read_truth,
    truth_path_for,
)
from reme_workbench.index.chunking import estimate_tokens
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.vault import Vault


@pytest.mark.parametrize("mixing", [0.0, 0.1, 0.3])
def test_links_leave_their_community_at_the_mixing_rate(tmp_path, mixing):
    made = plan_vault(VaultSpec(notes=2000, duplicates=0, near_misses=0, mixing=mixing, seed=1))
    planted = made.planted()
    links = [(n.path, t) for n in made.notes for t, _ in n.links]
    out = sum(planted[a] != planted[b] for a, b in links) / len(links)
    assert out == pytest.approx(mixing, abs=0.03)
    assert all(a != b for a, b in links)  # no self-links


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen") / "vault"
    return generate_vault(root, VaultSpec(notes=400, duplicates=10, near_misses=10, stale=30,
                                          hubs=4, overloaded=3, seed=11))


def test_the_truth_names_every_planted_thing(made):
    truth = read_truth(made.truth_path)
    assert made.truth_path == truth_path_for(made.root)
    planted = truth["planted"]
    assert len(planted["communities"]["notes"]) == 400 == len(made.notes)
    assert len(planted["stale"]) == 30 and len(planted["hubs"]) == 4 and len(planted["overloaded"]) == 3
    assert planted["now"] == "2026-10-30T12:00:00+00:00"  # start + days + 1, at noon
    assert truth["spec"]["now"] == "2026-10-30"


def test_time_stale_notes_are_old_and_never_recalled(made):
    truth = read_truth(made.truth_path)["planted"]
    now = datetime.fromisoformat(truth["now"])
    ages = {p: (now - datetime.fromtimestamp((made.root / p).stat().st_mtime, UTC)).days
            for p in truth["communities"]["notes"]}
    stale = set(truth["stale"])
    assert all(ages[p] >= 150 for p in stale)
    assert all(0 <= ages[p] <= 28 for p in ages if p not in stale)
    events = [json.loads(line) for line in (made.root / "meta/access_log.jsonl").read_text().splitlines()]
    recalled = {e["path"] for e in events}
    assert not recalled & stale and 0.3 < len(recalled) / (400 - 30) < 0.7
    assert all(e["event"] == "recall" for e in events)


def test_a_hub_note_links_every_other_member_of_its_community(made):
    truth = read_truth(made.truth_path)["planted"]
    members: dict[str, set[str]] = {}
    for path, c in truth["communities"]["notes"].items():
        members.setdefault(str(c), set()).add(path)
    for c, hub in truth["hubs"].items():
        text = (made.root / hub).read_text()
        assert {lk.target for lk in parse_links(text) if lk.predicate is None} >= members[c] - {hub}


def test_an_overloaded_note_is_over_the_split_threshold_in_four_sections(made):
    for path in read_truth(made.truth_path)["planted"]["overloaded"]:
        note = parse((made.root / path).read_text(), path)
        assert estimate_tokens(note.body) > 2000
        assert note.body.count("\n## ") + note.body.startswith("## ") == 4


def test_the_vault_reads_clean(made):
    vault = Vault.open(made.root)
    report = vault.health()
    assert not report.broken_links and not report.missing_provenance


def test_same_seed_same_vault(tmp_path):
    spec = VaultSpec(notes=120, duplicates=3, near_misses=3, stale=5, hubs=1, overloaded=1, seed=2)
    one, two = generate_vault(tmp_path / "one", spec), generate_vault(tmp_path / "two", spec)
    files = sorted(p.relative_to(one.root).as_posix() for p in one.root.rglob("*") if p.is_file())
    assert all((one.root / f).read_bytes() == (two.root / f).read_bytes() for f in files)
    written = [f for f in files if f.startswith(("digest/", "daily/"))]
    assert written and all((one.root / f).stat().st_mtime == (two.root / f).stat().st_mtime
                           for f in written)


def test_asking_for_more_than_fits_says_what_to_change():
    with pytest.raises(RemeError, match="stale notes need as many plain notes"):
        plan_vault(VaultSpec(notes=40, duplicates=0, near_misses=0, stale=41))
    with pytest.raises(RemeError, match="hub notes need as many communities"):
        plan_vault(VaultSpec(notes=40, duplicates=0, near_misses=0, hubs=20))
    with pytest.raises(RemeError, match="must be 0 or more"):
        plan_vault(VaultSpec(overloaded=-1))
    assert VaultSpec(now=date(2027, 1, 1)).today == date(2027, 1, 1)


def test_thousands_of_communities_get_distinct_code_names():
    import random

    from reme_workbench.experiments.generator import _codenames

    names = _codenames(random.Random(3), 3000)  # a 50k-note vault has ~2,200 communities
    assert len(set(names)) == 3000


def test_an_overloaded_note_covers_four_communities_topics(made):
    truth = read_truth(made.truth_path)["planted"]
    codes = [t["code"] for t in truth["communities"]["topics"]]
    for path in truth["overloaded"]:
        body = (made.root / path).read_text()
        sections = re.split(r"^## ", body, flags=re.M)[1:]
        # a code shows as a word or in identifiers (tamist-cache, tamist_cache)
        named = [{c for c in codes if re.search(rf"(?<![a-z]){c}(?![a-z])", s)} for s in sections]
        assert len(sections) == 4 and len(set().union(*named)) >= 4


def test_forming_communities_were_written_this_week_in_growing_shares(tmp_path):
    spec = VaultSpec(notes=400, duplicates=10, near_misses=10, stale=30, hubs=4, overloaded=3,
                     forming=4, seed=11)
    made = generate_vault(tmp_path / "vault", spec)
    truth = read_truth(made.truth_path)["planted"]
    now = datetime.fromisoformat(truth["now"])
    forming = truth["forming"]
    assert len(forming) == 4
    assert not set(forming) & set(truth["hubs"])  # a community with a hub is not forming
    shares = []
    for c, new in sorted(forming.items(), key=lambda kv: int(kv[0])):
        members = [p for p, cc in truth["communities"]["notes"].items()
                   if str(cc) == c and p not in truth["stale"]]
        shares.append(len(new) / len(members))
        assert not set(new) & set(truth["stale"])
        for p in new:
            written = datetime.fromtimestamp((made.root / p).stat().st_mtime, UTC)
            assert 0 <= (now - written).total_seconds() < 7 * 86400
    assert shares == pytest.approx([0.25, 0.5, 0.75, 1.0], abs=0.06)  # k / forming
    # a new note was recalled, if at all, after it was written
    events = [json.loads(line) for line in (made.root / "meta/access_log.jsonl").read_text().splitlines()]
    new = {p for paths in forming.values() for p in paths}
    for e in events:
        if e["path"] in new:
            assert datetime.fromisoformat(e["ts"].replace("Z", "+00:00")) >= datetime.fromtimestamp(
                (made.root / e["path"]).stat().st_mtime, UTC).replace(microsecond=0)
    # forming changes only those notes' times: the same notes, links and words
    without = plan_vault(VaultSpec(**{**spec.__dict__, "forming": 0}))
    assert [(n.path, n.body, n.links) for n in without.notes] == [(n.path, n.body, n.links) for n in made.notes]
