"""obsidian_bridge: short links normalized by Obsidian's rules, graph.json colour groups
merged into a person's settings (a golden file), valid JSON Canvas maps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from obsidian_bridge import (
    GRAPH_JSON,
    bucket_groups,
    community_groups,
    merge_groups,
    normalize_links,
    plan_normalize,
    run_bridge,
    update_graph,
    validate_canvas,
    write_canvases,
)
from obsidian_bridge.canvas import communities_canvas
from reme_workbench.cli import cli
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

DATA = Path(__file__).resolve().parents[1] / "data"
LOG = "daily/2026-10-05/log.md"


def note(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: About {name}.\n---\n{body}\n\nderived_from:: [[{LOG}]]\n"


# -- links ---------------------------------------------------------------------------------

@pytest.fixture
def linked(make_vault):
    """A person's notes with short links; two files named Setup.md make [[Setup]] ambiguous."""
    return Vault.open(make_vault({
        LOG: "log\n",
        "digest/wiki/PgBouncer.md": note("PgBouncer", "## Pool modes\n\nThree of them."),
        "digest/procedure/laptop/Setup.md": note("Setup", "Laptop setup."),
        "digest/procedure/build-box/Setup.md": note("Setup", "Build box setup."),
        "resource/2026-10-05/diagram.png": b"\x89PNG\r\n\x1a\n",
        "digest/wiki/mine.md": note("mine", (
            "See [[PgBouncer]] and [[pgbouncer#Pool modes]] and [[digest/wiki/PgBouncer|the pooler]].\n"
            "Set up with [[laptop/Setup]]; but [[Setup]] could be either, and [[Nowhere]] is not there.\n"
            "related_to:: [[PgBouncer]]\n![[diagram.png]]\n"
            "Already full: [[digest/wiki/PgBouncer.md|PgBouncer]].\n`[[PgBouncer]]` in code stays.")),
        "daily/2026-10-06/other.md": "A source with [[PgBouncer]]: never written.\n",
    }), clock=lambda: FIXED_NOW)


def test_normalize_rewrites_unique_short_links_and_reports_the_rest(linked):
    plan = plan_normalize(linked)
    assert plan.files == ("digest/wiki/mine.md",)
    after = {c.before: c.after for c in plan.rewritten}
    assert after["[[PgBouncer]]"] == "[[digest/wiki/PgBouncer.md|PgBouncer]]"
    assert after["[[pgbouncer#Pool modes]]"] == "[[digest/wiki/PgBouncer.md#Pool modes|pgbouncer > Pool modes]]"
    assert after["[[digest/wiki/PgBouncer|the pooler]]"] == "[[digest/wiki/PgBouncer.md|the pooler]]"
    assert after["[[laptop/Setup]]"] == "[[digest/procedure/laptop/Setup.md|laptop/Setup]]"
    assert after["![[diagram.png]]"] == "![[resource/2026-10-05/diagram.png]]"
    (amb,) = plan.ambiguous
    assert amb.before == "[[Setup]]" and set(amb.candidates) == {
        "digest/procedure/laptop/Setup.md", "digest/procedure/build-box/Setup.md"}
    assert [c.before for c in plan.unresolved] == ["[[Nowhere]]"]
    text = plan.new_texts["digest/wiki/mine.md"]
    assert "related_to:: [[digest/wiki/PgBouncer.md|PgBouncer]]" in text  # predicate kept
    assert "`[[PgBouncer]]` in code stays." in text


def test_normalize_writes_digest_only_in_one_changeset(linked):
    source = (linked.root / "daily/2026-10-06/other.md").read_bytes()
    report = normalize_links(linked)
    assert report.applied and report.files == ("digest/wiki/mine.md",)
    text = (linked.root / "digest/wiki/mine.md").read_text()
    assert "[[Setup]]" in text and "[[Nowhere]]" in text  # left as written
    targets = {lk.target for lk in parse_links(text)}
    assert "PgBouncer" not in targets and "digest/wiki/PgBouncer.md" in targets
    assert (linked.root / "daily/2026-10-06/other.md").read_bytes() == source
    again = normalize_links(linked)  # nothing left to do
    assert again.files == () and not again.applied


