"""Resolve Obsidian short links the way Obsidian does, and repair text to full-path links.

Pure: a `LinkResolver` is built from the set of vault paths (every file, attachments
too) and never touches the disk.

How a target is looked up from a source file (case-insensitive throughout):

1. **exact**: the target is a vault path (`digest/wiki/x.md`, `resource/d/Settings`);
2. **relative**: the target joined to the source file's folder (`./x`, `../x`, `x`);
3. **suffix**: the one file whose path ends with the target, segment by segment —
   `[[Note]]` is a basename match, `[[dir1/Note]]` picks `dir1/Note.md` even when
   `dir2/Note.md` exists. Several such files are *ambiguous*: no guess is made.

A target that starts with `./` or `../` is only ever relative; one that starts with `/`
is only ever a vault path, and neither is ever an alias. Within each step `x` means `x.md` first and then the file
`x` itself, so `[[Settings]]` names `Settings.md`, `[[Figure 1.png]]` the image and
`[[v1.2 notes]]` the note `v1.2 notes.md`. Where two files differ only in case, the
one spelled exactly as the target wins; otherwise the match is ambiguous.

`repair_links` turns every link of a text into the canonical `[[full/path.md|alias]]`
or, when it does not resolve, into the text a reader saw (see its docstring).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UnsafePathError
from .layout import normalize_rel
from .links import Link, format_link, parse_links

__all__ = [
    "aliases_of",
    "Resolution",
    "LinkResolver",
    "LinkRepair",
    "ShortLinkChange",
    "is_linkable",
    "is_relative",
    "moved_relative",
    "normalize_short_links",
    "repair_links",
    "retarget_form",
]

# `![[img.png|300]]` / `|300x200`: Obsidian's embed size, not words for a reader.
_EMBED_SIZE_RE = re.compile(r"\d+(x\d+)?")
# Repairing can expose a link only by joining text around a removed one
# (`[![[gone.png]][x]]` leaves `[[x]]`), so a few passes always reach a fixed point.
_MAX_PASSES = 8


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a link target leads: `path` is None when it is ambiguous or missing."""

    path: str | None
    how: str  # "exact", "relative", "suffix", "alias", "ambiguous" or "missing"
    candidates: tuple[str, ...] = ()  # the files an ambiguous target could mean


_MISSING = Resolution(None, "missing")


def _clean(path: str) -> str | None:
    """`a/./b//c` -> `a/b/c`, `a/../b` -> `b`; None when it leaves the vault or is empty."""
    if "\\" in path or "\x00" in path:
        return None
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or None


_ALIAS_KEYS = ("aliases", "alias")
_NOT_IN_A_TARGET = re.compile(r"[\[\]|#^\n\r]")


def aliases_of(frontmatter: Mapping[Any, Any]) -> tuple[str, ...]:
    """The other names a note's frontmatter gives it, as Obsidian reads them: the keys
    `aliases` and `alias` (any case), each a list or one comma-separated string; a name
    that cannot be a link target (`[ ] | # ^`, a line break) is left out."""
    found: list[str] = []
    for key, value in frontmatter.items():
        if not isinstance(key, str) or key.lower() not in _ALIAS_KEYS:
            continue
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                continue
            name = " ".join(str(item).split())
            if name and not _NOT_IN_A_TARGET.search(name) and name not in found:
                found.append(name)
    return tuple(found)


