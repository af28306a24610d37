"""Template-built notes: a community wiki's plugin pages, one template, other values.

What issue #20's real vault was made of, planted so merge can be measured on it: every
plugin page is the same badges, `%% … %%` comments, field labels, heading and footer,
with its own plugin id, name, developer, repository and one-line description; category
pages ("Plugins for Diagrams") list their plugins with short links `[[id|Name]]`, as
Obsidian writes them; each developer has a page listing theirs; a page for the mobile
plugins. Pages carry no `name` or `description` field (the wiki's do not), and each
derives from an import log of its category (`daily/<start>/hub-import-<category>.md`).

Planted among them (`plan_templated`):

* **duplicates** — one plugin listed twice under two file names (`<id>.md` and
  `<name>.md`): the same id, repository, developer and template; half of the second
  copies word the description otherwise. The two copies are listed on different
  category pages, so the link graph puts them in different communities.
* **near misses** — a fork: the same name and description on the same category page,
  but another developer, repository and id. Never a merge.

Every other pair of plugin pages is distinct too: different plugins that share the
template (the issue's Fusion / Ion, Cupertino / Sei). Drawn from the generator's own
random stream (`<seed>-templated`), so a vault without template-built notes is the same
bytes as before.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date

from reme_workbench.errors import RemeError
from reme_workbench.vault.slug import slugify

__all__ = ["Plugin", "TemplatedPlan", "plan_templated", "plugin_page", "pages_for"]

_FIRST = ("Quick Smart Better Advanced Simple Auto Daily Local Live Hidden Linked Zen Pretty "
          "Minimal Focus Easy Power Instant Rich Clean").split()
_SECOND = ("Kroki Fusion Ion Sei Cupertino Opener Tabs Switcher Outline Calendar Kanban Graph "
           "Tags Canvas Templates Sync Export Publish Search Charts Diagrams Timeline Footnotes "
           "Snippets Reminders Tasks Mermaid Citations Icons Folders Backlinks Highlights "
           "Dictionary Translator Bookmarks Quotes Flashcards Habits Math Tables").split()
_THIRD = ("", "", "", "Plus", "Helper", "Tools", "Pro", "Lite", "Suite", "Kit")
_VERBS = ("Render", "Add", "Show", "Sync", "Export", "Sort", "Insert", "Open", "Track", "Find")
_OBJECTS = ("diagrams", "tabs", "tags", "daily notes", "tasks", "citations", "footnotes",
            "icons", "charts", "highlights", "bookmarks", "flashcards", "tables", "quotes")
_PLACES = ("in your notes", "in the sidebar", "from the command palette", "in reading view",
           "with one hotkey", "on the canvas", "in the status bar", "across the vault")
_CATEGORIES = ("Diagrams", "Editing", "Tasks", "Publishing", "Appearance", "Navigation",
               "Search", "Sync", "Writing", "Research", "Daily notes", "Tables")
_SYLLABLES = "ka lo mi ren tor vel sa qu zen bri dal fen gor hal ist jun kor lum mar nor".split()
IMPORT_DAY = "hub-import"


@dataclass(frozen=True)
class Plugin:
    id: str
    name: str
    owner: str
    description: str
    mobile: bool
    path: str  # digest/wiki/<file>.md
    category: int

    @property
    def repository(self) -> str:
        return f"github.com/{self.owner}/{self.id}"


def plugin_page(p: Plugin, source: str) -> str:
    """The wiki's plugin page for `p`, word for word but the values (see the module doc)."""
    shield = "?color=573E7A&logo=github&style=for-the-badge"
    mobile = "[[mobile-compatible-plugins|Yes]]" if p.mobile else "No"
    footer = f"https://github.dev/obsidian-community/obsidian-hub/blob/main/01%20-%20Community/Plugins/{p.id}.md"
    return (
        f"---\nplugin-id: {p.id}\naliases:\n- {p.name}\ntags:\n-\npublish: true\n---\n\n"
        "%% ----- Badges ----- %%\n\n"
        f"![GitHub all releases](https://img.shields.io/github/downloads/{p.owner}/{p.id}/total{shield})\n"
        f"![GitHub manifest version](https://img.shields.io/github/manifest-json/v/{p.owner}/{p.id}{shield})\n"
        f"![GitHub Repo stars](https://img.shields.io/github/stars/{p.owner}/{p.id}{shield})\n\n"
        "%% ----- Badges ----- %%\n\n"
        "%% ----- Do not edit this section ----- %%\n\n"
        f"# {p.name}\n\n"
        f"Plugin ID: `{p.id}`\n"
        f"Links: [GitHub repository](https://{p.repository}) or [<button id=HH>Open in "
        f"Obsidian</button>](obsidian://show-plugin?id={p.id})\n"
        f"Developed by: [[{p.owner}]]\n"
        f"Mobile compatible: {mobile}\n\n"
        f"{p.description}\n\n"
        "%% ----- Do not edit anything above this line ----- %%\n\n"
        "%% Hub footer: Please don't edit anything below this line %%\n\n"
        "# This note in GitHub\n\n"
        f'<span class="git-footer">[Edit In GitHub]({footer}) | [Copy this note]({footer}) | '
        "[Download this vault](https://github.com/obsidian-community/obsidian-hub/archive/refs/"
        "heads/main.zip) </span>\n\n"
        f"derived_from:: [[{source}]]\n"
    )


