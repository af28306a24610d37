"""Dream of pages built from one template (a community wiki's plugin pages): each page that
says something of its own gets its note, named and described by its own words; the
template's words (badges, "Plugin ID:", "Developed by:", the footer) make no two pages
alike (docs/spec.md §5.8)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_lab.hub_vault import write_hub_vault
from reme_workbench.brains.offline_dream.offline import OfflineBrain
from reme_workbench.cli import cli
from reme_workbench.dream.boilerplate import shared_phrases
from reme_workbench.llm import CandidateNote, IntegrateRequest, Material
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.slug import slugify

DATES = ("2022-03-01", "2022-04-12", "2022-05-20")


def plugin_page(pid: str, name: str, author: str, says: str) -> str:
    """The community hub's plugin template, as the issue quotes it."""
    shields = f"https://img.shields.io/github/downloads/{author}/{pid}/total?style=for-the-badge"
    return (f"%% ----- Badges ----- %%\n\n![GitHub all releases]({shields})\n\n%% ----- Badges ----- %%\n\n"
            f"%% ----- Do not edit this section ----- %%\n\n# {name}\n\n"
            f"Plugin ID: `{pid}`\n"
            f"Links: [GitHub repository](https://github.com/{author}/{pid}) or "
            f"[<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id={pid})\n"
            f"Developed by: [[{author}]]\n"
            "Mobile compatible: [[Mobile-compatible plugins|Yes]]\n\n"
            f"{says}\n\n%% ----- Do not edit anything above this line ----- %%\n\n"
            "%% Hub footer: Please don't edit anything below this line %%\n\n# This note in GitHub\n\n"
            '<span class="git-footer">[Edit In GitHub](https://github.dev/x "e") | '
            '[Copy this note](https://raw.x "c") | [Download this vault](https://x.zip "d") </span>\n')


PLUGINS = [  # (plugin id, name, author, what the page says)
    ("obsidian-kroki", "Kroki", "gregzuro", "Render Kroki Diagrams"),
    ("obsidian-tasks-calendar", "Tasks Calendar", "hanna-k", "Show your tasks on a calendar view."),
    ("obsidian-tasks", "Tasks", "schemar", "Track tasks across your vault."),
    ("calendar", "Calendar", "liamcain", "Calendar view of your daily notes."),
    ("templater", "Templater", "silentvoid", "Create and use templates."),
    ("obsidian-kanban", "Kanban", "mgmeyers", "Create markdown-backed Kanban boards."),
    ("obsidian-outliner", "Outliner", "vslinko", "Work with your lists like in Workflowy."),
]
FOLDER = "resource/2022-03-01"


@pytest.fixture(scope="module")
def materials() -> dict[str, Material]:
    """The pages as dream hands them to the brain: each with its boilerplate phrases."""
    bodies = {f"{FOLDER}/{pid}.md": plugin_page(pid, name, author, says)
              for pid, name, author, says in PLUGINS}
    shared = shared_phrases(bodies, bodies, bodies.get)
    return {pid: Material(path, bodies[path], "2022-03-01", shared=shared[path])
            for (pid, *_), path in zip(PLUGINS, bodies, strict=True)}


def create(material: Material) -> tuple[CandidateNote, object]:
    brain = OfflineBrain()
    (unit,) = brain.extract(material).value.units
    decision = brain.integrate(IntegrateRequest(material, unit)).value
    assert decision.action == "CREATE"
    slug = slugify(decision.name)
    return CandidateNote(f"digest/wiki/{slug}.md", slug, decision.description, decision.body), unit


def test_a_template_page_is_named_and_described_by_what_it_says(materials):
    note, unit = create(materials["obsidian-kroki"])
    assert unit.name == "Kroki" and unit.bucket == "wiki"
    assert note.description == "Render Kroki Diagrams"
    lead, *rest = [ln for ln in note.body.splitlines() if ln.strip()]
    assert lead == "Render Kroki Diagrams"  # the note opens with the page's own words
    # the values the page filled in stay, as a bullet; the footer and comments say nothing
    assert any("github.com/gregzuro/obsidian-kroki" in ln and ln.startswith("- ") for ln in rest)
    assert "Edit In GitHub" not in note.body and "Do not edit" not in note.body


def test_the_templates_words_do_not_make_another_page_the_same(materials):
    """"Tasks" is in the note of "Tasks Calendar"; what made the two pages alike was the
    template. Read without its boilerplate (as before), the page corroborated that note."""
    tasks = materials["obsidian-tasks"]
    blind = replace(tasks, shared=())
    note, _ = create(replace(materials["obsidian-tasks-calendar"], shared=()))
    (unit,) = OfflineBrain().extract(blind).value.units
    before = OfflineBrain().integrate(IntegrateRequest(blind, unit, (note,))).value
    assert (before.action, before.target_path) == ("UPDATE", note.path)  # the old mistake
    note, _ = create(materials["obsidian-tasks-calendar"])
    (unit,) = OfflineBrain().extract(tasks).value.units
    after = OfflineBrain().integrate(IntegrateRequest(tasks, unit, (note,))).value
    assert after.action == "CREATE" and after.name == "Tasks"


