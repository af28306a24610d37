"""`reme-workbench bridge --preview FILE.html`: what Obsidian's graph view shows of a vault
a person imported, as one HTML file (obsidian_bridge/graph_preview.py).

The person's vault has what public ones have: nested course folders, an index note,
frontmatter aliases a link uses, links to notes not yet written, an embedded picture and
a note nothing links. It is imported through the CLI, so the originals sit under
Obsidian's Excluded files; each test reads the HTML the command wrote, as a browser gets
it, and compares it with what the test works out from the files and Obsidian's rules.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from obsidian_bridge.graph_preview import path_terms, search_filter
from reme_workbench.cli import cli
from tests.conftest import snapshot, write_files

PNG = b"\x89PNG\r\n\x1a\n\x00\x00"
SOURCE = {
    "Index.md": "# Index\n\n- [[Automata]]\n- [[Week 1]]\n- [[Shell]]\n- [[Pipes|pipes]]\n",
    "Courses/Theory/Automata.md": "---\naliases: [DFA]\n---\n# Automata\n\nSee [[Week 1]], "
                                  "[[Linux]] (to write) and ![[diagram.png]].\n",
    "Courses/Theory/Lectures/Week 1.md": "# Week 1\n\nBack to [[DFA|automata]] and [[Index]]. "
                                         "Read [[Atomic Habits]].\n",
    "Courses/Linux/Shell.md": "---\naliases: [Pipes]\n---\n# Shell\n\nSee [[Linux]].\n",
    "Loose.md": "# Loose\n\nA thought nothing links yet.\n",
    "attachments/diagram.png": PNG,
}
WIKI = "digest/wiki/"
NOTES = {"Index": "Index.md", "Automata": "Courses/Theory/Automata.md",
         "Week 1": "Courses/Theory/Lectures/Week 1.md", "Shell": "Courses/Linux/Shell.md",
         "Loose": "Loose.md"}
# the lines Obsidian draws between the person's notes (and to the names not yet written)
LINES = {("Automata", "Index"), ("Index", "Week 1"), ("Index", "Shell"), ("Automata", "Week 1"),
         ("Automata", "Linux"), ("Linux", "Shell"), ("Atomic Habits", "Week 1")}


def run(vault: Path, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def imported(make_vault, tmp_path) -> Path:
    vault = make_vault({})
    write_files(tmp_path / "Course Notes", SOURCE)
    run(vault, "import", str(tmp_path / "Course Notes"), "--json")
    return vault


def notes_obsidian_shows(vault: Path) -> set[str]:
    """Every `.md` file outside hidden folders that no Excluded files entry covers (plain
    entries are prefixes of the path; the import writes plain folder entries)."""
    filters = json.loads((vault / ".obsidian/app.json").read_text())["userIgnoreFilters"]
    shown = set()
    for path in vault.rglob("*.md"):
        rel = path.relative_to(vault).as_posix()
        if not any(part.startswith(".") for part in rel.split("/")) and \
                not any(rel.startswith(entry) for entry in filters):
            shown.add(rel)
    return shown


_CIRCLE = re.compile(r'<circle class="node (\w+)" data-(?:path|name)="([^"]*)" cx="([-\d.]+)" '
                     r'cy="([-\d.]+)" r="[\d.]+" fill="(#[0-9a-f]{6})"')
_EDGES = re.compile(r'<path class="edge(?: faint)?" d="([^"]*)"')
_SEGMENT = re.compile(r"M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)")


def drawn(page: str) -> tuple[dict[str, tuple[str, str]], set[tuple[str, str]]]:
    """({node: (kind, fill)}, {lines as sorted pairs of nodes}) read back from the SVG: a
    line's ends are matched to the nodes at those coordinates."""
    nodes, at = {}, {}
    for kind, name, x, y, fill in _CIRCLE.findall(page):
        name = html.unescape(name)
        nodes[name] = (kind, fill)
        at[(x, y)] = name
    lines = set()
    for d in _EDGES.findall(page):
        for x1, y1, x2, y2 in _SEGMENT.findall(d):
            a, b = at[(x1, y1)], at[(x2, y2)]
            lines.add((min(a, b), max(a, b)))
    return nodes, lines