def test_normalize_leaves_missing_and_odd_embeds_and_normalises_the_rest(linked):
    """One missing embed used to refuse the whole vault ("rejected by 13 check failures")."""
    odd = note("odd", "A missing ![[gone.png]], an odd ![[*.jpg|L]] and [[PgBouncer]].\n"
                      "| table | [[PgBouncer]] |")
    (linked.root / "digest/wiki/odd.md").write_text(odd, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--vault", str(linked.root), "bridge", "--normalize",
                                      "--json"])
    assert result.exit_code == 0, result.output
    text = (linked.root / "digest/wiki/odd.md").read_text()
    assert "![[gone.png]]" in text and "![[*.jpg|L]]" in text  # reported, left as they are
    assert "| table | [[digest/wiki/PgBouncer.md\\|PgBouncer]] |" in text  # a table cell's pipe
    assert "and [[digest/wiki/PgBouncer.md|PgBouncer]]." in text
    assert "[[digest/wiki/PgBouncer.md|PgBouncer]]" in (linked.root / "digest/wiki/mine.md").read_text()
    left = {row["before"] for row in json.loads(result.output)["normalize"]["unresolved"]}
    assert {"![[gone.png]]", "![[*.jpg|L]]"} <= left


# -- graph.json ----------------------------------------------------------------------------

USER_GRAPH = {
    "collapse-filter": False, "search": "-path:daily", "showTags": False,
    "colorGroups": [
        {"query": "tag:#incident", "color": {"a": 1, "rgb": 16711680}},
        {"query": 'path:"digest/wiki"', "color": {"a": 1, "rgb": 255}},  # a person's own colour
    ],
    "nodeSizeMultiplier": 1.4, "scale": 0.82,
}


def test_graph_groups_merge_into_a_persons_settings_golden(make_vault):
    root = make_vault({LOG: "log\n", ".obsidian/graph.json": json.dumps(USER_GRAPH, indent=2)})
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    report = update_graph(vault)
    assert report.changed and report.added == ('path:"digest/personal"', 'path:"digest/procedure"')
    got = json.loads((root / GRAPH_JSON).read_text())
    golden = json.loads((DATA / "graph_merged_golden.json").read_text())
    assert got == golden
    assert not update_graph(vault).changed  # idempotent
    assert json.loads((root / GRAPH_JSON).read_text()) == golden


def test_community_groups_come_and_go_and_a_persons_groups_stay():
    comms = {f"digest/wiki/a{i}.md": "c_00" for i in range(4)} | {"digest/wiki/b0.md": "c_01"}
    ours = bucket_groups() + community_groups(comms)
    assert len(ours) == 4  # c_01 has one note: no group
    assert ours[-1]["query"].startswith('path:"digest/wiki/a0.md" OR path:"digest/wiki/a1.md"')
    merged = merge_groups(USER_GRAPH, ours, [])
    later = merge_groups(merged, bucket_groups(), [g["query"] for g in ours])  # c_00 gone
    queries = [g["query"] for g in later["colorGroups"]]
    assert "tag:#incident" in queries and not [q for q in queries if "a0.md" in q]
    assert later["scale"] == 0.82 and later["search"] == "-path:daily"


def test_community_groups_go_before_the_bucket_groups_they_would_lose_to(make_vault):
    """In Obsidian the first group that matches a note colours it: a community group after
    `path:"digest/wiki"` colours nothing. A graph.json bridged with that order is put right;
    a person's groups keep their places."""
    comms = {f"digest/wiki/a{i}.md": "c_00" for i in range(3)}
    before = merge_groups(USER_GRAPH, bucket_groups() + community_groups(comms), [])
    before["colorGroups"].sort(key=lambda g: " OR " in g["query"])  # as bridged until now
    root = make_vault({LOG: "log\n", ".obsidian/graph.json": json.dumps(before)})
    update_graph(Vault.open(root, clock=lambda: FIXED_NOW), communities=comms)
    queries = [g["query"] for g in json.loads((root / GRAPH_JSON).read_text())["colorGroups"]]
    community = next(i for i, q in enumerate(queries) if " OR " in q)
    assert queries[0] == "tag:#incident"
    assert community < min(queries.index(g["query"]) for g in bucket_groups())