def test_the_same_page_again_still_corroborates_its_note(materials):
    kroki = materials["obsidian-kroki"]
    note, unit = create(kroki)
    again = replace(kroki, path="resource/2022-06-01/Kroki.md")
    decision = OfflineBrain().integrate(IntegrateRequest(again, unit, (note,))).value
    assert (decision.action, decision.flavor, decision.target_path) == ("UPDATE", "CORROBORATE", note.path)


def test_a_logs_template_line_is_not_a_unit():
    """Every log of an agent ends with the same reminder, written once in its template: a
    preference by its form, yet not something any one log said — as a unit of each log it
    would be one more note per log (nothing left to compare once the template's words are
    not counted)."""
    reminder = "Mei prefers a short summary at the end of every task."
    logs = {f"daily/2026-10-0{i}/log.md": (f"## What I did\n\nRotated the credential of host-{i}.\n\n"
                                            f"## Reminder\n\n{reminder}\n") for i in range(1, 7)}
    shared = shared_phrases(logs, logs, logs.get)
    path = "daily/2026-10-01/log.md"
    blind = OfflineBrain().extract(Material(path, logs[path])).value.units
    seen = OfflineBrain().extract(Material(path, logs[path], shared=shared[path])).value.units
    assert [u.bucket for u in blind if "summary" in u.summary] == ["personal"]
    assert not any("summary" in u.summary for u in seen)


def run(vault: Path, *args: str):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def hub_pages(tmp_path_factory):
    """100 generated plugin pages of the hub's template (distinct names, repositories and
    one-line descriptions; one plugin listed twice; a fork: same name, another
    repository), laid out as a user brings them: resource/<date>/<page>.md."""
    base = tmp_path_factory.mktemp("template")
    truth = write_hub_vault(base / "hub", plugins=100, themes=2)
    vault = base / "vault"
    CliRunner().invoke(cli, ["init", str(vault), "--json"], catch_exceptions=False)
    where = {}
    for i, page in enumerate(sorted(truth.plugins)):
        rel = f"resource/{DATES[i % len(DATES)]}/{Path(page).name}"
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / "hub" / page, vault / rel)
        where[page] = rel
    return vault, truth, where


def test_each_template_page_gets_a_note_of_its_own(hub_pages, tmp_path):
    vault, truth, where = hub_pages
    copy = tmp_path / "vault"
    shutil.copytree(vault, copy)
    report = json.loads(run(copy, "dream", "--embedder", "hashing", "--json").stdout)
    assert report["materials"] and len(report["outcomes"]) == len(where)  # one unit per page
    notes = {p.relative_to(copy).as_posix(): parse(p.read_text("utf-8"), p.name)
             for p in (copy / "digest").rglob("*.md")}
    cites = {path: [lk.target for lk in parse_links(n.body) if lk.predicate == "derived_from"]
             for path, n in notes.items()}
    twin = {where[p] for p in truth.duplicates[0]}
    fork = {where[p] for p in truth.distinct_twins[0]}
    assert len(notes) == len(where) - 1  # one note per page; the page listed twice shares one
    assert max(len(c) for c in cites.values()) == 2  # no note gathers unrelated plugins
    assert [set(c) for c in cites.values() if len(c) > 1] == [twin]
    assert sum(1 for c in cites.values() for m in c if m in fork) == 2  # the fork: a note of its own
    for path, note in notes.items():
        page = (copy / cites[path][0]).read_text("utf-8")
        name = page.split("\n# ", 1)[1].split("\n", 1)[0]
        assert path.startswith("digest/wiki/") and note.name.startswith(slugify(name))  # named by the plugin
        description = note.description or ""
        assert description and description in page and "Plugin ID" not in description
        repository = page.split("[GitHub repository](", 1)[1].split(")", 1)[0]
        assert repository in note.body  # the values it filled in are kept


def test_a_dry_run_of_template_pages_says_what_the_run_does(hub_pages, tmp_path):
    vault, _, _ = hub_pages
    copy = tmp_path / "vault"
    shutil.copytree(vault, copy)
    dry = json.loads(run(copy, "dream", "--embedder", "hashing", "--dry-run", "--json").stdout)
    assert not any((copy / "digest").rglob("*.md"))
    real = json.loads(run(copy, "dream", "--embedder", "hashing", "--json").stdout)
    counts = [Counter((o["action"], o["flavor"]) for o in r["outcomes"]) for r in (dry, real)]
    assert counts[0] == counts[1] and counts[1][("UPDATE", "CORROBORATE")] == 1


def test_boilerplate_words_split_cjk_by_the_textrules_rule():
    """boilerplate's fast search for CJK is read from `textrules.is_cjk`, not a copy of its
    ranges: every character the rule calls CJK is a word of its own, and no other is."""
    from reme_workbench.dream.boilerplate import _CJK, words
    from reme_workbench.textrules import is_cjk

    every = [chr(c) for c in range(0x10000)]
    assert [ch for ch in every if _CJK.fullmatch(ch)] == [ch for ch in every if is_cjk(ch)]
    assert words("Plugin ID: 插件abc-def，見") == ["plugin", "id", "插", "件", "abc", "def", "見"]
