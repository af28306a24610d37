"""Mechanical checks that a changeset must pass, as named, serialisable specs.

A `CheckSpec` is a name plus JSON-able parameters, so a proposal held for review can
be stored on disk and its checks rebuilt and re-run when a person accepts it later.
The checks are the conservation rules of docs/spec.md §3.3 and §4.5 made mechanical
(E-1 was only a prompt request in the reference implementation; here it rejects the
write).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import RemeError
from .frontmatter import find_frontmatter
from .layout import bucket_of, layer_of
from .links import PROVENANCE_PREDICATE, is_provenance, outbound_keys, parse_links
from .note import NoteError, parse
from .resolve import LinkResolver, is_linkable
from .store import CheckContext, NamedCheck
from .tokens import content_tokens

__all__ = ["CheckSpec", "build_check", "build_checks", "CHECKS", "PROVENANCE_PREDICATE",
           "value_key", "missing_values", "STALE_CHECKS", "only_stale", "Reader"]

# Reads a vault file as it is now: (bytes, stamp) or None when it is not there
# (`Store.read`). A check that looks at files outside its changeset is given one when it
# is built (`build_check(spec, read=...)`); under the store's lock it reads what is there.
Reader = Callable[[str], "tuple[bytes, Any] | None"]



@dataclass(frozen=True)
class CheckSpec:
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"name": self.name, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckSpec:
        return cls(str(data["name"]), dict(data.get("params") or {}))


def _text(ctx: CheckContext, path: str) -> str | None:
    data = ctx.after.get(path)
    return None if data is None else data.decode("utf-8", errors="replace")


def _edge(target: str, predicate: str | None) -> str:
    return f"{'' if predicate is None else predicate + ':: '}[[{target}]]"


def _keeps_outbound(path: str, keys: list, retypes: list = ()) -> Callable[[CheckContext], list[str]]:
    """E-1 / E-2 style: the new body's (target, predicate) set contains the old one.

    `retypes` (`[target, old predicate, new predicate]`, a predicate may be None) is the
    audited predicate upgrade (docs/spec.md §4.5.5): each names an edge of `keys`, which
    may then be there with its new predicate instead — the target still linked, only the
    predicate changed. A retype of an edge the note did not have fails."""
    required = {(t, p) for t, p in keys}
    failures: list[str] = []
    retyped: dict[tuple[str, str | None], str | None] = {}
    for target, old, new in retypes:
        if PROVENANCE_PREDICATE in (old, new):
            failures.append(f"{path}: {_edge(target, old)} would become {_edge(target, new)}; "
                            f"provenance ({PROVENANCE_PREDICATE}::) is never retyped")
            continue
        if (target, old) not in required:
            failures.append(f"{path}: the proposal retypes {_edge(target, old)}, which the "
                            "note does not have; name a link of the old body as written")
            continue
        required.discard((target, old))
        required.add((target, new))
        retyped[(target, new)] = old

    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return [f"{path} would be deleted, so it cannot keep its links"]
        lost = required - outbound_keys(text)
        return failures + [
            f"{path} drops the link {_edge(t, p)}"
            + (f" (retyped from {_edge(t, retyped[t, p])}: the target must stay linked, "
               "with the new predicate)" if (t, p) in retyped else "")
            for t, p in sorted(lost, key=lambda k: (k[0], k[1] or ""))
        ]

    return run


def _union_keeps_outbound(paths: list, keys: list) -> Callable[[CheckContext], list[str]]:
    """E-2: (parent_new ∪ children) outbound ⊇ parent_old; also merge's A.out ∪ B.out."""
    required = {(t, p) for t, p in keys}

    def run(ctx: CheckContext) -> list[str]:
        have: set = set()
        for path in paths:
            text = _text(ctx, path)
            if text is not None:
                have |= outbound_keys(text)
        lost = required - have
        return [
            f"no note keeps the link [[{t}]]" + (f" ({p})" if p else "")
            for t, p in sorted(lost, key=str)
        ]

    return run


