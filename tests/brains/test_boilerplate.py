"""Boilerplate: the phrases a material file shares with most material of its folder, layer
or run (a template's lines and field labels), found from the material itself."""

from __future__ import annotations

from reme_workbench.dream.boilerplate import (
    BOILERPLATE_MIN_FILES,
    GROUP_SAMPLE,
    Boilerplate,
    phrases_of,
    shared_phrases,
    words,
)


def page(name: str, author: str, says: str) -> str:
    """A page of one template: a comment, fixed lines, field labels with this page's values."""
    return (f"%% ----- Do not edit this section ----- %%\n\n# {name}\n\n"
            f"Plugin ID: `{name.lower()}`\n"
            f"Links: [GitHub repository](https://github.com/{author}/{name.lower()}) or "
            f"[<button>Open in Obsidian</button>](obsidian://show-plugin?id={name.lower()})\n"
            f"Developed by: [[{author}]]\n\n{says}\n\n"
            "# This note in GitHub\n\n<span>[Edit In GitHub](https://x) | [Copy this note](https://y)</span>\n")


NAMES = ["Kroki", "Dataview", "Calendar", "Templater", "Kanban", "Outliner", "Tracker", "Banners"]
SAYS = ["Render Kroki diagrams.", "Complex data views for the data-obsessed.",
        "Calendar view of your daily notes.", "Create and use templates.",
        "Markdown-backed Kanban boards.", "Work with your lists like in Workflowy.",
        "Track occurrences and numbers in your notes.", "Add banners to your notes."]


def pages(n: int, folder: str = "resource/2022-03-01") -> dict[str, str]:
    return {f"{folder}/{name.lower()}.md": page(name, f"dev{i}", says)
            for i, (name, says) in enumerate(zip(NAMES[:n], SAYS[:n], strict=True))}


def test_a_templates_lines_and_field_labels_are_boilerplate_and_its_values_are_not():
    bodies = pages(8)
    shared = shared_phrases(bodies, bodies, bodies.get)
    found = set(shared["resource/2022-03-01/kroki.md"])
    assert {"plugin id", "developed by", "links github repository or open in obsidian",
            "this note in github", "edit in github copy this note"} <= found
    # a value, the page's own sentence, a comment: never boilerplate
    assert not any("kroki" in p or "render" in p or "edit this section" in p for p in found)


def test_a_comment_is_not_read_as_a_line():
    found = phrases_of(page("Kroki", "dev", "Render Kroki diagrams."))
    assert not any("section" in p for p in found)  # "%% ----- Do not edit this section ----- %%"
    assert ("render", "kroki", "diagrams") in found


def test_a_template_must_repeat_over_enough_files():
    few = pages(BOILERPLATE_MIN_FILES - 1)
    assert all(v == () for v in shared_phrases(few, few, few.get).values())
    # two logs about one incident share their words: a topic, not a template
    logs = {f"daily/2026-10-0{i}/incident.md": "Root cause: the pgbouncer pool was exhausted.\n"
            for i in (1, 2)}
    assert all(v == () for v in shared_phrases(logs, logs, logs.get).values())


def test_a_phrase_in_a_few_of_many_files_is_not_boilerplate():
    bodies = pages(8)
    for path in list(bodies)[:3]:
        bodies[path] += "\nSponsored by: the community fund\n"
    shared = shared_phrases(bodies, bodies, bodies.get)
    assert not any("sponsored by" in p for v in shared.values() for p in v)


def test_the_folder_counts_for_a_page_dreamt_alone_and_the_run_for_pages_in_many_folders():
    bodies = pages(8)
    alone = "resource/2022-03-01/kanban.md"
    assert "plugin id" in shared_phrases(bodies, {alone: bodies[alone]}, bodies.get)[alone]  # its folder
    spread = {f"resource/2022-03-0{i}/{p.rsplit('/', 1)[1]}": t
              for i, (p, t) in enumerate(pages(8).items(), 1)}
    daily = {f"daily/2022-03-0{i}/log.md": f"Worked on item {i} today." for i in range(1, 9)}
    every = {**spread, **daily}
    shared = shared_phrases(every, spread, every.get)
    assert all("plugin id" in shared[p] for p in spread)  # the run (and the layer) knows it


def test_a_large_group_is_counted_on_a_sample():
    """One new page in a layer of 1,000 template pages: the template is found, and at most
    GROUP_SAMPLE other pages are read for it."""
    layer = {f"resource/2022-{i % 12 + 1:02d}-01/p{i}.md": page(f"P{i}", f"dev{i}", f"Does thing {i}.")
             for i in range(1000)}
    new = "resource/2023-01-01/kroki.md"
    read: list[str] = []

    def reader(path: str) -> str | None:
        read.append(path)
        return layer.get(path)

    shared = shared_phrases([*layer, new], {new: page("Kroki", "g", "Render Kroki diagrams.")}, reader)
    assert "plugin id" in shared[new] and "developed by" in shared[new]
    assert len(set(read)) <= GROUP_SAMPLE


def test_strip_leaves_a_page_its_own_words_and_a_note_its_links():
    bp = Boilerplate(("plugin id", "developed by", "links github repository or open in obsidian"))
    line = ("Plugin ID: `obsidian-kroki` Links: [GitHub repository](https://github.com/g/k) or "
            "[Open in Obsidian](obsidian://x) Developed by: gregzuro")
    assert bp.strip(line) == "obsidian-kroki gregzuro"
    assert bp.is_template(line) and bp.share(line) == 11 / 13  # all but the two values
    kept = "derived_from:: [[resource/2022-03-01/kroki.md]]\n- [[digest/wiki/plugin-id.md]]\nRender diagrams."
    assert bp.strip(kept) == kept  # provenance, link-only lines and untouched lines as they are
    assert not Boilerplate().is_template(line) and Boilerplate().strip(line) == line


def test_words_keep_identifiers_whole_and_read_chinese_by_character():
    assert words("Plugin ID: obsidian-kroki, x_y 插件ID") == [
        "plugin", "id", "obsidian-kroki", "x_y", "插", "件", "id"]