def short(name: str) -> str:
    """A drawn node as the tests name it: the note's title, or the unwritten name."""
    for title, rel in NOTES.items():
        if name == WIKI + rel:
            return title
    return name


def preview(vault: Path, out: Path, *args: str) -> tuple[str, dict]:
    data = json.loads(run(vault, "bridge", "--preview", str(out), *args, "--json").stdout)
    return out.read_text(encoding="utf-8"), data["preview"]


def test_the_preview_draws_the_notes_obsidian_indexes_and_the_links_between_them(imported, tmp_path):
    page, report = preview(imported, tmp_path / "graph.html")
    nodes, lines = drawn(page)
    notes = {n for n, (kind, _) in nodes.items() if kind == "note"}
    # each imported note once; the originals in resource/ (Excluded files) never
    assert notes == notes_obsidian_shows(imported)
    assert {WIKI + rel for rel in NOTES.values()} <= notes
    assert not any(n.startswith("resource/") for n in nodes)
    assert report["excluded_notes"] == len(NOTES)  # the originals, kept and left out
    # links to notes not yet written: one faint node per name, however many link it
    assert {n for n, (kind, _) in nodes.items() if kind == "unresolved"} == {"Linux", "Atomic Habits"}
    # the import's audit note links the notes whose links it left as written, as Obsidian draws it
    persons = {tuple(sorted((short(a), short(b)))) for a, b in lines
               if not (a.startswith("audit/") or b.startswith("audit/"))}
    assert persons == {tuple(sorted(pair)) for pair in LINES}
    # provenance (derived_from:: into resource/) and the embed of the kept picture draw nothing
    assert report["excluded_links"] >= len(NOTES)
    assert "<script" not in page and not re.search(r"\b(src|href)=", page)  # nothing loaded


def test_each_note_takes_the_colour_of_the_first_group_it_matches(imported, tmp_path):
    graph = {"colorGroups": [
        {"query": 'path:"Courses/Linux"', "color": {"a": 1, "rgb": 0xAA0000}},
        {"query": "tag:#course", "color": {"a": 1, "rgb": 0x00AA00}},
        {"query": 'path:"nowhere" OR path:"Lectures"', "color": {"a": 1, "rgb": 0x0000AA}}],
        "showArrow": True}
    (imported / ".obsidian/graph.json").write_text(json.dumps(graph))
    page, report = preview(imported, tmp_path / "graph.html")
    nodes, _ = drawn(page)
    fill = {short(n): f for n, (kind, f) in nodes.items() if kind == "note"}
    assert fill["Shell"] == "#aa0000"  # the person's group comes first and wins
    assert fill["Week 1"] == "#0000aa"  # an OR of path: terms
    assert fill["Index"] == fill["Automata"] == fill["Loose"] == "#2ca02c"  # digest/wiki's group
    audit = [f for n, f in fill.items() if n.startswith("audit/")]
    assert audit and set(audit) == {"#8a8f98"}  # no group: Obsidian's grey
    groups = {g["query"]: g for g in report["groups"]}
    assert groups["tag:#course"]["drawn"] is False and "path:" in groups["tag:#course"]["why_not"]
    assert groups['path:"digest/wiki"']["notes"] == 3
    assert "not drawn" in page and "tag:#course" in page  # the legend says so


