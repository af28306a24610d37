"""Misfiled buckets as a signal (docs/spec.md §7.2.8, issue #24.2): a note whose community
is almost all another bucket is reported — in meta/misfiled.json, in the consolidate
output and on the workbench's Communities screen — with the rename that would move it;
nothing is moved."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.consolidate.communities import misfiled_notes

LOG = "daily/2026-10-05/deploy.md"
STEP = "digest/procedure/restart-the-broker.md"
PREF = "digest/personal/likes-quiet-pages.md"


def _note(name: str, links: list[str], body: str) -> str:
    see = " ".join(f"[[{t}]]" for t in links)
    return (f"---\nname: {name}\ndescription: About {name}.\n---\n{body}\nSee {see}.\n\n"
            f"derived_from:: [[{LOG}]]\n")


def _vault(make_vault):
    """Two rings of six wiki notes (a broker, a garden) joined by one link; a procedure
    linked only into the broker ring; a personal note alone with one garden note."""
    files = {LOG: "---\nname: deploy\ndescription: A log.\n---\nDeployed.\n"}
    for group in ("broker", "garden"):
        ring = [f"digest/wiki/{group}-{i}.md" for i in range(6)]
        for i, path in enumerate(ring):
            links = [ring[(i + 1) % 6], ring[(i + 2) % 6]]
            files[path] = _note(f"{group}-{i}", links, f"The {group}, part {i}.")
    files["digest/wiki/broker-0.md"] = files["digest/wiki/broker-0.md"].replace(
        "See ", "See [[digest/wiki/garden-0.md]] ")
    files[STEP] = _note("restart-the-broker", ["digest/wiki/broker-1.md", "digest/wiki/broker-2.md",
                                               "digest/wiki/broker-3.md"], "1. Stop it. 2. Start it.")
    files[PREF] = _note("likes-quiet-pages", [], "Prefers quiet pages.")
    root = make_vault(files)
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    return root


def _cli(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_the_rule_on_a_partition():
    wiki = {f"digest/wiki/w{i}.md": "c_00" for i in range(5)}
    step, pref = "digest/procedure/step.md", "digest/personal/me.md"
    found = misfiled_notes({**wiki, step: "c_00"})
    assert [(m.path, m.bucket, m.dominant_bucket, m.share, m.community_size) for m in found] == [
        (step, "procedure", "wiki", 1.0, 6)]
    assert found[0].rename_to == "digest/wiki/step.md"
    # 5 of the other 6 in wiki (0.83): still reported at 0.8, not at 0.9
    both = {**wiki, step: "c_00", pref: "c_00"}
    assert [m.path for m in misfiled_notes(both)] == [pref, step]
    assert misfiled_notes(both, min_share=0.9) == ()
    # a community smaller than min_size says too little
    assert misfiled_notes({**dict(list(wiki.items())[:3]), step: "c_00"}) == ()
    assert [m.path for m in misfiled_notes({**dict(list(wiki.items())[:3]), step: "c_00"},
                                           min_size=4)] == [step]
    # a community of two buckets in equal parts: nobody is misfiled
    half = {**dict(list(wiki.items())[:3]),
            **{f"digest/procedure/p{i}.md": "c_00" for i in range(3)}}
    assert misfiled_notes(half) == ()


def test_consolidate_reports_the_procedure_among_wiki_notes_and_moves_nothing(make_vault):
    root = _vault(make_vault)
    before = (root / STEP).read_bytes()
    run = json.loads(_cli(root, "consolidate", "--only", "communities", "--json").stdout)
    phase = next(p for p in run["phases"] if p["phase"] == "communities")
    assert "1 note(s) sit among another bucket's notes" in phase["summary"]
    (entry,) = phase["details"]["misfiled"]
    assert entry["path"] == STEP and entry["bucket"] == "procedure"
    assert entry["dominant_bucket"] == "wiki" and entry["share"] == 1.0
    assert entry["community_size"] == 7
    doc = json.loads((root / "meta/misfiled.json").read_text(encoding="utf-8"))
    assert list(doc)[:2] == ["version", "computed_at"]
    assert (doc["min_share"], doc["min_size"]) == (0.8, 5)
    assert doc["notes"] == [entry] and "meta/misfiled.json" in phase["changed"]
    assert (root / STEP).read_bytes() == before  # reported, never moved
    # the personal note is a community of two: too small to say anything
    assert PREF not in json.dumps(doc)


def test_the_communities_screen_shows_it_until_a_person_renames_it(make_vault):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    from reme_workbench.widgets import CommunitiesView

    root = _vault(make_vault)
    _cli(root, "consolidate", "--only", "communities")
    view = CommunitiesView(root)
    html = view.misfiled.value
    assert "Maybe misfiled" in html and STEP in html and "100% wiki" in html
    assert f"reme-workbench rename {STEP} digest/wiki/restart-the-broker.md" in html
    ring = next(c for c in view.overview.communities if STEP in c.members)
    view.community.value = ring.id
    assert "maybe belongs in" in view.detail.value and ">wiki</td></tr>" in view.detail.value
    # the person agrees and moves it; the screen no longer lists it
    _cli(root, "rename", STEP, "digest/wiki/restart-the-broker.md")
    view.refresh()
    assert view.misfiled.value == ""
    moved = json.loads((root / "meta/misfiled.json").read_text(encoding="utf-8"))["notes"]
    assert moved[0]["path"] == "digest/wiki/restart-the-broker.md"  # followed the rename