class LinkResolver:
    """Resolves link targets against a fixed set of vault paths (see the module doc).

    Indexed by lowercase path, by lowercase basename and by lowercase alias, so building
    it for 10k+ paths is one pass and each lookup touches only the files sharing a name.
    `paths` may be a scan's records (path -> record with `aliases`): the notes' aliases
    come with them; else `aliases` gives them (path -> names).
    """

    def __init__(self, paths: Iterable[str],
                 aliases: Mapping[str, Iterable[str]] | None = None) -> None:
        self._paths: set[str] = set()
        self._by_lower: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}
        if aliases is None and isinstance(paths, Mapping):
            for path, record in paths.items():
                self.add(path, getattr(record, "aliases", ()))
            return
        aliases = aliases or {}
        for path in paths:
            self.add(path, aliases.get(path, ()))

    def add(self, path: str, aliases: Iterable[str] | None = None) -> None:
        """Know one more file (a note created since the resolver was built), or the new
        `aliases` of one it knows (None keeps those it has)."""
        if path not in self._paths:
            self._paths.add(path)
            low = path.lower()
            self._by_lower.setdefault(low, []).append(path)
            self._by_name.setdefault(posixpath.basename(low), []).append(path)
        if aliases is not None:
            self._set_aliases(path, tuple(dict.fromkeys(aliases)))

    def aliases(self, path: str) -> tuple[str, ...]:
        """The aliases known for `path` (empty for a file it does not know)."""
        return self._aliases.get(path, ())

    def _set_aliases(self, path: str, names: tuple[str, ...]) -> None:
        for name in self._aliases.pop(path, ()):
            _drop(self._by_alias, name.lower(), path)
        if names:
            self._aliases[path] = names
            for key in dict.fromkeys(n.lower() for n in names):
                self._by_alias.setdefault(key, []).append(path)

    def remove(self, path: str) -> None:
        """Forget one file (deleted since the resolver was built)."""
        if path not in self._paths:
            return
        self._paths.discard(path)
        self._set_aliases(path, ())
        low = path.lower()
        _drop(self._by_lower, low, path)
        _drop(self._by_name, posixpath.basename(low), path)

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def resolve(self, target: str, source: str | None = None) -> Resolution:
        """Resolve `target` as written in the file `source` (a vault path, or None)."""
        target = target.strip()
        if not target:
            return _MISSING
        forms = [target] if target.lower().endswith(".md") else [target + ".md", target]
        relative_only = target.startswith(("./", "../")) or target in (".", "..")
        if target.startswith("/"):
            return self._first(self._exact(f.lstrip("/")) for f in forms)
        steps = []
        if not relative_only:
            steps.append(self._exact)
        if source is not None:
            folder = posixpath.dirname(source)
            steps.append(lambda f: self._relative(folder, f))
        if not relative_only:
            steps.append(self._suffix)
        for step in steps:
            found = self._first(step(f) for f in forms)
            if found is not _MISSING:
                return found
        return _MISSING if relative_only else self._alias(target)

    def _alias(self, target: str) -> Resolution:
        found = self._by_alias.get(" ".join(target.split()).lower())
        if not found:
            return _MISSING
        if len(found) == 1:
            return Resolution(found[0], "alias")
        return Resolution(None, "ambiguous", tuple(sorted(found)))

    @staticmethod
    def _first(results: Iterable[Resolution]) -> Resolution:
        for found in results:
            if found is not _MISSING:
                return found
        return _MISSING

    def _pick(self, found: list[str], spelled: str, how: str) -> Resolution:
        if spelled in found:
            return Resolution(spelled, how)
        if len(found) == 1:
            return Resolution(found[0], how)
        return Resolution(None, "ambiguous", tuple(sorted(found)))

    def _exact(self, form: str) -> Resolution:
        clean = _clean(form)
        if clean is None:
            return _MISSING
        found = self._by_lower.get(clean.lower())
        return self._pick(found, clean, "exact") if found else _MISSING

    def _relative(self, folder: str, form: str) -> Resolution:
        clean = _clean(posixpath.join(folder, form) if folder else form)
        if clean is None:
            return _MISSING
        found = self._by_lower.get(clean.lower())
        return self._pick(found, clean, "relative") if found else _MISSING

    def _suffix(self, form: str) -> Resolution:
        clean = _clean(form)
        if clean is None:
            return _MISSING
        low = clean.lower()
        tail = "/" + low
        found = [
            p
            for p in self._by_name.get(posixpath.basename(low), ())
            if ("/" + p.lower()).endswith(tail)
        ]
        if not found:
            return _MISSING
        if len(found) == 1:
            return Resolution(found[0], "suffix")
        return Resolution(None, "ambiguous", tuple(sorted(found)))


def _drop(index: dict[str, list[str]], key: str, path: str) -> None:
    found = index.get(key)
    if found is not None and path in found:
        found.remove(path)
        if not found:
            del index[key]


