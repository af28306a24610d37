"""A link-form corpus: a small vault in which one note, `TARGET`, is linked in every form
Obsidian resolves to it (docs/spec.md §2.4), from digest notes and daily logs, next to
links that only look alike; and the checks a rewrite of those links must pass.

Not a test module: rename tests (tests/vault/test_rename_link_forms.py) and merge tests
import it. Build the vault with `make_vault(corpus_files())` (tests/conftest.py), take
`link_table(root)` before the change, make the change, then call
`assert_links_follow(before, root, moved={old: new})`: every link that resolved to the
old note resolves to the new one, keeping alias, anchor, embed mark and predicate; every
other link resolves where it did; and no byte changed outside the rewritten targets
(the moved note's frontmatter `name` aside).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from reme_workbench.vault.frontmatter import find_frontmatter
from reme_workbench.vault.links import Link, parse_links
from reme_workbench.vault.resolve import LinkResolver

TARGET = "digest/wiki/alpha-note.md"
LOG = "daily/2026-10-05/log.md"
PROV = f"derived_from:: [[{LOG}]]\n"

# The target itself: its own relative, short and self links, which must still point
# where they pointed once it moves (to another folder too).
TARGET_TEXT = (
    "---\nname: alpha-note\ndescription: The note every form links to.\n---\n"
    "# Heading One\n\n"
    "Alpha. Next to [[./sibling]] and [[./sibling.md#Part|the sibling]], across to "
    "[[../personal/pers-note]] and ![[../../resource/2026-10-01/fig.png]].\n"
    "Short [[sibling]], a path [[digest/personal/pers-note.md]], itself [[alpha-note#Heading One]], "
    "[[./alpha-note|me]] and [[#Heading One]]; one still to write: [[./not-yet]].\n"
    "A block. ^blk1\n\n"
    + PROV
)

# Every form of a link to TARGET, each on its own line so failures name the form.
FORMS = (
    "[[alpha-note]]",
    "[[Alpha-Note]]",
    "[[ALPHA-NOTE.md]]",
    "[[alpha-note.md]]",
    "[[digest/wiki/alpha-note]]",
    "[[digest/wiki/alpha-note.md]]",
    "[[Digest/Wiki/Alpha-Note.md]]",
    "[[DIGEST/WIKI/ALPHA-NOTE]]",
    "[[/digest/wiki/alpha-note.md]]",
    "[[wiki/alpha-note]]",
    "[[./alpha-note]]",
    "[[../wiki/alpha-note]]",
    "[[alpha-note#Heading One]]",
    "[[alpha-note|the alpha]]",
    "[[alpha-note#Heading One|the alpha]]",
    "[[ alpha-note | spaced ]]",
    "![[alpha-note]]",
    "![[alpha-note#Heading One]]",
    "[[alpha-note#^blk1]]",
    "![[alpha-note#^blk1|300]]",
    "rel:: [[alpha-note]] and [[Alpha-Note#Heading One]]",
    "- [see_also:: [[alpha-note|A]]] and (is_a:: [[digest/wiki/alpha-note]])",
    "| cell | [[alpha-note\\|in a table]] |",
)
# Links that look alike but do not resolve to TARGET, and links a rename must not read.
DECOYS = (
    "Not it: [[alpha-note-2]], [[alpha]], [[sibling]], [[beta-source]].",
    "In code `[[alpha-note]]`, in a comment %% [[alpha-note]] %% and <!-- [[Alpha-Note]] -->.",
)

FORMS_NOTE = (
    "---\nname: beta-source\ndescription: Links the alpha note in every form.\n---\n"
    + "\n".join(FORMS) + "\n\n" + "\n".join(DECOYS) + "\n\n" + PROV
)
PERS_NOTE = (
    "---\nname: pers-note\ndescription: Links from the next bucket.\n---\n"
    "From here [[../wiki/alpha-note]], [[../wiki/alpha-note.md#Heading One|a]], [[alpha-note]] "
    "and [[wiki/Alpha-Note|A]].\n" + PROV
)
# The agent's log links with the same variety (rename writes daily/ too).
LOG_TEXT = (
    "## 10:00 worked on alpha\n\n"
    "See [[alpha-note]], [[digest/wiki/alpha-note|the alpha]], "
    "[[../../digest/wiki/alpha-note]], ![[alpha-note#^blk1]] and mentions:: [[Alpha-Note]].\n"
    "- [related_to:: [[alpha-note#Heading One]]]\n"
    "%% later: [[alpha-note]] %%\n"
)
# Source material is immutable: a rename leaves its links alone and says so.
RESOURCE_TEXT = "A page naming [[alpha-note]] and [[digest/wiki/alpha-note.md]].\n"


def corpus_files() -> dict[str, str | bytes]:
    """{vault path: content} of the corpus, for `make_vault`."""
    return {
        TARGET: TARGET_TEXT,
        "digest/wiki/beta-source.md": FORMS_NOTE,
        "digest/wiki/sibling.md": "---\nname: sibling\ndescription: Next door.\n---\n## Part\n" + PROV,
        "digest/personal/pers-note.md": PERS_NOTE,
        "digest/wiki/alpha-note-2.md": "---\nname: alpha-note-2\ndescription: A decoy.\n---\n" + PROV,
        LOG: LOG_TEXT,
        "resource/2026-10-01/page.md": RESOURCE_TEXT,
        "resource/2026-10-01/fig.png": b"\x89PNG\r\n\x1a\n",
    }


@dataclass(frozen=True)
class LinkAt:
    """One link of the vault and the file it resolves to (None: broken or ambiguous)."""

    path: str
    index: int  # its place among the file's links
    link: Link
    resolves_to: str | None


def vault_paths(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.relative_to(root).parts[0] in ("resource", "daily", "digest"))


def link_table(root: Path) -> dict[str, tuple[str, list[LinkAt]]]:
    """Every markdown file of the vault: its text and its links, each resolved by
    Obsidian's rules (`LinkResolver`) from that file."""
    paths = vault_paths(root)
    resolver = LinkResolver(paths)
    table = {}
    for path in paths:
        if not path.endswith(".md"):
            continue
        text = (root / path).read_text(encoding="utf-8")
        table[path] = (text, [
            LinkAt(path, i, lk, resolver.resolve(lk.target, path).path if lk.target else path)
            for i, lk in enumerate(parse_links(text))])
    return table