def _has_provenance(path: str, material: str) -> Callable[[CheckContext], list[str]]:
    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return [f"{path} would be deleted"]
        if any(is_provenance(lk, material) for lk in parse_links(text)):
            return []
        return [f"{path} must carry `{PROVENANCE_PREDICATE}:: [[{material}]]` (its provenance)"]

    return run


def _keeps_some_provenance(paths: list) -> Callable[[CheckContext], list[str]]:
    """Every digest note keeps at least one derived_from:: link into daily/ or resource/."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path in paths:
            text = _text(ctx, path)
            if text is None:
                continue
            if not any(is_provenance(lk) for lk in parse_links(text)):
                failures.append(
                    f"{path} has no {PROVENANCE_PREDICATE}:: link into daily/ or resource/"
                )
        return failures

    return run


def _no_new_anchors(paths: list) -> Callable[[CheckContext], list[str]]:
    """Digest writes never emit `[[x.md#section]]`; anchors a user wrote may stay (E-1)."""

    def anchored(data: bytes | None) -> set:
        if data is None:
            return set()
        text = data.decode("utf-8", errors="replace")
        return {(lk.target, lk.anchor) for lk in parse_links(text) if lk.anchor}

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path in paths:
            new = anchored(ctx.after.get(path)) - anchored(ctx.before.get(path))
            failures += [
                f"{path} writes an anchor link [[{t}#{a}]]; link the note itself"
                for t, a in sorted(new)
            ]
        return failures

    return run


def _name_matches_basename(paths: list) -> Callable[[CheckContext], list[str]]:
    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path in paths:
            text = _text(ctx, path)
            if text is None:
                continue
            try:
                name = parse(text, path).name
            except NoteError as exc:
                failures.append(f"{path}: {exc}")
                continue
            stem = posixpath.basename(path)[: -len(".md")]
            if name != stem:
                failures.append(
                    f"{path}: frontmatter name {name!r} must equal the file name {stem!r}"
                )
        return failures

    return run


def _only_paths(paths: list) -> Callable[[CheckContext], list[str]]:
    """F-2: a dream write changes its subject and nothing else."""
    allowed = set(paths)

    def run(ctx: CheckContext) -> list[str]:
        return [
            f"{p} is not the subject of this change and may not be touched"
            for p in ctx.changeset.paths
            if p not in allowed
        ]

    return run


def _creates_in_bucket(path: str, bucket: str) -> Callable[[CheckContext], list[str]]:
    def run(ctx: CheckContext) -> list[str]:
        if bucket_of(path) != bucket:
            return [f"{path} must be created in digest/{bucket}/ (the unit's bucket)"]
        return []

    return run


def _no_sources_written() -> Callable[[CheckContext], list[str]]:
    def run(ctx: CheckContext) -> list[str]:
        return [
            f"{p} is source material and may not be written"
            for p in ctx.changeset.paths
            if layer_of(p) in ("daily", "resource")
        ]

    return run


def _links_resolve(path: str, keep: list = ()) -> Callable[[CheckContext], list[str]]:
    """Every link in the new text names an existing file by its full vault path.

    "Existing" means a file in the vault or one this changeset creates; links whose
    `(target, predicate)` key is in `keep` (an update's old links, E-1) are exempt.
    `repair_links` (vault/resolve.py) writes exactly what this accepts.
    """
    kept = {(t, p) for t, p in keep}

    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return []
        failures = []
        for lk in parse_links(text):
            if lk.key in kept:
                continue
            where = f"{path}:{lk.line}:{lk.column} {lk.raw}"
            if not lk.target:
                failures.append(f"{where} points into the note itself; write the heading as text")
            elif not is_linkable(lk.target):
                failures.append(
                    f"{where} is not a full vault path; link e.g. [[digest/wiki/x.md]] or "
                    "write the words without [[ ]]"
                )
            elif not ctx.present_after(lk.target):
                failures.append(
                    f"{where} names no file in the vault; link an existing note or write "
                    "the words without [[ ]]"
                )
        return failures

    return run


def _removes_only_broken_links(path: str, removed: list) -> Callable[[CheckContext], list[str]]:
    """The D1 unlink (docs/spec.md §7.5.3): `path`'s links after == before minus `removed`
    (each `[target, predicate, embed, alias, anchor]`), and every removed link still
    resolves to nothing, by Obsidian's rules, among the vault's files now — a note a
    person created meanwhile keeps the link."""
    gone = Counter(tuple(r) for r in removed)

    def run(ctx: CheckContext) -> list[str]:
        before, after = ctx.before.get(path), ctx.after.get(path)
        if before is None or after is None:
            return [f"{path} would be created or deleted; unlinking only edits"]
        sig = lambda lk: (lk.target, lk.predicate, lk.embed, lk.alias, lk.anchor)  # noqa: E731
        was = Counter(sig(lk) for lk in parse_links(before.decode("utf-8")))
        now = Counter(sig(lk) for lk in parse_links(after.decode("utf-8")))
        if gone - was:
            return [f"{path} does not hold every link the fix removes"]
        if now != was - gone:
            lost = sorted(str(k[0]) for k in (was - gone - now))
            added = sorted(str(k[0]) for k in (now - (was - gone)))
            return [f"{path}: links other than the broken ones would change (lost {lost}, "
                    f"gained {added})"]
        resolver = LinkResolver(ctx.files())
        found = [t for t, *_ in gone if resolver.resolve(t, path).how != "missing"]
        return [f"{path}: [[{t}]] resolves now; keep the link" for t in sorted(set(found))]

    return run


# -- split (docs/spec.md §7.8) ------------------------------------------------------


def _links_to(paths: list, targets: list) -> Callable[[CheckContext], list[str]]:
    """Every file of `paths` links every note of `targets` (any predicate, embeds not
    counted): a split's children link back to the parent, the parent links each child."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path in paths:
            text = _text(ctx, path)
            if text is None:
                failures.append(f"{path} would be deleted, so it cannot link {', '.join(targets)}")
                continue
            linked = {t for t, _ in outbound_keys(text)}
            failures += [
                f"{path} must link [[{t}]]" for t in targets if t not in linked and t != path
            ]
        return failures

    return run


def _carries_provenance(paths: list, sources: list) -> Callable[[CheckContext], list[str]]:
    """Every file of `paths` carries `derived_from:: [[s]]` for each of `sources` (a
    split's children carry the parent's provenance)."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path in paths:
            text = _text(ctx, path)
            if text is None:
                failures.append(f"{path} would be deleted")
                continue
            links = parse_links(text)
            failures += [
                f"{path} must carry `{PROVENANCE_PREDICATE}:: [[{s}]]` (the provenance it "
                "derives from)"
                for s in sources
                if not any(is_provenance(lk, s) for lk in links)
            ]
        return failures

    return run


# -- abstract (docs/spec.md §7.6) ---------------------------------------------------


def _body_under_tokens(path: str, max_tokens: int, hint: str = "") -> Callable[[CheckContext], list[str]]:
    """`path`'s body (after the frontmatter) is under `max_tokens` estimated tokens
    (`vault/tokens.py`): a hub stays below the split trigger, a split parent unloaded."""

    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return [f"{path} would be deleted, so its body cannot be measured"]
        tokens = content_tokens(parse(text, path).body)
        if tokens < max_tokens:
            return []
        return [f"{path}: the body is {tokens} estimated tokens; keep it under {max_tokens}"
                + (f" ({hint})" if hint else "")]

    return run


def _links_share(path: str, targets: list, share: float) -> Callable[[CheckContext], list[str]]:
    """`path` links at least `share` of `targets` (any predicate, embeds not counted): a
    hub links most of its community, not only its pillars."""
    wanted = sorted(set(targets))

    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return [f"{path} would be deleted, so it cannot link its notes"]
        if not wanted:
            return []
        linked = {t for t, _ in outbound_keys(text)}
        missing = [t for t in wanted if t not in linked]
        have = len(wanted) - len(missing)
        if have >= share * len(wanted):
            return []
        return [
            f"{path} links {have} of {len(wanted)} notes ({have / len(wanted):.0%}); it must "
            f"link at least {share:.0%} of them — add links to e.g. "
            + ", ".join(f"[[{t}]]" for t in missing[:5])
        ]

    return run


def _pillars_are_members(
    pillars: list, members: list, min_pillars: int = 3
) -> Callable[[CheckContext], list[str]]:
    """A hub's pillars are distinct notes of its own community, at least `min_pillars`."""
    allowed = set(members)

    def run(ctx: CheckContext) -> list[str]:
        failures = [
            f"pillar {p} is not a note of this community; pick pillars among its members"
            for p in dict.fromkeys(pillars)
            if p not in allowed
        ]
        distinct = len(set(pillars))
        if distinct < min_pillars:
            failures.append(
                f"the hub names {distinct} distinct pillar(s); it needs at least {min_pillars}"
            )
        return failures

    return run


# -- merge (docs/spec.md §7.7) ------------------------------------------------------


def _retargeted_links(old: str, new: str, files: dict) -> Callable[[CheckContext], list[str]]:
    """A merge's retarget: each of `files` ({path: {"forms": the targets that meant `old`
    there, "keys": its edge keys after}}) no longer links `old` by any of those forms and
    has exactly the expected edge keys — every other link kept, nothing else changed."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path, want in sorted(files.items()):
            text = _text(ctx, path)
            if text is None:
                failures.append(f"{path} would be deleted, so it cannot keep its links")
                continue
            forms = set(want.get("forms") or ()) | {old}
            if any(lk.target in forms for lk in parse_links(text)):
                failures.append(f"{path} still links to {old}; retarget it to [[{new}]]")
            expected = {(t, p) for t, p in want.get("keys") or ()}
            have = outbound_keys(text)
            failures += [
                f"{path} drops the link {('' if p is None else p + ':: ')}[[{t}]]"
                for t, p in sorted(expected - have, key=lambda k: (k[0], k[1] or ""))
            ]
            failures += [
                f"{path} gains the link {('' if p is None else p + ':: ')}[[{t}]]; a retarget "
                f"only points the links to {old} at {new}"
                for t, p in sorted(have - expected, key=lambda k: (k[0], k[1] or ""))
            ]
        return failures

    return run


def _stem(path: str) -> str:
    name = posixpath.basename(path)
    return name[:-3] if name.lower().endswith(".md") else name


def _first_difference(old: str, new: str) -> str:
    """The first line where `old` and `new` differ, as a person would look for it."""
    a, b = old.split("\n"), new.split("\n")
    for number, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {number}: {x.strip()[:80]!r} became {y.strip()[:80]!r}"
    shorter = min(len(a), len(b))
    return (f"line {shorter + 1}: {'removed' if len(a) > len(b) else 'added'} "
            f"{(a if len(a) > len(b) else b)[shorter].strip()[:80]!r}")


def _retargets_only_links(old: str, new: str, files: dict) -> Callable[[CheckContext], list[str]]:
    """A merge's retarget changes link spans and nothing else (docs/spec.md §7.7.5): in
    each of `files` ({path: {"forms": the targets that meant `old` there, "anchors":
    {old anchor: new anchor, or None when the link now names the note}}}) the new text
    is the old text with only links to `old` pointed at `new` — every other character,
    line and list item as it was, every alias and embed mark kept."""
    targets = {new, _stem(new)}

    def changed_link(path: str, want: Mapping, was, now) -> str | None:
        forms = set(want.get("forms") or ()) | {old}
        anchors = want.get("anchors") or {}
        if was.target not in forms:
            return f"{path}: the link {was.raw} does not lead to {old}, yet became {now.raw}"
        if now.target not in targets or now.embed != was.embed or now.alias != was.alias:
            return f"{path}: {was.raw} became {now.raw}; only its target may change, to {new}"
        if now.anchor != anchors.get(was.anchor, was.anchor):
            return (f"{path}: {was.raw} became {now.raw}; its anchor should be "
                    f"{anchors.get(was.anchor, was.anchor)!r}")
        return None

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path, want in sorted(files.items()):
            before, after = ctx.before.get(path), ctx.after.get(path)
            if before is None or after is None:
                failures.append(f"{path} would be created or deleted; a retarget only edits")
                continue
            was_text = before.decode("utf-8", errors="replace")
            now_text = after.decode("utf-8", errors="replace")
            was, now = parse_links(was_text), parse_links(now_text)
            if len(was) != len(now) or _between(was_text, was) != _between(now_text, now):
                failures.append(
                    f"{path}: the retarget changes more than the links to {old} "
                    f"({_first_difference(was_text, now_text)}); a merge only points those "
                    "links at the winner — plan the merge again")
                continue
            failures += [why for a, b in zip(was, now, strict=True) if a.raw != b.raw
                         and (why := changed_link(path, want, a, b)) is not None]
        return failures

    return run


def _between(text: str, links: list) -> list[str]:
    """The text around and between `links` (in order): what a retarget never changes."""
    out, last = [], 0
    for link in links:
        out.append(text[last:link.start])
        last = link.end
    return [*out, text[last:]]


def _retargets_every_link(old: str, new: str, read: Reader | None = None
                          ) -> Callable[[CheckContext], list[str]]:
    """Every file of the vault that links `old` now is in the changeset (docs/spec.md
    §7.7.5): run under the store's lock when the merge applies, it walks the vault's
    files for links resolving to `old` the way Obsidian resolves them (short, relative,
    any case, with or without `.md`, embeds and anchored links too). A file that does,
    outside the changeset, was written after the merge was planned: the merge is stale
    (`STALE_CHECKS`), planned again with that file retargeted. `read` is the store's
    reader, given when the check is built (`build_check(spec, read=...)`)."""
    stem = _stem(old).casefold()

    if read is None:
        raise RemeError(f"retargets_every_link reads the vault's files: build it with read= "
                        f"(the proposal queue does); apply the merge of {old} through "
                        "`reme-workbench proposals accept`.")

    def run(ctx: CheckContext) -> list[str]:
        listed = set(ctx.changeset.paths)
        everything = ctx.files()
        resolver = LinkResolver(everything)
        failures = []
        for rel in sorted(everything):
            if rel in listed or not rel.lower().endswith(".md"):
                continue
            try:
                found = read(rel)
            except (OSError, RemeError) as exc:
                failures.append(f"{rel} cannot be read ({exc}), so whether it links to {old} "
                                "is unknown; make it readable, then accept again")
                continue
            if found is None:
                continue
            text = found[0].decode("utf-8", errors="replace")
            if stem not in text.casefold():
                continue  # every form of a link to `old` names its file name
            hit = next((lk for lk in parse_links(text) if lk.target and (
                lk.target == old or resolver.resolve(lk.target, rel).path == old)), None)
            if hit is not None:
                failures.append(
                    f"{rel} links to {old} ({hit.raw}, line {hit.line}), which this merge "
                    f"does not retarget: it was written after the merge was planned; plan the "
                    f"merge again so it points at {new} (`proposals accept` does)")
        return failures

    return run


def value_key(text: str) -> str:
    """How `keeps_values` compares a value with a body: NFKC, case folded, every run of
    characters that are not letters or digits one space (`payments-api`, `payments_api`
    and `Payments API` are one value; `15 minutes` is not `15 min`)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text).split())