def is_linkable(path: str) -> bool:
    """Whether `path` can be written as a canonical `[[path]]` link that reads back as it.

    A name holding `[ ] | #`, a line break, a trailing backslash or a reserved device
    name, or a path that is not in clean vault form, cannot: such a file stays unlinked.
    """
    try:
        format_link(path)
        return normalize_rel(path) == path
    except (ValueError, UnsafePathError):
        return False


def is_relative(target: str) -> bool:
    """Whether `target` is written relative to its file's folder only (`./x`, `../x`)."""
    target = target.strip()
    return target.startswith(("./", "../")) or target in (".", "..")


def _relative_path(path: str, folder: str) -> str:
    """`path` written from `folder` with `./` or `../` first, so it reads as relative only."""
    rel = posixpath.relpath(path, folder) if folder else path
    return rel if rel.startswith("../") else "./" + rel


def moved_relative(target: str, old_source: str, new_source: str) -> str | None:
    """A relative `target` of the file `old_source` rewritten for the same file at
    `new_source`, so it names the same vault path; None when it leaves the vault."""
    place = _clean(posixpath.join(posixpath.dirname(old_source), target.strip()))
    if place is None:
        return None
    return _relative_path(place, posixpath.dirname(new_source))


def _shaped(path: str, with_md: bool) -> str:
    return path[:-3] if not with_md and path.lower().endswith(".md") else path


def retarget_form(target: str, dest: str, source: str, resolver: LinkResolver) -> str | None:
    """What to write instead of `target`, a link in the file `source`, so that Obsidian
    resolves it to `dest` (by `resolver`, which must already know `dest`).

    The link keeps its form where that form names `dest` unambiguously: a short name
    stays short (`[[old]]` -> `[[new]]`), a relative path relative (`[[../wiki/old]]`),
    a partial or full path as many folders deep (`[[wiki/old]]`, `[[/digest/wiki/old]]`),
    each with or without `.md` as written; otherwise it becomes the full vault path
    `dest`. None when not even that resolves to `dest` or can be a link target.
    """
    target = target.strip()
    with_md = target.lower().endswith(".md")
    candidates = []
    if target.startswith("/"):
        candidates.append("/" + _shaped(dest, with_md))
    elif is_relative(target):
        candidates.append(_shaped(_relative_path(dest, posixpath.dirname(source)), with_md))
    else:
        depth = len([part for part in target.split("/") if part])
        candidates.append(_shaped("/".join(dest.split("/")[-depth:]), with_md))
    candidates.append(dest)
    for form in candidates:
        try:
            format_link(form)
        except ValueError:
            continue
        if resolver.resolve(form, source).path == dest:
            return form
    return None


@dataclass(frozen=True, slots=True)
class LinkRepair:
    """One link `repair_links` rewrote: what it was, what it became, and why."""

    raw: str
    replacement: str  # the canonical link, or the plain text ("" when removed)
    how: str  # a Resolution.how, "unlinkable" (no valid link to that file) or "same-note"
    path: str | None  # the file it resolved to (also for "unlinkable")
    line: int

    def to_json(self) -> dict:
        return {
            "raw": self.raw,
            "replacement": self.replacement,
            "how": self.how,
            "path": self.path,
            "line": self.line,
        }


def _caption(link: Link) -> str:
    """An embed's alias when it is words (a caption), not a size such as `300x200`."""
    if link.alias and not _EMBED_SIZE_RE.fullmatch(link.alias):
        return link.alias
    return ""


def _as_text(link: Link) -> str:
    """What an unresolvable link becomes: the words the reader saw, without the anchor.

    An embed shows a file, not words: with its file gone, its name in the prose would
    read as noise, so it goes (a caption alias stays). `[[#Heading]]` reads as the
    heading; a same-note block reference `[[#^id]]` has no words but its alias.
    """
    if link.embed:
        return _caption(link)
    if link.alias:
        return link.alias
    if link.target:
        return link.target
    anchor = link.anchor or ""
    return "" if anchor.startswith("^") else anchor