def test_community_groups_colour_their_notes_over_the_bucket_group(imported, tmp_path):
    """graph.json's first matching group wins in Obsidian: a community group placed after
    `path:"digest/wiki"` would never show on any imported note."""
    members = [WIKI + NOTES[t] for t in ("Index", "Automata", "Week 1")]
    communities = {"version": 1, "communities": {**{p: "c_01" for p in members},
                                                 WIKI + NOTES["Shell"]: "c_02"}}
    (imported / "meta/communities.json").write_text(json.dumps(communities))
    page, report = preview(imported, tmp_path / "graph.html", "--communities")
    nodes, _ = drawn(page)
    fill = {short(n): f for n, (kind, f) in nodes.items() if kind == "note"}
    community = next(g for g in report["groups"] if "OR" in g["query"])
    assert community["notes"] == 3
    assert fill["Index"] == fill["Automata"] == fill["Week 1"] == community["color"]
    assert fill["Shell"] == fill["Loose"] == "#2ca02c"  # a community of one: no group of its own


def test_the_same_vault_gives_the_same_file(imported, tmp_path):
    first, _ = preview(imported, tmp_path / "one.html")
    second, _ = preview(imported, tmp_path / "two.html")
    again, _ = preview(imported, tmp_path / "one.html")  # an earlier preview is replaced
    assert first == second == again


def test_obsidians_graph_settings_are_followed(imported, tmp_path):
    (imported / ".obsidian/graph.json").write_text(json.dumps(
        {"hideUnresolved": True, "showOrphans": False, "search": "-path:audit"}))
    page, report = preview(imported, tmp_path / "graph.html")
    nodes, lines = drawn(page)
    assert not [n for n, (kind, _) in nodes.items() if kind == "unresolved"]
    assert WIKI + NOTES["Loose"] not in nodes  # an orphan, with orphans hidden
    assert {short(n) for n in nodes} == {"Index", "Automata", "Week 1", "Shell"}  # no audit/
    assert {tuple(sorted((short(a), short(b)))) for a, b in lines} == {
        tuple(sorted(p)) for p in LINES if "Linux" not in p and "Atomic Habits" not in p}
    assert report["search"] == "-path:audit" and "-path:audit" in page


def test_a_graph_filter_the_preview_cannot_read_is_said_and_not_applied(imported, tmp_path):
    (imported / ".obsidian/graph.json").write_text(json.dumps({"search": "tag:#course"}))
    page, report = preview(imported, tmp_path / "graph.html")
    nodes, _ = drawn(page)
    assert {WIKI + rel for rel in NOTES.values()} <= set(nodes) and report["search"] == ""
    assert any("tag:#course" in n and "not applied" in n for n in report["notices"])


@pytest.mark.parametrize("where", ["digest/wiki/graph.html", "graph.html", ".obsidian/graph.html",
                                   "resource/graph.html"])
def test_a_preview_inside_the_vaults_notes_is_refused_and_nothing_is_written(imported, where):
    before = snapshot(imported)
    result = run(imported, "bridge", "--preview", str(imported / where), "--text", code=1)
    assert "inside the vault" in result.output and "outside it" in result.output
    assert snapshot(imported) == before  # not even graph.json: the command stopped first


def test_the_vaults_workbench_folder_takes_a_preview(imported):
    (imported / "workbench").mkdir(exist_ok=True)  # `init` makes it, with the notebooks
    page, _ = preview(imported, imported / "workbench/graph.html")
    assert "<svg" in page


@pytest.mark.parametrize("name", ["Index.md", "graph.json", "graph"])
def test_a_name_that_is_not_html_is_refused(imported, tmp_path, name):
    target = tmp_path / "Course Notes" / name
    before = target.read_bytes() if target.exists() else None
    result = run(imported, "bridge", "--preview", str(target), "--text", code=1)
    assert ".html" in result.output
    assert (target.read_bytes() if target.exists() else None) == before


def test_an_existing_file_is_replaced_only_when_it_is_an_earlier_preview(imported, tmp_path):
    theirs = tmp_path / "page.html"
    theirs.write_text("<html>my own page</html>")
    result = run(imported, "bridge", "--preview", str(theirs), "--text", code=1)
    assert "not a graph preview" in result.output and "another file name" in result.output
    assert theirs.read_text() == "<html>my own page</html>"
    ours = tmp_path / "graph.html"
    preview(imported, ours)
    ours.write_text(ours.read_text().replace("</aside>", "<p>stale</p></aside>"))
    page, _ = preview(imported, ours)
    assert "stale" not in page
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left