def _list_page(title: str, intro: str, plugins: list[Plugin], source: str) -> str:
    items = "".join(f"- [[{p.path.rsplit('/', 1)[1].removesuffix('.md')}|{p.name}]]\n"
                    for p in plugins)
    return (f"---\ntags:\n- MOC\npublish: true\n---\n\n# {title}\n\n{intro}\n\n{items}\n"
            "%% Hub footer: Please don't edit anything below this line %%\n\n"
            f"derived_from:: [[{source}]]\n")


@dataclass(frozen=True)
class TemplatedPlan:
    """The pages to write ({path: text}), their planted communities, the planted pairs
    (`duplicates`: (a, b, reworded, categories differ); `near_misses`: (a, b)), the import
    logs ({path: text}) and the categories (community -> title)."""

    pages: tuple[tuple[str, str], ...]
    communities: tuple[tuple[str, int], ...]
    plugins: tuple[Plugin, ...]
    duplicates: tuple[tuple[str, str, bool, bool], ...]
    near_misses: tuple[tuple[str, str], ...]
    logs: tuple[tuple[str, str], ...]
    categories: tuple[tuple[int, str], ...]


def pages_for(plugins: int) -> int:
    """How many files `plugins` plugin pages come with: category pages, developer pages
    (one per developer, about one per 3 plugins) and the mobile page."""
    return plugins + _category_count(plugins) + _owner_count(plugins) + 1


def _category_count(plugins: int) -> int:
    return min(len(_CATEGORIES), max(2, math.ceil(plugins / 40)))


def _owner_count(plugins: int) -> int:
    return max(1, math.ceil(plugins / 3))