def _in_table_row(text: str, link: Link) -> bool:
    """A link in a `| a | b |` row, or one already written `[[t\\|a]]` (a table cell)."""
    if "\\|" in link.raw:
        return True
    line_start = text.rfind("\n", 0, link.start) + 1
    return text[line_start : link.start].lstrip().startswith("|")


def _canonical(link: Link, path: str, table: bool, keep_anchor: bool = False) -> str:
    # Without an alias the reader saw the target as written; keep that as the alias
    # unless it is the path itself (then only an anchor was dropped). Embeds show the
    # file, so they get no invented alias.
    alias = link.alias
    if alias is None and not link.embed and link.target != path:
        alias = link.target
    new = format_link(path, alias=alias, embed=link.embed)
    if keep_anchor and link.anchor:  # as parsed from the link: it holds no `|` or `]]`
        new = new.replace(f"[[{path}", f"[[{path}#{link.anchor}", 1)
    return new.replace("|", "\\|", 1) if table and alias is not None else new


def _repaired(link: Link, text: str, source: str | None, resolver: LinkResolver,
              keep_anchors: bool = False):
    """(replacement, how, path) for one link, or None when it is canonical already."""
    if not link.target:
        return _as_text(link), "same-note", None
    found = resolver.resolve(link.target, source)
    if found.path is None:
        return _as_text(link), found.how, None
    if found.how == "exact" and found.path == link.target and (
            link.anchor is None or keep_anchors):
        return None  # `[[digest/x.md|a]]`, `derived_from:: [[daily/d/x.md]]`: leave as is
    if not is_linkable(found.path):
        return _as_text(link), "unlinkable", found.path
    return (_canonical(link, found.path, _in_table_row(text, link), keep_anchors), found.how,
            found.path)


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end + 1


def _line_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole line (with its newline) when `text[start:end]` is all it holds, and the
    blank line after it too when one precedes it (a paragraph of its own goes whole)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = _line_end(text, end)
    if text[line_start:start].strip() or text[end:line_end].strip():
        return start, end
    prev_start = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
    blank_before = line_start == 0 or not text[prev_start:line_start].strip()
    after_end = _line_end(text, line_end)
    if blank_before and line_end < len(text) and not text[line_end:after_end].strip():
        line_end = after_end
    return line_start, line_end


def _one_pass(
    text: str, source: str | None, resolver: LinkResolver, keep: frozenset,
    keep_anchors: bool = False,
) -> tuple[str, list[LinkRepair]]:
    parts: list[str] = []
    repairs: list[LinkRepair] = []
    last = 0
    for link in parse_links(text):
        if link.key in keep:
            continue
        done = _repaired(link, text, source, resolver, keep_anchors)
        if done is None:
            continue
        new, how, path = done
        start, end = (link.start, link.end)
        if not new:  # a removed embed leaves no empty line behind
            start, end = _line_span(text, start, end)
        parts += [text[last:start], new]
        last = end
        repairs.append(LinkRepair(link.raw, new, how, path, link.line))
    if not repairs:
        return text, []
    parts.append(text[last:])
    return "".join(parts), repairs


def repair_links(
    text: str,
    source: str | None,
    resolver: LinkResolver,
    *,
    keep: frozenset[tuple[str, str | None]] = frozenset(),
    keep_anchors: bool = False,
) -> tuple[str, list[LinkRepair]]:
    """Rewrite every link of `text` (as written in the file `source`) so it resolves.

    * A link that resolves becomes `[[full/vault/path.md|alias]]`: the `#heading` or
      `#^block` anchor is dropped, the alias kept, and with no alias the target as
      written becomes the alias, so the sentence reads as before. Embed marks and
      `pred::` / `[pred:: ...]` predicates stay (they sit outside the link's span);
      a link in a table row writes its pipe as `\\|`.
    * A link already in full-path form that resolves exactly is left byte for byte.
    * A link that resolves to nothing, ambiguously, or to a file whose name cannot be
      a link target (`[ ] | #`) becomes its text: the alias, else the target without
      the anchor. An unresolvable embed is removed (its caption alias stays), and a
      line it held alone goes with it. `[[#Heading]]` becomes the heading's text.
    * Links whose `(target, predicate)` key is in `keep` are never touched (an update
      keeps the old body's links, E-1), nor are links in code or frontmatter.
    * `keep_anchors`: a resolving link keeps its `#heading` / `#^block` anchor — for text
      a person wrote that moves into another note (a merge's loser, a split's parts),
      where dropping it would lose where the link pointed.

    Returns the new text and one `LinkRepair` per rewritten link. Idempotent.
    """
    repairs: list[LinkRepair] = []
    for _ in range(_MAX_PASSES):
        text, found = _one_pass(text, source, resolver, keep, keep_anchors)
        if not found:
            break
        repairs += found
    return text, repairs