def test_a_graph_json_that_does_not_parse_is_left_alone(make_vault):
    root = make_vault({LOG: "log\n", ".obsidian/graph.json": "{ not json"})
    report = update_graph(Vault.open(root, clock=lambda: FIXED_NOW))
    assert not report.changed and "does not parse" in report.message
    assert (root / GRAPH_JSON).read_text() == "{ not json"


# -- canvas --------------------------------------------------------------------------------

@pytest.fixture
def community_vault(make_vault):
    files = {LOG: "log\n"}
    for i in range(5):
        links = " ".join(f"[[digest/wiki/a{j}.md]]" for j in range(5) if j != i and (i == 0 or j == 0))
        files[f"digest/wiki/a{i}.md"] = note(f"a{i}", f"Note a{i}. {links}")
    files["digest/procedure/b0.md"] = note("b0", "Note b0 [[digest/wiki/a1.md]] [[digest/procedure/b1.md]].")
    files["digest/procedure/b1.md"] = note("b1", "Note b1 [[digest/procedure/b0.md]].")
    root = make_vault(files)
    comms = {f"digest/wiki/a{i}.md": "c_00" for i in range(5)}
    comms |= {"digest/procedure/b0.md": "c_01", "digest/procedure/b1.md": "c_01"}
    (root / "meta").mkdir(exist_ok=True)
    (root / "meta/communities.json").write_text(json.dumps(
        {"version": 1, "computed_at": "2026-11-02T09:30:00Z", "communities": comms}))
    return Vault.open(root, clock=lambda: FIXED_NOW), comms


def test_the_communities_canvas_is_valid_json_canvas(community_vault):
    vault, comms = community_vault
    doc = communities_canvas(vault, comms)
    assert validate_canvas(doc) == []
    groups = [n for n in doc["nodes"] if n["type"] == "group"]
    files = {n["file"]: n for n in doc["nodes"] if n["type"] == "file"}
    assert [g["label"] for g in groups] == ["c_00 · 5 notes · hub a0", "c_01 · 2 notes"]
    assert set(files) == set(comms)
    assert files["digest/wiki/a0.md"]["color"] == "6"  # the hub
    assert files["digest/procedure/b0.md"]["color"] == "5" and files["digest/wiki/a1.md"]["color"] == "4"
    pairs = {(e["fromNode"], e["toNode"]) for e in doc["edges"]}
    assert (files["digest/procedure/b0.md"]["id"], files["digest/wiki/a1.md"]["id"]) in pairs
    assert len(doc["edges"]) == 8 + 1 + 2  # hub <-> 4 each way, b0 -> a1, b0 <-> b1
    assert communities_canvas(vault, comms) == doc  # stable ids and layout


def test_validate_canvas_finds_what_the_spec_forbids():
    bad = {"nodes": [
        {"id": "g", "type": "group", "x": 0, "y": 0, "width": 500, "height": 500},
        {"id": "a", "type": "file", "file": "x.md", "x": 10, "y": 10, "width": 100, "height": 100, "color": "7"},
        {"id": "b", "type": "file", "file": "y.md", "x": 50, "y": 50, "width": 100, "height": 100},
        {"id": "a", "type": "text", "text": "t", "x": 600, "y": 0, "width": 1.5, "height": 10},
    ], "edges": [{"id": "e", "fromNode": "a", "toNode": "zz", "fromSide": "middle", "toEnd": "dot"}]}
    problems = "\n".join(validate_canvas(bad))
    for expected in ("the id a is used twice", "colour '7'", "overlap in group g", "width must be an integer",
                     "toNode 'zz' is no node", "fromSide 'middle'", "toEnd 'dot'"):
        assert expected in problems