def plan_templated(plugins: int, duplicates: int, near_misses: int, *, seed: int,
                   first_community: int, start: date, taken: set[str]) -> TemplatedPlan:
    """`plugins` plugin pages (planted pairs included) and their lists (see the module doc).
    Paths in `taken` are avoided and the new ones added to it."""
    if 2 * (duplicates + near_misses) > plugins:
        raise RemeError(f"{duplicates} duplicate and {near_misses} near-miss plugin pairs need "
                        f"{2 * (duplicates + near_misses)} plugin pages; ask for more templated "
                        "notes or fewer pairs.")
    rng = random.Random(f"{seed}-templated")
    categories = _category_count(plugins)
    names = [" ".join(w for w in (a, b, c) if w)
             for a in _FIRST for b in _SECOND for c in _THIRD]
    names = list(dict.fromkeys(names))
    if plugins > len(names):
        raise RemeError(f"The generator has {len(names)} plugin names; ask for at most that "
                        "many templated notes.")
    rng.shuffle(names)
    owners = _owners(rng, _owner_count(plugins), taken)

    def free(stem: str) -> str:
        slug = base = slugify(stem)
        for k in range(2, 1000):
            if f"wiki/{slug}" not in taken:
                break
            slug = f"{base}-{k}"
        taken.add(f"wiki/{slug}")
        return f"digest/wiki/{slug}.md"

    def description() -> str:
        return f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_PLACES)}."

    made: list[Plugin] = []
    singles = plugins - 2 * (duplicates + near_misses)
    units = ["single"] * singles + ["duplicate"] * duplicates + ["near_miss"] * near_misses
    rng.shuffle(units)
    dups, near = [], []
    for i, unit in enumerate(units):
        name = names.pop()
        pid = slugify(name) if rng.random() < 0.5 else f"obsidian-{slugify(name)}"
        owner = owners[i] if i < len(owners) else rng.choice(owners)  # each has a plugin
        original = Plugin(pid, name, owner, description(), rng.random() < 0.6,
                          free(pid), rng.randrange(categories))
        made.append(original)
        if unit == "duplicate":
            reworded = rng.random() < 0.5
            other = rng.choice([c for c in range(categories) if c != original.category])
            twin = Plugin(pid, name, original.owner,
                          description() if reworded else original.description,
                          original.mobile, free(name), other)
            made.append(twin)
            dups.append((original.path, twin.path, reworded, True))
        elif unit == "near_miss":
            owner = rng.choice([o for o in owners if o != original.owner] or owners)
            fork = Plugin(f"{slugify(name)}-{owner}", name, owner, original.description,
                          original.mobile, free(f"{slugify(name)}-{owner}"), original.category)
            made.append(fork)
            near.append((original.path, fork.path))
    titles = [_CATEGORIES[k] for k in range(categories)]
    logs = {k: f"daily/{start.isoformat()}/{IMPORT_DAY}-{slugify(t)}.md" for k, t in enumerate(titles)}
    pages: dict[str, str] = {}
    community: dict[str, int] = {}
    for p in made:
        pages[p.path] = plugin_page(p, logs[p.category])
        community[p.path] = first_community + p.category
    for k, title in enumerate(titles):
        path = free(f"plugins for {title}")
        members = sorted((p for p in made if p.category == k), key=lambda p: p.name)
        pages[path] = _list_page(f"Plugins for {title}", f"Community plugins for {title.lower()}.",
                                 members, logs[k])
        community[path] = first_community + k
    for owner in owners:
        theirs = sorted((p for p in made if p.owner == owner), key=lambda p: p.path)
        if not theirs:
            continue
        path = f"digest/wiki/{owner}.md"
        pages[path] = _list_page(owner, f"Links: [GitHub profile](https://github.com/{owner})\n\n"
                                 "## Plugins", theirs, logs[theirs[0].category])
        community[path] = first_community + theirs[0].category
    path = "digest/wiki/mobile-compatible-plugins.md"  # the pages link it; it lists none
    taken.add("wiki/mobile-compatible-plugins")
    pages[path] = _list_page("Mobile-compatible plugins", "Plugins that work on phones and "
                             "tablets (the wiki lists them with a query).", [], logs[0])
    community[path] = first_community
    log_text = {
        logs[k]: (f"---\nname: {logs[k].rsplit('/', 1)[1].removesuffix('.md')}\ndescription: "
                  f"\"Imported the hub's {title} plugin pages.\"\ndate: {start.isoformat()}\n---\n\n"
                  f"## Task\n\nImport the community hub's plugin pages for {title.lower()}.\n")
        for k, title in enumerate(titles)}
    return TemplatedPlan(tuple(sorted(pages.items())), tuple(sorted(community.items())),
                         tuple(made), tuple(dups), tuple(near), tuple(sorted(log_text.items())),
                         tuple((first_community + k, t) for k, t in enumerate(titles)))


def _owners(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < count:
        handle = "".join(rng.sample(_SYLLABLES, rng.randint(2, 3)))
        if rng.random() < 0.3:
            handle += str(rng.randint(1, 99))
        if handle in seen or f"wiki/{handle}" in taken:
            continue
        seen.add(handle)
        taken.add(f"wiki/{handle}")
        out.append(handle)
    return out
