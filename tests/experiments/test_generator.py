"""The one generator of vaults with a planted truth: communities and mixing, time and
stale notes, hub notes, overloaded notes (duplicate pairs: tests/consolidate/test_duplicates.py)."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime

import pytest

from reme_lab.generator import (
    VaultSpec,
    generate_vault,
    plan_vault,
    read_truth,
    truth_path_for,
)
from reme_workbench.config import CommunitySettings
from reme_workbench.consolidate.communities import update_communities
from reme_workbench.errors import RemeError
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.tokens import estimate_tokens
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
    recalled = {e["path"] for e in events if e["event"] == "recall"}
    assert not recalled & stale and 0.3 < len(recalled) / (400 - 30) < 0.7
    # a stale note's one line: dream wrote it when its file time says, long ago
    created = {e["path"]: e["ts"] for e in events if e["event"] == "dream.create"}
    assert set(created) == stale and {e["event"] for e in events} == {"recall", "dream.create"}
    assert all((now - datetime.fromisoformat(created[p].replace("Z", "+00:00"))).days == ages[p]
               for p in stale)


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
    report = vault.health()  # nothing dangles, broken or never written
    assert not report.broken_links and not report.unwritten_links
    assert not report.missing_provenance


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

    from reme_lab.generator import _codenames

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


# -- template-built notes and twins placed across communities (issue #20) --------------------

TEMPLATED = VaultSpec(notes=400, duplicates=12, near_misses=6, across=4, templated=80,
                      templated_duplicates=4, templated_near_misses=3, seed=5)


@pytest.fixture(scope="module")
def templated(tmp_path_factory):
    return generate_vault(tmp_path_factory.mktemp("tpl") / "vault", TEMPLATED)


def test_notes_counts_every_file_template_pages_and_their_lists_included(templated):
    files = sorted(p for p in (templated.root / "digest").rglob("*.md"))
    assert len(files) == 400 == len(templated.notes)
    kinds = [n.kind for n in templated.notes]
    assert kinds.count("plugin") == 80 and kinds.count("category") >= 2
    truth = read_truth(templated.truth_path)["planted"]
    assert set(truth["communities"]["notes"]) == {n.path for n in templated.notes}
    assert len(truth["communities"]["sizes"]) == len(truth["communities"]["topics"])
    vault = Vault.open(templated.root)
    report = vault.health()  # short links resolve, every page has provenance
    assert not report.broken_links and not report.unwritten_links
    assert not report.missing_provenance


def test_plugin_pages_are_one_template_with_other_values(templated):
    pages = [(templated.root / n.path).read_text() for n in templated.notes if n.kind == "plugin"]
    shared = set.intersection(*(set(p.splitlines()) for p in pages))
    # the badges' and comments' lines, the footer heading: the same in every page
    assert {"%% ----- Badges ----- %%", "# This note in GitHub",
            "%% Hub footer: Please don't edit anything below this line %%"} <= shared
    ids = [re.search(r"^plugin-id: (.+)$", p, re.M).group(1) for p in pages]
    dup_ids = {n.subject[0] for n in templated.notes if n.kind == "plugin"
               and any(n.path in (d.a, d.b) for d in templated.duplicates)}
    assert len(set(ids)) == len(ids) - len(dup_ids)  # only the plugins listed twice repeat


def test_a_plugin_listed_twice_is_on_two_category_pages_and_a_fork_beside_its_original(templated):
    truth = read_truth(templated.truth_path)["planted"]
    notes = truth["notes"]
    plugin_dups = [d for d in truth["duplicates"] if d["kind"] == "plugin"]
    assert len(plugin_dups) == 4 and all(d["across"] for d in plugin_dups)
    lists = [n for n in templated.notes if n.kind == "category"]

    def listed_on(path):
        stem = path.rsplit("/", 1)[1].removesuffix(".md")
        return {c.path for c in lists if f"[[{stem}|" in (templated.root / c.path).read_text()}

    for d in plugin_dups:
        a, b = notes[d["a"]], notes[d["b"]]
        assert a["facts"] == b["facts"] and d["a"] != d["b"]  # same id, repository, developer
        assert listed_on(d["a"]) and listed_on(d["b"]) and not listed_on(d["a"]) & listed_on(d["b"])
    forks = [p for p in truth["near_misses"] if p["kind"] == "plugin"]
    assert len(forks) == 3
    for p in forks:
        a, b = notes[p["a"]], notes[p["b"]]
        assert not set(a["facts"]) & set(b["facts"])  # other id, repository and developer
        name = lambda path: re.search(r"^# (.+)$", (templated.root / path).read_text(), re.M)[1]  # noqa: E731
        assert name(p["a"]) == name(p["b"])
        assert truth["communities"]["notes"][p["a"]] == truth["communities"]["notes"][p["b"]]


def test_twins_placed_across_link_another_community_and_leiden_finds_them_there(templated):
    truth = read_truth(templated.truth_path)["planted"]
    planted = truth["communities"]["notes"]
    moved = [d for d in truth["duplicates"] if d["kind"] != "plugin" and d["across"]]
    assert len(moved) == 4
    by_path = {n.path: n for n in templated.notes}
    for d in moved:
        twin, there = by_path[d["b"]], planted[d["b"]]
        assert there != planted[d["a"]]
        assert twin.links and all(planted[t] == there for t, _ in twin.links)
        linking = [planted[n.path] for n in templated.notes
                   if any(t == twin.path for t, _ in n.links)]
        # two of its new community link it, none of its old one (others: the mixing links)
        assert linking.count(there) >= 2 and planted[d["a"]] not in linking
    found = update_communities(Vault.open(templated.root), CommunitySettings(),
                               now=datetime(2026, 12, 1, tzinfo=UTC), dry_run=True)
    found = found.partition.communities
    apart = sum(found[d["a"]] != found[d["b"]] for d in moved)
    assert apart >= 3  # mining inside one community would miss them


def test_a_version_2_truth_still_reads_and_a_plain_spec_plants_nothing_new(tmp_path, made):
    doc = json.loads(made.truth_path.read_text())
    assert all(d["across"] is False for d in doc["planted"]["duplicates"])
    assert not [n for n in made.notes if n.kind in ("plugin", "category", "list")]
    doc["version"] = 2
    for d in doc["planted"]["duplicates"]:
        del d["across"]  # version 2 had no such field
    old = tmp_path / "old.planted.json"
    old.write_text(json.dumps(doc))
    assert all(d["across"] is False for d in read_truth(old)["planted"]["duplicates"])
    doc["version"] = 1
    old.write_text(json.dumps(doc))
    with pytest.raises(RemeError, match="truth file"):
        read_truth(old)


def test_template_specs_that_do_not_fit_say_what_to_change():
    with pytest.raises(RemeError, match="across"):
        plan_vault(VaultSpec(notes=200, duplicates=2, near_misses=0, across=3))
    with pytest.raises(RemeError, match="templated"):
        plan_vault(VaultSpec(notes=100, duplicates=0, near_misses=0, templated=80))
    with pytest.raises(RemeError, match="plugin pages"):
        plan_vault(VaultSpec(notes=400, duplicates=0, near_misses=0, templated=20,
                             templated_duplicates=8, templated_near_misses=4))
