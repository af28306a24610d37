"""Identifying values a note states, and the pairs they tell apart (docs/spec.md §7.7.1).

Two notes built from one template (two plugin pages of a community wiki, two runbooks
of one form) say the same words about different things; what tells them apart are the
values that *identify* what a note is about. `identifiers_of(text)` reads them from the
whole file, frontmatter included, as `(label, value)` pairs, both lower-cased:

* **repository** — a repository address anywhere (`github.com/owner/repo`, also on
  gitlab.com, codeberg.org, bitbucket.org; in a link or bare), as `host/owner/repo`; a
  `repo:` / `repository:` field holding one, or an `owner/repo` path;
* **ids** — a field whose label ends in id, uuid, guid, identifier, doi or isbn:
  `plugin-id: obsidian-kroki` in the frontmatter and ``Plugin ID: `obsidian-kroki` ``
  in the body are one label, `plugin id`;
* **version** — `v1.2.3` (at least two parts), or a `version:` field;
* **people** — a field labelled `developed by`, `author(s)`, `created by`, `made by`,
  `maintainer`, `maintained by`, `developer` or `owner`, its value the linked notes'
  names (`Developed by: [[gregzuro]]`) or the words after the colon; and `@handles`
  outside code (`handle`).

A field is a line `Label: value` (a list item or a bold label may carry it), or a
frontmatter key. Numbers with units, dates and names in prose are not identifiers: they
differ between paraphrases of one thing too often to decide alone (the offline judges
weigh them, §7.9.2).

`identity_conflict(a, b)`: when both notes state a label and share none of its values,
they are about different things — "repository differs (github.com/a/x vs
github.com/b/y)". Values a large share of the digest states (the wiki's own repository
in every page's footer) are left out first: they identify no note. A label only one
note states decides nothing. Two notes are never distinct when the repositories one
states are all stated by the other (common ones left out): one repository is one
thing, and the same plugin listed twice on a wiki often carries a new id, name or
version on its second page (issue #31); the votes decide those.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..textrules import reader_text
from ..vault.frontmatter import find_frontmatter

__all__ = [
    "Identifier",
    "STRONG_LABELS",
    "identifiers_of",
    "identity_conflict",
    "is_strong",
]

Identifier = tuple[str, str]  # (label, value), both lower-case

# the order a conflict is named in: the most decisive label first
_ORDER = ("repository", "id", "version", "person", "handle")

_HOSTS = r"github\.com|gitlab\.com|codeberg\.org|bitbucket\.org"
_REPO_URL = re.compile(
    rf"(?<![\w.-])(?:https?://)?(?:www\.)?({_HOSTS})/([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*)",
    re.I)
# first path parts that are pages of the host, not owners
_NOT_OWNERS = frozenset(
    "orgs sponsors topics features marketplace apps settings login about collections "
    "notifications search users explore pricing enterprise site".split())
_OWNER_REPO = re.compile(r"^([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*)$")
_VERSION = re.compile(r"(?<![\w.])v(\d+(?:\.\d+){1,3})(?![\w.]*\w)")
_BARE_VERSION = re.compile(r"^v?(\d+(?:\.\d+){0,3}(?:[-+][\w.]+)?)$")
_HANDLE = re.compile(r"(?<![\w@.`/])@([A-Za-z][A-Za-z0-9_-]{1,38})\b(?![.@][A-Za-z])")
_FIELD = re.compile(
    r"^[ \t]{0,3}(?:[-*+][ \t]+)?(?:\*\*|__)?([A-Za-z][A-Za-z0-9 _-]{0,40}?)[ \t]*(?:\*\*|__)?"
    r"[ \t]*[:：](?!:)(?:\*\*|__)?[ \t]*(.+?)[ \t]*$", re.M)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_LABEL_SPLIT = re.compile(r"[\s_-]+")
_ID_WORDS = frozenset("id uuid guid identifier doi isbn".split())
_REPO_LABELS = frozenset({"repo", "repository", "source", "source code", "git"})
_VERSION_LABELS = frozenset({"version", "latest version", "current version"})
_PERSON_LABELS = frozenset({
    "developed by", "author", "authors", "created by", "made by", "maintainer",
    "maintainers", "maintained by", "developer", "developers", "owner",
})
# labels that pair notes for mining (`is_strong`): a shared one names one thing
STRONG_LABELS = frozenset({"repository"})


def _label(raw: str) -> str:
    return " ".join(w for w in _LABEL_SPLIT.split(raw.strip().lower()) if w)


def _kind(label: str) -> str | None:
    """The kind of a field label, or None when it identifies nothing."""
    if label in _REPO_LABELS:
        return "repository"
    if label in _VERSION_LABELS:
        return "version"
    if label in _PERSON_LABELS:
        return "person"
    words = label.split()
    if words and words[-1] in _ID_WORDS:
        return "id"
    return None


def _clean(value: str) -> str:
    value = reader_text(value).strip().strip("\"'`").strip()
    value = re.sub(r"\s+", " ", value.lower())
    return value.rstrip(".,;:!?。，；").strip()


def _repo(host: str, owner: str, name: str) -> str | None:
    owner, name = owner.lower(), name.lower()
    name = name.removesuffix(".git").rstrip(".")
    if owner in _NOT_OWNERS or not name:
        return None
    return f"{host.lower()}/{owner}/{name}"


def _repos(text: str) -> set[str]:
    found = set()
    for m in _REPO_URL.finditer(text):
        repo = _repo(*m.groups())
        if repo:
            found.add(repo)
    return found


def _field_values(kind: str, raw: str) -> set[str]:
    """The values of a field of `kind` written as `raw` (the text after the colon)."""
    if kind == "repository":
        repos = _repos(raw)
        if repos:
            return repos
        m = _OWNER_REPO.match(_clean(raw))
        repo = _repo("github.com", *m.groups()) if m else None
        return {repo} if repo else set()
    if kind == "person":
        linked = {t.strip().rsplit("/", 1)[-1].removesuffix(".md").lower()
                  for t in _WIKILINK.findall(raw)}
        if linked:
            return {v for v in linked if v}
        handles = {h.lower() for h in _HANDLE.findall(raw)}
        if handles:
            return handles
    code = _CODE_SPAN.findall(raw)
    values = {_clean(c) for c in code} if code else {_clean(raw)}
    if kind == "version":
        out = set()
        for v in values:
            m = _BARE_VERSION.match(v)
            if m:
                out.add(m.group(1))
        return out
    return {v for v in values if v and len(v) <= 200}


def _frontmatter_fields(yaml: str) -> Iterable[tuple[str, str]]:
    """(label, raw value) of the frontmatter's scalar keys and simple list items."""
    key = None
    for line in yaml.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        m = re.match(r"^([A-Za-z][\w -]{0,40}?)\s*:\s*(.*)$", line)
        if m and not line.startswith((" ", "\t", "-")):
            key = _label(m.group(1))
            if m.group(2).strip() and m.group(2).strip() not in ("|", ">", "[]"):
                value = m.group(2).strip()
                if value.startswith("[") and value.endswith("]"):  # a flow list
                    for item in value[1:-1].split(","):
                        yield key, item
                else:
                    yield key, value
            continue
        item = re.match(r"^\s*-\s+(.+)$", line)
        if item and key:
            yield key, item.group(1)