def test_a_missing_folder_or_dry_run_is_refused_clearly(imported, tmp_path):
    result = run(imported, "bridge", "--preview", str(tmp_path / "no/such/graph.html"), "--text",
                 code=1)
    assert "does not exist" in result.output
    result = run(imported, "bridge", "--dry-run", "--preview", str(tmp_path / "g.html"), code=2)
    assert "--dry-run" in result.output and not (tmp_path / "g.html").exists()


def test_names_are_escaped(make_vault, tmp_path):
    vault = make_vault({"digest/wiki/<b>Tom & Jerry</b>.md": "# x\n\nSee [[a<i>b]].\n"})
    page, _ = preview(vault, tmp_path / "graph.html")
    assert "<b>Tom" not in page and "&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;" in page
    nodes, _ = drawn(page)
    assert "digest/wiki/<b>Tom & Jerry</b>.md" in nodes and "a<i>b" in nodes


@pytest.mark.parametrize(("query", "terms"), [
    ('path:"digest/wiki"', ("digest/wiki",)),
    ('path:"digest/wiki/a b.md" OR path:"digest/wiki/C.md"', ("digest/wiki/a b.md", "digest/wiki/c.md")),
    ("path:Courses", ("courses",)),
    ("tag:#course", None),
    ('path:"a" path:"b"', None),  # AND: not read
    ('-path:"a"', None),
    ('path:"a" OR', None),
    ('(path:"a" OR path:"b")', None),
    ('path:""', None),
])
def test_the_queries_the_preview_reads(query, terms):
    assert path_terms(query) == terms


@pytest.mark.parametrize(("search", "keeps"), [
    ("-path:audit", [False, True, True]),
    ('path:"digest/wiki" -path:"Lectures"', [False, True, False]),
    ("-path:audit tag:#x", None),
    ("audit", None),
    ("", None),
])
def test_the_graph_filters_the_preview_reads(search, keeps):
    wanted = search_filter(search)
    paths = ["audit/2026-12-07/import.md", "digest/wiki/Index.md", "digest/wiki/Lectures/W.md"]
    assert (None if wanted is None else [wanted(p) for p in paths]) == keeps


def test_the_title_names_the_vault_when_it_is_the_current_folder(imported, tmp_path, monkeypatch):
    monkeypatch.chdir(imported)  # `reme-workbench bridge --preview …` run inside the vault
    result = CliRunner().invoke(cli, ["bridge", "--preview", str(tmp_path / "g.html"), "--json"])
    assert result.exit_code == 0, result.output
    assert f"<title>Graph of {imported.name}</title>" in (tmp_path / "g.html").read_text()


@pytest.mark.slow
def test_a_thousand_notes_take_a_few_cpu_seconds(make_vault, tmp_path):
    """1,000 notes in 12 courses, five links each and some to notes not yet written: the
    layout is most of the time (about 4 CPU-seconds on a loaded 2-core machine)."""
    import random
    import time

    rng = random.Random(3)
    files = {}
    for i in range(1000):
        course = i % 12
        links = [f"[[n{rng.choice(range(course, 1000, 12))}]]" for _ in range(4)]
        links += [f"[[n{rng.randrange(1000)}]]"] + ([f"[[todo {i % 200}]]"] if i % 5 == 0 else [])
        files[f"digest/wiki/c{course}/n{i}.md"] = f"# n{i}\n\n{' '.join(links)}\n"
    vault = make_vault(files)
    started = time.process_time()
    page, report = preview(vault, tmp_path / "graph.html")
    assert time.process_time() - started < 15
    assert report["notes"] == 1000 and report["unresolved"] == 40  # todo 0, 5, …, 195
    assert len(drawn(page)[0]) == 1040