# a value matches whole words where it starts or ends with a Latin letter or a digit
# (`15` is not in `150`); next to Chinese text there are no spaces to match
_WORDISH = "0-9a-z\u00c0-\u024f"


def _holds_value(haystack: str, key: str) -> bool:
    if not key:
        return True
    left = f"(?<![{_WORDISH}])" if re.match(f"[{_WORDISH}]", key[0]) else ""
    right = f"(?![{_WORDISH}])" if re.match(f"[{_WORDISH}]", key[-1]) else ""
    return re.search(left + re.escape(key) + right, haystack) is not None


def missing_values(body_key: str, values) -> list[str]:
    """The values (as given, each once) that a body whose `value_key` is `body_key` does
    not hold: `keeps_values`' rule, which the offline brain's merge follows too."""
    return [v for v in dict.fromkeys(str(v) for v in values)
            if not _holds_value(body_key, value_key(v))]


def _keeps_values(path: str, values: Mapping[str, list]) -> Callable[[CheckContext], list[str]]:
    """A merge keeps what both notes said (docs/spec.md §7.7.5): every value of `values`
    ({note: the values its statements give — numbers, identifiers, names, commands,
    dates, addresses — read when the merge was planned}) is in `path`'s body after the
    frontmatter, compared by `value_key` (links count by their text, so a value that is
    now a link's alias or target is kept). The failure names every missing value and the
    note that said it."""

    def run(ctx: CheckContext) -> list[str]:
        text = _text(ctx, path)
        if text is None:
            return [f"{path} would be deleted, so it cannot keep what the notes said"]
        fm = find_frontmatter(text)
        haystack = value_key(text[fm.end:] if fm is not None else text)
        failures = []
        for source, said in sorted(values.items()):
            missing = missing_values(haystack, said)
            if missing:
                shown = ", ".join(f"`{v}`" for v in missing[:20])
                more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
                failures.append(
                    f"{path} drops what {source} said: {shown}{more}; carry each statement "
                    "that gives them over word for word")
        return failures

    return run