@dataclass(frozen=True, slots=True)
class ShortLinkChange:
    """One short link `normalize_short_links` rewrote to the full path it resolves to."""

    raw: str
    replacement: str
    path: str  # the file it resolves to
    how: str  # "exact" (another case or an anchor), "relative" or "suffix"
    line: int
    column: int

    def to_json(self) -> dict:
        return {"raw": self.raw, "replacement": self.replacement, "path": self.path,
                "how": self.how, "line": self.line, "column": self.column}


def _shown(link: Link) -> str:
    """What Obsidian shows for a link with no alias: `Note`, `Note > Heading`."""
    shown = link.target[:-3] if link.target.lower().endswith(".md") else link.target
    return f"{shown} > {link.anchor}" if link.anchor else shown


def normalize_short_links(
    text: str,
    source: str | None,
    resolver: LinkResolver,
    *,
    only: frozenset[tuple[int, int, str]] | None = None,
    place: Callable[[str], str | None] | None = None,
) -> tuple[str, list[ShortLinkChange], list[tuple[Link, Resolution]]]:
    """Rewrite each link that Obsidian resolves to one file, but that is not that file's
    exact vault path, to the full path — losing nothing (docs/spec.md §2.4.7).

    Unlike `repair_links`, this is for text a person wrote: only the target span
    changes, so the anchor, embed mark, predicate and alias stay; a link with no alias
    gets what Obsidian showed (`[[Note#Part]]` → `[[digest/wiki/Note.md#Part|Note > Part]]`;
    in a table row the pipe is written `\\|`). A link that resolves to nothing or to
    several files, or to a file whose name cannot be a link target, is left as it is and
    returned in the third list with its resolution. `only` limits the rewrite to the
    links at those `(line, column, raw)` places. `place` maps a resolved file to the path
    it has now (a person's vault being imported: every link is resolved among its files
    and written as the path its file was given; None leaves the link as it is).

    Returns (new text, the changes, the links left as they are).
    """
    parts: list[str] = []
    changes: list[ShortLinkChange] = []
    left: list[tuple[Link, Resolution]] = []
    last = 0
    for link in parse_links(text):
        if not link.target or (place is None and link.target in resolver):
            continue  # a link into the note itself, or a vault path already
        if only is not None and (link.line, link.column, link.raw) not in only:
            continue
        found = resolver.resolve(link.target, source)
        if found.path is not None and place is not None:
            placed = place(found.path)
            found = Resolution(placed, found.how if placed else "unplaced", (found.path,))
            if found.path == link.target and link.anchor is None:
                continue  # already the path it has
        if found.path is None or not is_linkable(found.path):
            left.append((link, found if found.path is None else Resolution(None, "unlinkable",
                                                                           (found.path,))))
            continue
        close = text.index("]]", link.target_end)
        alias = ""
        if link.alias is None and not link.embed:
            shown = _shown(link)
            if not any(c in shown for c in "[]|\n"):
                alias = ("\\|" if _in_table_row(text, link) else "|") + shown
        new_link = (text[link.start:link.target_start] + found.path
                    + text[link.target_end:close] + alias + text[close:link.end])
        parts += [text[last:link.start], new_link]
        last = link.end
        changes.append(ShortLinkChange(link.raw, new_link, found.path, found.how, link.line,
                                       link.column))
    if not changes:
        return text, [], left
    parts.append(text[last:])
    return "".join(parts), changes, left