def _place(source: str, target: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), target))


def _without_targets(text: str, links: list[Link]) -> str:
    """`text` with each link's target span replaced by a marker: what must not change."""
    out, last = [], 0
    for lk in links:
        out += [text[last:lk.target_start], "\x00"]
        last = lk.target_end
    out.append(text[last:])
    return "".join(out)


def _without_name(text: str) -> str:
    fm = find_frontmatter(text)
    if fm is None:
        return text
    head = "\n".join(line for line in text[:fm.end].split("\n") if not line.startswith("name:"))
    return head + text[fm.end:]


def assert_links_follow(before: dict, root: Path, *, moved: dict[str, str],
                        frozen: tuple[str, ...] = ("resource/",)) -> int:
    """After a change that moved the files `moved` ({old: new}) and retargeted links:
    each link resolves to what it resolved to before, mapped through `moved`, with its
    alias, anchor, embed mark and predicate kept, and no byte changed outside the link
    targets (and the moved notes' `name`); files under `frozen` (source material) are
    byte for byte as they were. Returns how many links followed a move."""
    after = link_table(root)
    where = {new: old for old, new in moved.items()}
    assert set(after) == {moved.get(p, p) for p in before}, "files appeared or went"
    followed = 0
    for path, (text, links) in after.items():
        old_path = where.get(path, path)
        old_text, old_links = before[old_path]
        if path.startswith(frozen):
            assert text == old_text, f"{path} is source material and changed"
            continue
        assert len(links) == len(old_links), f"{path}: {len(old_links)} links before, {len(links)} after"
        for was, now in zip(old_links, links, strict=True):
            a, b = was.link, now.link
            assert (a.alias, a.anchor, a.embed, a.predicate, a.predicate_kind) == \
                (b.alias, b.anchor, b.embed, b.predicate, b.predicate_kind), f"{path}: {a.raw} -> {b.raw}"
            wanted = moved.get(was.resolves_to, was.resolves_to) if was.resolves_to else None
            if was.resolves_to is None and old_path != path and a.target.startswith(("./", "../")):
                # the moved note's relative link to nothing still names the same place
                assert _place(old_path, a.target) == _place(path, b.target), f"{a.raw} -> {b.raw}"
            elif was.resolves_to is None:
                assert b.target == a.target, f"{path}: unresolved {a.raw} changed to {b.raw}"
            else:
                assert now.resolves_to == wanted, \
                    f"{path}:{b.line} {a.raw} -> {b.raw} resolves to {now.resolves_to}, not {wanted}"
            followed += was.resolves_to in moved
        same = _without_targets(text, [n.link for n in links])
        was_same = _without_targets(old_text, [w.link for w in old_links])
        if path in where:
            same, was_same = _without_name(same), _without_name(was_same)
        assert same == was_same, f"{path}: bytes outside the link targets changed"
        unchanged_targets = [(w.link.target, n.link.target) for w, n in zip(old_links, links, strict=True)
                             if w.resolves_to not in moved and old_path == path]
        assert all(a == b for a, b in unchanged_targets), f"{path}: a link not to a moved note changed"
    return followed