_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.M | re.S)


def identifiers_of(text: str) -> frozenset[Identifier]:
    """Every identifier `text` (a whole note, frontmatter included) states: see the
    module doc. Labels are kinds for URLs, versions and handles (`repository`,
    `version`, `handle`) and the field's own label for fields (`plugin id`, `developed
    by`), so two notes compare like with like. Fenced code is left out."""
    found: set[Identifier] = set()
    fm = find_frontmatter(text)
    if fm is not None:
        for label, raw in _frontmatter_fields(text[fm.yaml_start:fm.yaml_end]):
            kind = _kind(label)
            if kind is not None:
                name = "repository" if kind == "repository" else label
                found.update((name, v) for v in _field_values(kind, raw))
    body = _FENCED.sub("\n", text[fm.end:] if fm is not None else text)
    found.update(("repository", r) for r in _repos(body))
    if "v" in body:
        prose = _CODE_SPAN.sub(" ", body)
        found.update(("version", v) for v in _VERSION.findall(prose))
    if "@" in body:
        prose = _CODE_SPAN.sub(" ", body)
        found.update(("handle", h.lower()) for h in _HANDLE.findall(prose))
    for m in _FIELD.finditer(body):
        if "::" in m.group(0)[: m.end(1) - m.start(0) + 3]:
            continue
        label = _label(m.group(1))
        kind = _kind(label)
        if kind is None:
            continue
        name = {"repository": "repository", "version": "version"}.get(kind, label)
        found.update((name, v) for v in _field_values(kind, m.group(2)))
    return frozenset(found)


def _kind_of(label: str) -> str:
    if label in ("repository", "version", "handle"):
        return label
    return _kind(label) or "id"


def is_strong(identifier: Identifier) -> bool:
    """An identifier that names one thing (a repository, an id field): two notes stating
    the same one are worth comparing whatever their descriptions say."""
    return identifier[0] in STRONG_LABELS or _kind_of(identifier[0]) == "id"


def identity_conflict(a: Iterable[Identifier], b: Iterable[Identifier],
                      common: frozenset[Identifier] | Mapping = frozenset()) -> str | None:
    """Why notes stating `a` and `b` are about different things ("repository differs
    (x vs y)"), or None: the first label both state, in the order repository, id,
    version, person, handle, of which they share no value; None when one's repositories
    are all the other's too. `common` values (stated by a large share of the digest) are left out
    first."""
    mine: dict[str, set[str]] = {}
    theirs: dict[str, set[str]] = {}
    for ids, into in ((a, mine), (b, theirs)):
        for label, value in ids:
            if (label, value) not in common:
                into.setdefault(label, set()).add(value)
    repos = (mine.get("repository", set()), theirs.get("repository", set()))
    if all(repos) and (repos[0] <= repos[1] or repos[1] <= repos[0]):
        # one repository is one thing: a page made again under a new id, name or version
        # (a plugin listed twice on a wiki) is not another plugin — the votes decide
        return None
    conflicts = []
    for label in sorted(set(mine) & set(theirs)):
        if mine[label] & theirs[label]:
            continue
        conflicts.append((_ORDER.index(_kind_of(label)), label))
    if not conflicts:
        return None
    _, label = min(conflicts)
    shown = [", ".join(sorted(v)[:2]) + (" …" if len(v) > 2 else "")
             for v in (mine[label], theirs[label])]
    return f"{label} differs ({shown[0]} vs {shown[1]})"
