"""The generator of vaults with planted duplicate pairs (the merge benchmark's input)."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from reme_lab.generator import (
    KINDS,
    VaultSpec,
    generate_vault,
    normalized_mutual_info,
    phrasings,
    plan_vault,
    read_truth,
    slots_of,
    truth_path_for,
)
from reme_workbench.cli import cli
from reme_workbench.config import CommunitySettings
from reme_workbench.consolidate.communities import update_communities
from reme_workbench.errors import RemeError
from reme_workbench.vault.layout import is_digest_note
from reme_workbench.vault.links import is_provenance, parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.vault import Vault

CJK = re.compile(r"[\u4e00-\u9fff]")
# values every note of a community shares: a statement naming only these says nothing new
COMMUNITY_VALUES = {"code", "domain", "repo", "channel", "team"}


def statements(body: str) -> list[str]:
    """The statement lines of a generated body: not code, links, headings or blank."""
    out = []
    for line in body.splitlines():
        text = re.sub(r"^(\d+\. |- |\*\*[^*]+\*\* )", "", line.strip())
        label = re.fullmatch(r"\*\*[^*]+\*\*", line.strip())  # **Related:**
        if text and not label and not line.startswith(("   ", "#")) and "[[" not in line:
            out.append(text)
    return out


def english_lines(body: str) -> list[str]:
    """Statements written in English: three or more words and no CJK."""
    return [t for t in statements(body) if not CJK.search(t) and len(t.split()) >= 3]


def chinese_lines(body: str) -> list[str]:
    return [t for t in statements(body) if CJK.search(t)]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("dups") / "vault"
    return generate_vault(root, VaultSpec(notes=600, duplicates=40, near_misses=40,
                                                   chinese_share=0.2, mixed_language=0.3, seed=11))


def test_same_seed_same_bytes_other_seed_another_vault(tmp_path):
    spec = VaultSpec(notes=150, duplicates=10, near_misses=10, seed=3)
    one = generate_vault(tmp_path / "one", spec)
    two = generate_vault(tmp_path / "two", spec)
    files = sorted(p.relative_to(one.root).as_posix() for p in one.root.rglob("*.md"))
    assert files == sorted(p.relative_to(two.root).as_posix() for p in two.root.rglob("*.md"))
    assert all((one.root / f).read_bytes() == (two.root / f).read_bytes() for f in files)
    truths = [json.loads(v.truth_path.read_text(encoding="utf-8")) for v in (one, two)]
    assert [t.pop("vault") for t in truths] == ["one", "two"] and truths[0] == truths[1]
    other = plan_vault(VaultSpec(notes=150, duplicates=10, near_misses=10, seed=4))
    assert {n.path for n in other.notes} != {n.path for n in one.notes}


def test_sizes_and_truth_match_the_files(made):
    spec = made.spec
    assert made.truth_path == truth_path_for(made.root)
    truth = read_truth(made.truth_path)
    planted = truth["planted"]
    vault = Vault.open(made.root)
    digest = sorted(p for p in vault.scan.records if is_digest_note(p))
    assert len(digest) == spec.notes == len(made.notes), set(digest) - {n.path for n in made.notes}
    assert sorted(planted["communities"]["notes"]) == digest == sorted(planted["notes"])
    assert sum(planted["communities"]["sizes"]) == spec.notes
    assert all(s >= spec.min_community for s in planted["communities"]["sizes"])
    assert len(planted["duplicates"]) == spec.duplicates == len(made.duplicates)
    assert len(planted["near_misses"]) == spec.near_misses == len(made.near_misses)
    paired = [p for pair in planted["duplicates"] + planted["near_misses"] for p in (pair["a"], pair["b"])]
    assert len(paired) == len(set(paired))  # a note is in one planted pair at most
    for path, info in planted["notes"].items():
        note = parse((made.root / path).read_text(encoding="utf-8"), path)
        assert note.name == path.rsplit("/", 1)[1].removesuffix(".md")  # name = slug, as dream keeps it
        assert note.description and info["facts"]
    (made.root.parent / "other.json").write_text(json.dumps({"version": 1}), encoding="utf-8")
    with pytest.raises(RemeError, match="generate the vault again"):
        read_truth(made.root.parent / "other.json")


def test_duplicate_pairs_share_their_facts_but_not_name_slug_or_wording(made):
    truth = read_truth(made.truth_path)["planted"]
    notes = truth["notes"]
    assert Counter(p.strength for p in made.duplicates) == {"light": 16, "medium": 16, "heavy": 8}
    assert sum(p.mixed_language for p in made.duplicates) == 12  # 0.3 of 40
    for pair in truth["duplicates"]:
        a, b = notes[pair["a"]], notes[pair["b"]]
        assert a["kind"] == b["kind"] == pair["kind"] and a["subject"] == b["subject"]
        assert truth["communities"]["notes"][pair["a"]] == truth["communities"]["notes"][pair["b"]]
        shared = set(a["facts"]) & set(b["facts"])
        assert len(shared) >= len(a["facts"]) - 1 >= 2  # at most one statement dropped
        assert len(set(b["facts"]) - set(a["facts"])) <= 1  # at most one added
        text_a, text_b = ((made.root / p).read_text(encoding="utf-8") for p in (pair["a"], pair["b"]))
        note_a, note_b = parse(text_a, pair["a"]), parse(text_b, pair["b"])
        assert note_a.name != note_b.name and pair["a"].rsplit("/", 1)[1] != pair["b"].rsplit("/", 1)[1]
        assert note_a.description != note_b.description
        assert note_a.body != note_b.body
        if pair["mixed_language"]:  # a statement or two in the other language
            if chinese_lines(note_a.body):
                assert len(english_lines(note_b.body)) > len(english_lines(note_a.body))
            else:
                assert chinese_lines(note_b.body)
        source_a = [link.target for link in parse_links(text_a) if is_provenance(link)]
        source_b = [link.target for link in parse_links(text_b) if is_provenance(link)]
        assert source_a != source_b  # learned twice, from two days' logs


def test_near_misses_share_topic_words_but_no_fact(made):
    truth = read_truth(made.truth_path)["planted"]
    notes, communities = truth["notes"], truth["communities"]
    codes = {t["community"]: t["code"] for t in communities["topics"]}
    for pair in truth["near_misses"]:
        a, b = notes[pair["a"]], notes[pair["b"]]
        assert a["kind"] == b["kind"] == pair["kind"] and a["subject"] != b["subject"]
        c = communities["notes"][pair["a"]]
        assert communities["notes"][pair["b"]] == c
        assert not set(a["facts"]) & set(b["facts"])
        body_a, body_b = (parse((made.root / p).read_text(encoding="utf-8"), p).body
                          for p in (pair["a"], pair["b"]))
        words = lambda text: set(re.findall(r"[a-z]{4,}", text.lower()))  # noqa: E731
        assert codes[c] in body_a and codes[c] in body_b  # the community's topic
        if not chinese_lines(body_a):
            assert len(words(body_a) & words(body_b)) >= 0.5 * len(words(body_a))


def test_distinct_notes_of_one_kind_share_at_most_one_statement(made):
    truth = read_truth(made.truth_path)["planted"]
    twins = {frozenset((p["a"], p["b"])) for p in truth["duplicates"]}
    groups: dict = {}
    for path, info in truth["notes"].items():
        groups.setdefault((truth["communities"]["notes"][path], info["kind"]), []).append(path)
    compared = 0
    for paths in groups.values():
        for i, a in enumerate(paths):
            for b in paths[i + 1:]:
                if frozenset((a, b)) not in twins:
                    compared += 1
                    shared = set(truth["notes"][a]["facts"]) & set(truth["notes"][b]["facts"])
                    assert len(shared) <= 1, (a, b, shared)
    assert compared > 100  # the rule was tested on many pairs


def test_every_note_has_provenance_to_a_daily_log_and_no_link_is_broken(made):
    for note in made.notes:
        text = (made.root / note.path).read_text(encoding="utf-8")
        provenance = [link.target for link in parse_links(text) if is_provenance(link)]
        assert provenance == [note.source] and note.source.startswith("daily/")
        assert (made.root / note.source).is_file()
    result = CliRunner().invoke(cli, ["--vault", str(made.root), "health", "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    health = json.loads(result.stdout)
    assert not health["broken_links"] and not health["missing_provenance"]
    assert not health["unwritten_links"]
    assert not health["broken_provenance"]


def test_leiden_finds_the_communities_and_pairs_stay_in_theirs(made):
    vault = Vault.open(made.root)
    found = update_communities(vault, CommunitySettings(), now=datetime(2026, 12, 1, tzinfo=UTC), dry_run=True)
    found = found.partition.communities
    assert normalized_mutual_info(made.planted(), found) >= 0.9
    together = sum(found[p.a] == found[p.b] for p in made.duplicates)
    assert together >= 0.95 * len(made.duplicates)
    graph = vault.graph.graph
    planted = made.planted()
    edges = [(u, v) for u, v in graph.edges() if u != v]
    assert sum(planted[u] != planted[v] for u, v in edges) / len(edges) < 0.15


def test_chinese_communities_and_mixed_twins():
    plan = plan_vault(VaultSpec(notes=200, duplicates=20, near_misses=5,
                                         chinese_share=1.0, mixed_language=1.0, seed=2))
    assert all(chinese_lines(n.body) and CJK.search(n.description) for n in plan.notes)
    by_path = {n.path: n for n in plan.notes}
    for pair in plan.duplicates:  # every twin has English statements among the Chinese
        assert not english_lines(by_path[pair.a].body)
        assert english_lines(by_path[pair.b].body), by_path[pair.b].body


def test_the_phrasings_say_the_same_values_in_every_variant():
    for kind in KINDS:
        for text in (kind.names, kind.descriptions):
            english, chinese = phrasings(text)
            assert len(english) >= 2 and len(chinese) >= 2, (kind.key, text)
        for fact in kind.facts:
            english, chinese = phrasings(fact.text)
            assert len(english) >= 2 and len(chinese) >= 1, (kind.key, fact.key)
            names = {slots_of(v) for v in english + chinese}
            assert len(names) == 1, (kind.key, fact.key, names)  # the same values in each
            # and at least one value drawn per note, so a near miss shares no statement
            assert names.pop() - COMMUNITY_VALUES, (kind.key, fact.key)
        assert set(kind.subject) <= {s for f in kind.facts for s in slots_of(f.text) | slots_of(f.code or "")}


def test_bad_specs_say_what_to_change():
    with pytest.raises(RemeError, match="ask for fewer pairs"):
        plan_vault(VaultSpec(notes=40, duplicates=15, near_misses=10))
    with pytest.raises(RemeError, match="mixing"):
        plan_vault(VaultSpec(mixing=2.0))
    with pytest.raises(RemeError, match="min_community"):
        plan_vault(VaultSpec(min_community=1))
    assert plan_vault(VaultSpec(notes=0, duplicates=0, near_misses=0)).notes == ()