# name -> factory(**params) -> check function
CHECKS: dict[str, Callable[..., Callable[[CheckContext], list[str]]]] = {
    "keeps_outbound": _keeps_outbound,
    "union_keeps_outbound": _union_keeps_outbound,
    "has_provenance": _has_provenance,
    "keeps_some_provenance": _keeps_some_provenance,
    "no_new_anchors": _no_new_anchors,
    "name_matches_basename": _name_matches_basename,
    "only_paths": _only_paths,
    "creates_in_bucket": _creates_in_bucket,
    "no_sources_written": _no_sources_written,
    "links_resolve": _links_resolve,
    "removes_only_broken_links": _removes_only_broken_links,
    "links_to": _links_to,
    "carries_provenance": _carries_provenance,
    "links_share": _links_share,
    "body_under_tokens": _body_under_tokens,
    "pillars_are_members": _pillars_are_members,
    "retargeted_links": _retargeted_links,
    "keeps_values": _keeps_values,
    "retargets_only_links": _retargets_only_links,
    "retargets_every_link": _retargets_every_link,
}

# Checks whose failure means the vault moved on since the proposal was planned, not that
# the plan is wrong: a changeset failing only these is *stale* (the proposal queue marks
# it so, and accept plans it again), not rejected.
STALE_CHECKS = frozenset({"retargets_every_link"})
# Checks that read vault files beyond their changeset: built with the store's reader.
_READING = frozenset({"retargets_every_link"})


def only_stale(failures) -> bool:
    """Whether every `(check name, why)` failure is of a check in `STALE_CHECKS`."""
    failures = list(failures)
    return bool(failures) and all(name in STALE_CHECKS for name, _ in failures)


def build_check(spec: CheckSpec, *, read: Reader | None = None) -> NamedCheck:
    """The check `spec` names; `read` (the store's reader) goes to the checks that read
    vault files beyond their changeset."""
    factory = CHECKS.get(spec.name)
    if factory is None:
        raise RemeError(
            f"Unknown check {spec.name!r}; known checks: {', '.join(sorted(CHECKS))}. "
            "The proposal may come from a newer version of reme-workbench."
        )
    params = dict(spec.params)
    if spec.name in _READING:
        params["read"] = read
    try:
        fn = factory(**params)
    except TypeError as exc:
        raise RemeError(f"Check {spec.name!r} got bad parameters ({exc}).") from None
    return NamedCheck(spec.name, fn)


def build_checks(specs, *, read: Reader | None = None) -> tuple[NamedCheck, ...]:
    return tuple(build_check(s, read=read) for s in specs)
