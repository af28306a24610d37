"""A vault shaped like a public Obsidian community wiki, as a person would bring it.

Real vaults are not what a generator of atomic notes writes: hundreds of pages are filled
in from one template (badges, "Plugin ID:", "Developed by:", a footer), category pages
list them with short links (`[[plugin-id|Name]]`), author pages link back, every page
links the same few pages (`[[Mobile-compatible plugins|Yes]]`), files keep the times
they had years ago, an embed names an image nobody committed, one plugin is listed
twice under two page names, and a few pages are long. `write_hub_vault` writes such a
folder (an Obsidian vault, not a reme vault: it is what `reme-workbench import` takes)
and returns the truth the tests and benchmarks check against.

The pages follow the shape of the obsidian-community/obsidian-hub template; every name,
author, repository and sentence is generated here.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HubVaultTruth", "write_hub_vault", "OLD_MTIME"]

OLD_MTIME = 1_654_041_600  # 2022-06-01: the file times of a vault brought from elsewhere

# category -> (page title, words its plugins' one-line descriptions are made of)
_CATEGORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "tasks": ("Task management plugins", (
        "tasks", "todo", "checklist", "due dates", "recurring tasks", "priorities", "kanban board")),
    "diagrams": ("Plugins for Diagrams", (
        "diagrams", "flowcharts", "sequence diagrams", "UML", "drawing canvas", "sketches")),
    "daily": ("Plugins for daily notes", (
        "daily notes", "journal", "periodic notes", "weekly review", "calendar view")),
    "vim": ("Vim-related Plugins", (
        "vim keybindings", "modal editing", "vimrc", "motions", "relative line numbers")),
    "images": ("Plugins to handle images", (
        "images", "image captions", "image resizing", "paste images", "image gallery")),
    "publish": ("Plugins for web publishing", (
        "publish to web", "static site", "blog posts", "export html", "GitHub pages")),
    "srs": ("Spaced Repetition Plugins", (
        "flashcards", "spaced repetition", "review queue", "Anki sync", "cloze deletions")),
    "tables": ("Plugins for tables", (
        "tables", "spreadsheet", "CSV files", "table formatting", "column sorting")),
}
_VERBS = ("Adds", "Manage", "Create", "Render", "Sync", "Browse", "Organise", "Edit", "Track", "Show")
_ADJ = ("simple", "fast", "minimal", "smart", "quick", "advanced", "tiny", "better", "modern")
_NOUNS = ("Nova", "Atlas", "Pine", "Quill", "Ember", "Harbor", "Lumen", "Orbit", "Sprout", "Vector",
          "Willow", "Cobalt", "Drift", "Fable", "Glyph", "Halo", "Iris", "Juniper", "Kite", "Lark")
_PEOPLE = ("mara-lind", "tobiasw", "kenji-o", "priyacodes", "lfrei", "dnovak", "sam-ayo", "zhaoyu",
           "elenap", "rgarcia", "hannah-k", "oyelaran", "mikko-v", "jsilva", "abeltran", "nkim")


@dataclass(frozen=True)
class HubVaultTruth:
    plugins: dict[str, str]  # page path -> its category key ("" for uncategorised)
    categories: dict[str, str]  # category key -> its page path
    duplicates: tuple[tuple[str, str], ...]  # page paths that describe one item
    distinct_twins: tuple[tuple[str, str], ...]  # same name and template, other repository
    long_pages: tuple[str, ...]  # pages over the split threshold
    missing_embeds: tuple[tuple[str, str], ...]  # (page path, the embed as written)
    attachments: tuple[str, ...]
    links: int  # wikilinks written (embeds included), for "no link lost" checks


def _badges(author: str, pid: str) -> str:
    shields = "https://img.shields.io/github"
    style = "color=573E7A&logo=github&style=for-the-badge"
    return "\n".join([
        f"![GitHub all releases]({shields}/downloads/{author}/{pid}/total?{style})   ",
        f"![GitHub manifest version]({shields}/manifest-json/v/{author}/{pid}?{style})   ",
        f"![GitHub issues by-label]({shields}/issues/{author}/{pid}/help%20wanted?{style})   ",
        f"![GitHub Repo stars]({shields}/stars/{author}/{pid}?{style})",
    ])


def _footer(kind: str, page: str) -> str:
    url = f"https://github.com/obsidian-community/obsidian-hub/blob/main/{kind}/{page}.md"
    return ("%% Hub footer: Please don't edit anything below this line %%\n\n"
            "# This note in GitHub\n\n"
            f'<span class="git-footer">[Edit In GitHub]({url} "git-hub-edit-note") | '
            f'[Copy this note]({url} "git-hub-copy-note") | '
            '[Download this vault](https://github.com/obsidian-community/obsidian-hub/archive/'
            'refs/heads/main.zip "git-hub-download-vault") </span>\n')


def _plugin_page(pid: str, name: str, author: str, repo_owner: str, description: str,
                 mobile: bool, extra: str = "") -> str:
    mobile_line = "[[Mobile-compatible plugins|Yes]]" if mobile else "No"
    return (f"---\nplugin-id: {pid}\naliases:\n- {name}\ntags: \n- \npublish: true\n---\n\n"
            f"%% ----- Badges ----- %%\n\n{_badges(repo_owner, pid)}\n\n%% ----- Badges ----- %%\n\n"
            "%% ----- Do not edit this section ----- %%\n\n"
            f"# {name}\n\n"
            f"Plugin ID: `{pid}`\n"
            f"Links: [GitHub repository](https://github.com/{repo_owner}/{pid}) or "
            f"[<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id={pid})\n"
            f"Developed by: [[{author}]]\n"
            f"Mobile compatible: {mobile_line}\n\n"
            f"{description}\n\n"
            "%% ----- Do not edit anything above this line ----- %% \n\n"
            f"{extra}"
            "%% Does the repository or author have any sponsoring links? Uncomment the next "
            "line and add them to the author's note. %%\n"
            f"%% ![[{author}#Sponsor this author]] %%\n\n"
            + _footer("02 - Community Expansions/Plugins", pid))


def _theme_page(name: str, author: str, modes: str) -> str:
    return (f"---\naliases:\n- {name}\ntags: \n- \npublish: true\n---\n\n"
            "%% ----- Do not edit this section ----- %%\n\n"
            f"# {name}\n\nDesigned by: [[{author}]]\nModes: {modes}\n"
            f"Repository: https://github.com/{author}/{name.lower().replace(' ', '-')}\n\n"
            "%% ----- Do not edit anything above this line ----- %%\n\n"
            + _footer("02 - Community Expansions/Themes", name))


_GUIDE = (
    ("Settings", "Every plugin gets a settings tab. Keep defaults safe: a toggle that deletes "
     "files starts off. Store the values with loadData and saveData; migrate old keys when "
     "the shape changes, and never write the settings file on every keystroke."),
    ("Commands", "Register commands with addCommand and a stable id: people bind hotkeys to "
     "it. An editorCallback runs only with an open editor; checkCallback hides a command "
     "that cannot run. Name commands by what they do, verb first."),
    ("Mobile", "The mobile app has no Node.js and no Electron: fs, path and child_process "
     "are missing, and isDesktopOnly in the manifest says so. Touch targets need 44 pixels; "
     "hover menus do not exist on a phone."),
    ("Releases", "A release is a GitHub tag equal to the version in manifest.json, with "
     "main.js, manifest.json and styles.css attached. Bump minAppVersion when you use a new "
     "API, and keep versions.json mapping plugin versions to app versions."),
    ("Styling", "Use the app's CSS variables (--background-primary, --text-muted) instead of "
     "colours, so dark and light themes both work. Scope selectors under your plugin's class "
     "and never style the editor globally."),
    ("Testing", "Keep a throwaway vault with sample notes for manual tests; open it with "
     "the community plugin enabled and the developer console showing. Reload with the hot "
     "reload plugin; test on a vault of ten thousand notes before you ship."),
    ("Review", "Submitting to the community list is a pull request to obsidian-releases "
     "adding one entry to community-plugins.json. Reviewers check the manifest, the "
     "license, innerHTML use and network calls; answer them in the same pull request."),
)


def _long_guide(rng: random.Random, title: str, sections: int, lines: int = 24) -> str:
    """A long page of loosely related sections, each with its own words (what a person's
    guide looks like), well over the split threshold."""
    out = [f"# {title}", ""]
    for topic, text in _GUIDE[:sections]:
        out += [f"## {topic}", ""]
        sentences = [s.strip() + "." for s in text.split(".") if s.strip()]
        for i in range(lines):  # the same advice, worded around each step of the work
            lead = rng.choice(["First", "Then", "Also", "Remember", "In practice", "Before a release"])
            out.append(f"{lead}, {sentences[i % len(sentences)][0].lower()}"
                       f"{sentences[i % len(sentences)][1:]}")
        out.append("")
    return "\n".join(out) + "\n"


def write_hub_vault(root: Path, *, plugins: int = 240, themes: int = 24, seed: int = 7
                    ) -> HubVaultTruth:
    """Write the vault under `root` (created; must not exist or be empty) and return its truth."""
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; give a new folder for the hub vault.")
    rng = random.Random(seed)
    files: dict[str, str | bytes] = {}
    plugin_dir, people_dir = "Plugins", "People"
    cat_dir, theme_dir = "Plugins by Category", "Themes"
    keys = list(_CATEGORIES)
    by_category: dict[str, list[tuple[str, str]]] = {k: [] for k in keys}
    by_author: dict[str, list[tuple[str, str]]] = {}
    truth_plugins: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    names: set[str] = set()
    # most authors publish one plugin, a few several (as on the real list)
    people = [f"{rng.choice(_PEOPLE)}{n}" if n else p for n in range(max(1, plugins * 2 // 3 // len(_PEOPLE)) + 1)
              for p in _PEOPLE]
    for i in range(plugins):
        key = keys[i % len(keys)] if i % 9 else ""  # every ninth one is uncategorised
        words = _CATEGORIES[key or keys[i % len(keys)]][1]
        while True:
            name = f"{rng.choice(_NOUNS)} {rng.choice(words).split()[0].capitalize()}"
            if name not in names:
                break
            name = f"{rng.choice(_ADJ).capitalize()} {name}"
            if name not in names:
                break
        names.add(name)
        pid = "obsidian-" + name.lower().replace(" ", "-")
        author = rng.choice(people)
        desc = (f"{rng.choice(_VERBS)} {rng.choice(words)} with {rng.choice(words)}"
                f"{rng.choice(['', ' in one view', ' from the sidebar', ' for every note'])}.")
        path = f"{plugin_dir}/{pid}.md"
        descriptions[path] = desc
        files[path] = _plugin_page(pid, name, author, author, desc, mobile=rng.random() < 0.6)
        truth_plugins[path] = key
        if key:
            by_category[key].append((pid, name))
        by_author.setdefault(author, []).append((pid, name))

    # one plugin listed twice under two page names (same repository), in two categories;
    # and a near twin: the same name and template, another author's repository
    first = next(p for p, k in truth_plugins.items() if k == "diagrams")
    text = files[first]
    assert isinstance(text, str)
    pid = first.removeprefix(f"{plugin_dir}/").removesuffix(".md")
    twin_id = pid.removeprefix("obsidian-") + "-plugin"
    twin = f"{plugin_dir}/{twin_id}.md"
    files[twin] = text.replace(f"plugin-id: {pid}", f"plugin-id: {pid}").replace(
        "%% ----- Do not edit anything above this line ----- %% \n\n",
        "%% ----- Do not edit anything above this line ----- %% \n\n"
        "Listed again when the plugin moved to its new page.\n\n").replace(
        f"{plugin_dir}/{pid}", f"{plugin_dir}/{twin_id}")
    truth_plugins[twin] = "publish"
    name = next(n for p, n in by_category["diagrams"] if p == pid)
    by_category["publish"].append((twin_id, name))
    other = next(p for p, k in truth_plugins.items() if k == "tasks")
    other_id = other.removeprefix(f"{plugin_dir}/").removesuffix(".md")
    other_name = next(n for p, n in by_category["tasks"] if p == other_id)
    fork_id = other_id + "-fork"
    fork = f"{plugin_dir}/{fork_id}.md"
    fork_author = next(a for a in _PEOPLE if a not in files[other])  # type: ignore[operator]
    files[fork] = _plugin_page(fork_id, other_name, fork_author, fork_author, descriptions[other],
                               mobile=True)
    truth_plugins[fork] = "tasks"
    by_category["tasks"].append((fork_id, other_name))
    by_author.setdefault(fork_author, []).append((fork_id, other_name))

    categories: dict[str, str] = {}
    for key, (title, _) in _CATEGORIES.items():
        page = f"{cat_dir}/{title}.md"
        categories[key] = page
        items = "\n".join(f"- [[{p}|{n}]]" for p, n in by_category[key])
        files[page] = (f"---\naliases:\n- \ntags: \n- seedling \npublish: true\n---\n\n\n# {title}\n\n"
                       f"Plugins about {_CATEGORIES[key][1][0]}.\n\n## Plugins in this category\n\n"
                       "%% Add a bullet here and link to the plugins you'd like to categorize! %%\n\n"
                       f"{items}\n\n## Related categories\n\n#placeholder/notes\n")
    for author, made in sorted(by_author.items()):
        items = "\n".join(f"- [[{p}|{n}]]" for p, n in made)
        files[f"{people_dir}/{author}.md"] = (
            f"---\naliases: []\ntags: \n- people\npublish: true\n---\n\n# {author}\n\n"
            f"## Plugins\n\n{items}\n\n## Sponsor this author\n\n- GitHub: [{author}]"
            f"(https://github.com/sponsors/{author})\n")
    mobile = [p for p, t in files.items() if isinstance(t, str) and "[[Mobile-compatible plugins|" in t]
    files[f"{cat_dir}/Mobile-compatible plugins.md"] = (
        "# Mobile-compatible plugins\n\nPlugins that run in the mobile app. Each plugin page "
        f"links here; {len(mobile)} do.\n")

    theme_names = [f"{rng.choice(_NOUNS)} {rng.choice(['Dark', 'Light', 'Minimal', 'Paper', 'Night'])}"
                   for _ in range(themes)]
    theme_names = list(dict.fromkeys(theme_names))
    for name in theme_names:
        files[f"{theme_dir}/{name}.md"] = _theme_page(name, rng.choice(_PEOPLE),
                                                     rng.choice(["dark", "light", "dark and light"]))
    theme_twin = (f"{theme_dir}/{theme_names[0]}.md", f"{theme_dir}/{theme_names[0]} Theme.md")
    files[theme_twin[1]] = files[theme_twin[0]]
    files[f"{theme_dir}/All themes.md"] = "# All themes\n\n" + "\n".join(
        f"- [[{n}]]" for n in theme_names) + "\n"

    # long pages, embeds: one image that is there, one that is not, one odd one
    guide = "Plugin developer guide.md"
    files[guide] = _long_guide(rng, "Plugin developer guide", 7) + (
        "\nSee [[Task management plugins]] and [[Plugins for Diagrams]].\n![[banner.png]]\n")
    overview = f"{cat_dir}/Plugins by Category.md"
    files[overview] = _long_guide(rng, "Plugins by Category", 4, 30) + "\n" + "\n".join(
        f"- [[{title}]]" for title, _ in _CATEGORIES.values()) + "\n"
    files["attachments/banner.png"] = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(64))
    diag = categories["diagrams"]
    files[diag] = str(files[diag]) + "\n![[diagram.png]]\n"
    files[overview] = str(files[overview]) + "\n![[*.jpg|L]]\n"

    links = 0
    for rel, content in files.items():
        full = root / rel
        full.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            full.write_bytes(content)
        else:
            full.write_text(content, encoding="utf-8")
            links += _count_links(content)
    for path in root.rglob("*"):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    return HubVaultTruth(
        plugins=truth_plugins, categories=categories, duplicates=((first, twin), theme_twin),
        distinct_twins=((other, fork),), long_pages=(guide, overview),
        missing_embeds=((diag, "![[diagram.png]]"), (overview, "![[*.jpg|L]]")),
        attachments=("attachments/banner.png",), links=links)


def _count_links(text: str) -> int:
    from reme_workbench.vault.links import parse_links

    return len(parse_links(text))