def test_write_canvases_one_per_community_on_request(community_vault):
    vault, comms = community_vault
    report = write_canvases(vault, comms, per_community=True)
    assert report.written == ("meta/canvas/communities.canvas", "meta/canvas/community-c_00.canvas",
                              "meta/canvas/community-c_01.canvas")
    for path in report.written:
        assert validate_canvas(json.loads((vault.root / path).read_text())) == []
    assert write_canvases(vault, comms).written == ()  # unchanged: nothing rewritten


def test_the_bridge_command(community_vault):
    vault, _ = community_vault
    out = CliRunner().invoke(cli, ["--vault", str(vault.root), "bridge", "--communities", "--canvas",
                                   "--normalize", "--json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["graph"]["changed"] and data["canvas"]["communities"] == 2
    assert data["normalize"]["files"] == []
    graph = json.loads((vault.root / GRAPH_JSON).read_text())
    assert len(graph["colorGroups"]) == 4  # three buckets, one community of 3+ notes
    note_text = (vault.root / "digest/wiki/a0.md").read_text()
    assert "community" not in note_text  # frontmatter stays name + description


def test_run_bridge_without_communities_says_so(make_vault):
    vault = Vault.open(make_vault({LOG: "log\n"}), clock=lambda: FIXED_NOW)
    report = run_bridge(vault, communities=True, canvas=True)
    assert report.canvas is None and "No communities yet" in report.notices[0]
    assert report.graph.changed  # the bucket groups still go in


def test_consolidate_keeps_obsidians_views_up_to_date_when_the_vault_has_them(community_vault):
    vault, _ = community_vault
    run = ["--vault", str(vault.root), "consolidate", "--only", "communities", "--json"]
    first = json.loads(CliRunner().invoke(cli, run, catch_exceptions=False).stdout)
    assert first["bridge"] is None and not (vault.root / GRAPH_JSON).exists()  # not an Obsidian vault
    (vault.root / ".obsidian").mkdir()
    second = json.loads(CliRunner().invoke(cli, [*run, "--force"], catch_exceptions=False).stdout)
    assert second["bridge"]["graph"]["changed"] and second["bridge"]["canvas"]["communities"] >= 1
    assert (vault.root / GRAPH_JSON).is_file() and (vault.root / "meta/canvas/communities.canvas").is_file()


def test_a_renamed_note_keeps_its_community_and_obsidians_views_follow(community_vault):
    """After `rename`, `note` showed no community until the next weekly run, the canvas
    dropped the note and graph.json kept the old path while `bridge` said "up to date"."""
    vault, _ = community_vault
    root = str(vault.root)
    (vault.root / ".obsidian").mkdir()
    CliRunner().invoke(cli, ["--vault", root, "bridge", "--communities", "--canvas", "--json"],
                       catch_exceptions=False)
    old, new = "digest/wiki/a1.md", "digest/wiki/a1-renamed.md"
    moved = json.loads(CliRunner().invoke(cli, ["--vault", root, "rename", old, new, "--json"],
                                          catch_exceptions=False).stdout)
    assert "meta/communities.json" in moved["meta"] and moved["obsidian"]
    note = json.loads(CliRunner().invoke(cli, ["--vault", root, "note", new, "--json"]).stdout)
    assert note["community"] == "c_00" and note["community_size"] == 5
    graph = (vault.root / ".obsidian/graph.json").read_text()
    canvas = (vault.root / "meta/canvas/communities.canvas").read_text()
    assert old not in graph and new in graph and old not in canvas and new in canvas
    again = json.loads(CliRunner().invoke(cli, ["--vault", root, "bridge", "--communities",
                                                "--canvas", "--json"]).stdout)
    assert again["graph"]["changed"] is False and again["canvas"]["written"] == []
