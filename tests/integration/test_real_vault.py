"""A vault built the way public Obsidian vaults are — one template shared by hundreds of
pages, category pages linking them with short links, old file times, a missing and an odd
embed, one plugin listed twice — imported and consolidated through the CLI, as a new user
would. Nothing a person wrote may be lost; what consolidate proposes must be worth reading."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_lab.hub_vault import write_hub_vault
from reme_workbench.cli import cli
from reme_workbench.vault.links import parse_links


def run(vault: Path, *args: str):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def adopted(tmp_path_factory):
    """The hub vault imported into a fresh reme vault, then consolidated once (all phases)."""
    base = tmp_path_factory.mktemp("hub")
    truth = write_hub_vault(base / "hub", plugins=120, themes=12)
    vault = base / "vault"
    CliRunner().invoke(cli, ["init", str(vault), "--json"], catch_exceptions=False)
    # MiniLM: the offline embedder every user without e5 has; merge reads its vectors
    (vault / "reme.toml").write_text('[recall]\nembedder = "minilm"\n', encoding="utf-8")
    imported = json.loads(run(vault, "import", str(base / "hub"), "--json").stdout)
    links_before = {n["path"]: _links(vault / n["path"]) for n in imported["notes"]}
    data = json.loads(run(vault, "consolidate", "--json").stdout)
    text = run(vault, "consolidate", "--force", "--dry-run", "--text").output  # what a person reads
    return vault, truth, imported, links_before, text, data


def _links(path: Path) -> Counter:
    return Counter((lk.target, lk.predicate, lk.embed) for lk in parse_links(path.read_text("utf-8")))


def _page(imported: dict, source: str) -> str:
    return next(n["path"] for n in imported["notes"] if n["source"] == source)


def test_import_keeps_every_link_and_says_what_it_left(adopted):
    vault, truth, imported, links_before, _, _ = adopted
    assert len(imported["notes"]) == len(list((vault / "digest/wiki").rglob("*.md")))  # in their folders
    # every link a page held is a link in its note (plus the one provenance line)
    written = sum(sum(c.values()) for c in links_before.values())
    assert written == truth.links + len(imported["notes"])
    assert {(u["source"], u["raw"]) for u in imported["unresolved"]} == set(truth.missing_embeds)


def test_the_first_consolidate_loses_no_link_and_archives_nothing(adopted):
    vault, truth, imported, links_before, _, data = adopted
    for path, before in links_before.items():
        assert _links(vault / path) == before, path  # nothing unlinked, nothing rewritten
    health = json.loads(run(vault, "health", "--json").stdout)
    assert health["short_links"] == [] and health["ambiguous_links"] == []
    # embeds of files the wiki never had: not yet written (docs/spec.md §7.5.1), not broken,
    # and nothing is proposed for them
    assert health["broken_links"] == []
    assert {b["raw"] for b in health["unwritten_links"]} == {raw for _, raw in truth.missing_embeds}
    proposals = json.loads(run(vault, "proposals", "list", "--json").stdout)
    assert [p for p in proposals if p["action"] == "health.unlink"] == []
    archive = next(p for p in data["phases"] if p["phase"] == "archive")["details"]
    assert archive["scored"] == len(imported["notes"]) and archive["archived"] == []


def test_the_report_is_one_line_per_phase(adopted):
    _, _, _, _, text, _ = adopted
    lines = text.splitlines()
    for phase in ("communities", "abstract", "merge", "split", "archive", "cooldowns", "health"):
        assert sum(1 for line in lines if line.startswith(phase)) == 1, phase
    assert sum(1 for line in lines if line.strip().startswith("wrote")) <= 7 * 3
    assert len(lines) < 40


def test_communities_follow_the_wikis_own_categories(adopted):
    from reme_lab.generator import normalized_mutual_info

    vault, truth, imported, _, _, _ = adopted
    member_of = json.loads((vault / "meta/communities.json").read_text())["communities"]
    pages = {_page(imported, src): key for src, key in truth.plugins.items() if key}
    nmi = normalized_mutual_info(pages, {p: member_of[p] for p in pages})
    assert nmi >= 0.5, nmi  # authors and the mobile page link across categories, as on the real wiki


def test_merge_proposes_the_plugin_listed_twice_and_never_a_distinct_twin(adopted):
    vault, truth, imported, _, _, data = adopted
    proposals = json.loads(run(vault, "proposals", "list", "--json").stdout)
    merges = [json.loads(run(vault, "proposals", "show", p["id"], "--json").stdout)
              for p in proposals if p["action"] == "consolidate.merge"]
    merged = {frozenset(m["files"]) for m in merges}
    merge = next(p for p in data["phases"] if p["phase"] == "merge")["details"]
    reported = json.dumps(merge)
    for a, b in truth.duplicates:
        pa, pb = _page(imported, a), _page(imported, b)
        assert any({pa, pb} <= paths for paths in merged) or (pa in reported and pb in reported), (a, b)
    for a, b in truth.distinct_twins:
        pa, pb = _page(imported, a), _page(imported, b)
        assert not any({pa, pb} <= paths for paths in merged), (a, b)


def test_split_considers_the_long_pages_nobody_queued(adopted):
    vault, truth, imported, _, _, data = adopted
    split = next(p for p in data["phases"] if p["phase"] == "split")["details"]
    considered = json.dumps(split)
    for source in truth.long_pages:
        assert _page(imported, source) in considered, source


def test_hubs_are_not_named_by_a_word_every_note_shares(adopted):
    vault, _, _, _, _, _ = adopted
    proposals = json.loads(run(vault, "proposals", "list", "--json").stdout)
    hubs = [json.loads(run(vault, "proposals", "show", p["id"], "--json").stdout)
            for p in proposals if p["action"] == "consolidate.abstract"]
    common = {"obsidian", "plugin", "plugins", "github", "hub", "note", "edit"}
    for hub in hubs:
        for path in hub["files"]:
            words = set(Path(path).stem.replace("-", " ").split())
            assert not words <= common, path
