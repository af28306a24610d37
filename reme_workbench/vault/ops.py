"""User-level operations built from the pure parts: retarget links, rename a note.

Each operation *plans* a `Changeset` (with mechanical checks that prove it did only
what it says) and leaves applying it to the caller, so a dry run is just "plan, show,
don't apply" and the review workbench can hold the plan as a proposal.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import NoteExistsError, RemeError
from .frontmatter import find_frontmatter
from .layout import check_writable, is_digest_note, is_markdown, layer_of, normalize_rel
from .links import Link, outbound_keys, parse_links, retarget_text
from .note import MAX_NOTE_BYTES, decode_note_bytes, parse, render, rewritten_whole
from .resolve import LinkResolver, is_relative, moved_relative, retarget_form
from .store import AuditEntry, Changeset, CheckContext, Create, Delete, Edit, NamedCheck, Store

__all__ = ["RetargetPlan", "plan_retarget", "plan_rename", "RETARGET_LAYERS"]

# Which layers a retarget rewrites by default: pipelines touch digest/ only; the
# explicit `rename` command also updates the agent's daily logs. resource/ is immutable.
RETARGET_LAYERS: tuple[str, ...] = ("digest",)
# Obsidian reads these in a link target as heading, alias, brackets and block reference,
# so no link could name a file holding one (docs/spec.md §1.3.4).
_LINK_SYNTAX = "#|[]^"
# What Linux, macOS and Windows file systems allow in one file or folder name.
# How many links a refused rename names before "and N more".
_NAMED_LINKS = 20


@dataclass(frozen=True)
class RetargetPlan:
    old: str
    new: str
    counts: dict[str, int]  # file -> links rewritten in it
    left_alone: dict[str, int]  # files outside the allowed layers that still link to `old`
    changeset: Changeset

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _mapped_keys(text: str, old: str, new: str) -> set[tuple[str, str | None]]:
    return {(new if t == old else t, p) for t, p in outbound_keys(text)}


def _check_retargeted(old: str, new: str, sources: dict[str, str]) -> NamedCheck:
    """Every edited file keeps its edges with `old` replaced by `new`, and nothing else."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path, before_text in sources.items():
            after = ctx.after.get(path)
            if after is None:
                continue
            after_text = after.decode("utf-8")
            if any(link.target == old for link in parse_links(after_text)):
                failures.append(f"{path} still links to {old}")
            if outbound_keys(after_text) != _mapped_keys(before_text, old, new):
                failures.append(f"{path}: its other links changed, not only {old} -> {new}")
        return failures

    return NamedCheck("retarget_rewrites_every_link_and_nothing_else", run)


def _linking_files(records: Iterable, old: str) -> list[str]:
    return sorted(r.path for r in records if r.is_markdown and any(lk.target == old for lk in r.links))


def plan_retarget(
    store: Store,
    records: Iterable,
    old: str,
    new: str,
    *,
    layers: Iterable[str] = RETARGET_LAYERS,
    exclude: Iterable[str] = (),
    max_bytes: int = MAX_NOTE_BYTES,
) -> RetargetPlan:
    """Plan rewriting every inbound link to `old` so it points at `new`.

    `records` are the scan's file records (used to find linking files cheaply); each
    file is re-read through the store so the edit carries the stamp it was planned
    against. Alias, embed mark, anchor and predicate are kept; nothing else changes.
    """
    old, new = normalize_rel(old), normalize_rel(new)
    layers = tuple(layers)
    exclude = set(exclude)
    counts: dict[str, int] = {}
    left: dict[str, int] = {}
    ops: list[Edit] = []
    sources: dict[str, str] = {}
    for path in _linking_files(records, old):
        if path in exclude:
            continue
        if layer_of(path) not in layers:
            text = _read_text(store, path, max_bytes)
            left[path] = sum(1 for lk in parse_links(text) if lk.target == old)
            continue
        current = store.read(path)
        if current is None:  # removed since the scan; nothing to rewrite
            continue
        data, stamp = current
        text = decode_note_bytes(data, path, max_bytes=max_bytes)
        new_text, count = retarget_text(text, old, new)
        if count:
            counts[path] = count
            sources[path] = text
            ops.append(Edit(path, new_text.encode("utf-8"), stamp))
    changeset = Changeset(
        ops=tuple(ops),
        checks=(_check_retargeted(old, new, sources),),
        description=f"retarget links {old} -> {new}",
        allow_sources=any(layer_of(p) in ("daily", "resource") for p in counts),
    )
    return RetargetPlan(old, new, counts, left, changeset)


def _read_text(store: Store, path: str, max_bytes: int) -> str:
    current = store.read(path)
    return "" if current is None else decode_note_bytes(current[0], path, max_bytes=max_bytes)


def plan_rename(
    store: Store,
    records: Iterable,
    old: str,
    new: str,
    *,
    layers: Iterable[str] = ("digest", "daily"),
    move_source: bool = False,
    max_bytes: int = MAX_NOTE_BYTES,
) -> RetargetPlan:
    """Plan moving note `old` to `new` and retargeting every link to it, as one changeset.

    Every link that Obsidian resolves to `old` (docs/spec.md §2.4: short name, any case,
    path with or without `.md`, relative, with anchor, alias or embed mark) is rewritten
    in `layers` to resolve to `new`, keeping its form where that form still names `new`
    (`retarget_form`) and its alias, anchor, embed mark and predicate; the moved note's
    own links keep pointing where they pointed. Links in resource/ are counted in
    `left_alone`. A link the rename cannot keep — one that could mean `old` or another
    file, or one to another file that the new name would capture or make ambiguous — is
    refused before anything is written, naming it by file and line (docs/spec.md §1.3.4).

    The moved note's frontmatter `name` follows its new basename. A note moves within
    digest/. Sources are immutable: a daily log moves only with `move_source=True` (the
    `rename --move-source` command) and only within daily/, so the provenance links
    pointing at it are retargeted, not broken; resource/ files never move, and nothing
    crosses between material and notes.
    """
    new = _check_new_path(new)
    old = normalize_rel(old)
    if old == new:
        raise RemeError(f"{old} and {new} are the same path; nothing to rename.", path=old)
    if not is_markdown(old) or not is_markdown(new):
        raise RemeError(
            f"rename moves notes: both paths must end in .md (got {old} -> {new}).", path=old
        )
    _check_rename_layers(old, new, move_source=move_source)
    allow_sources = layer_of(old) == "daily"
    check_writable(new, allow_sources=allow_sources)
    check_writable(old, allow_sources=allow_sources)
    current = store.read(old)
    if current is None:
        raise RemeError(f"{old} does not exist; check the path (vault-relative, with .md).", path=old)
    if store.read(new) is not None:
        raise NoteExistsError(f"{new} already exists; choose another name.", path=new)
    data, stamp = current
    text = decode_note_bytes(data, old, max_bytes=max_bytes)

    records = [r for r in records if r.path != new]
    before, after = _resolvers([r.path for r in records], old, new)
    retarget = _RenameLinks(old, new, before, after)
    moved_text, self_links = retarget.text(text, old, new)
    note = parse(moved_text, new)
    if "name" in note.frontmatter or is_digest_note(new):
        note = note.with_name_synced()
    moved_text = render(note)
    # docs/spec.md §1.4.2: the one case the block cannot be edited in place is said
    rewritten = rewritten_whole(note)

    layers = tuple(layers)
    counts: dict[str, int] = {new: self_links} if self_links else {}
    left: dict[str, int] = {}
    ops: list = [Create(new, moved_text.encode("utf-8")), Delete(old, stamp)]
    planned: dict[str, tuple[str, str]] = {new: (old, text)}
    for rec in sorted(records, key=lambda r: r.path):
        if not rec.is_markdown or rec.path == old or not retarget.may_concern(rec.links):
            continue
        found = store.read(rec.path)
        if found is None:  # removed since the scan; nothing to rewrite
            continue
        source_text = decode_note_bytes(found[0], rec.path, max_bytes=max_bytes)
        if layer_of(rec.path) not in layers:
            n = retarget.count_links_to_old(source_text, rec.path)
            if n:
                left[rec.path] = n
            continue
        new_text, count = retarget.text(source_text, rec.path, rec.path)
        if count:
            counts[rec.path] = count
            planned[rec.path] = (rec.path, source_text)
            ops.append(Edit(rec.path, new_text.encode("utf-8"), found[1]))
    if retarget.problems:
        raise RemeError(_refusal(old, new, retarget.problems), path=old)
    inbound = sum(n for p, n in counts.items() if p != new)
    moved_from = posixpath.basename(old)
    audit = AuditEntry(
        kind="vault_actions",
        markdown=(
            f"- rename `{old}` -> [[{new}]] ({moved_from} moved; "
            f"{inbound} inbound link(s) in {len(counts) - (new in counts)} file(s) retargeted)"
            + (f"; its frontmatter written again whole ({rewritten})" if rewritten else "")
            + "\n"
        ),
    )
    changeset = Changeset(
        ops=tuple(ops),
        checks=(_check_rename_keeps_links(old, new, planned),),
        description=f"rename {old} -> {new}",
        allow_sources=allow_sources or any(layer_of(p) in ("daily", "resource") for p in counts),
        audit=audit,
    )
    return RetargetPlan(old, new, counts, left, changeset)


def _check_new_path(new: str) -> str:
    """`new` as a clean vault path a link can name, or one line saying what to change
    (`normalize_rel` refuses empty, absolute and `..` paths; the layer checks the rest)."""
    bad = "".join(sorted(set(_LINK_SYNTAX) & set(new)))
    if bad:
        raise RemeError(
            f"{new!r} holds {' '.join(bad)}: Obsidian reads # | [ ] ^ in a link as heading, "
            "alias, brackets and block, so no link could name the note; choose a name "
            "without them.",
            path=new,
        )
    if "\n" in new or "\r" in new:
        raise RemeError(f"{new!r} holds a line break; give the new path on one line.", path=new)
    return normalize_rel(new)  # a name over 255 bytes is refused there, saying so


def _resolvers(paths: list[str], old: str, new: str) -> tuple[LinkResolver, LinkResolver]:
    """Obsidian's resolution over the vault as it is, and as it will be after the move."""
    before = LinkResolver(paths)
    after = LinkResolver(paths)
    after.remove(old)
    after.add(new)
    return before, after


def _stem(target: str) -> str:
    """The last segment of a link target, lowercased, without `.md`: all that decides
    whether a link can resolve to a given file at all."""
    last = target.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    return last[:-3] if last.endswith(".md") else last


class _RenameLinks:
    """Rewrites the links of one file for the move `old` -> `new` (see `plan_rename`),
    collecting the links it must refuse in `problems`."""

    def __init__(self, old: str, new: str, before: LinkResolver, after: LinkResolver) -> None:
        self.old, self.new = old, new
        self.before, self.after = before, after
        # a link whose last segment is neither name resolves the same before and after
        self.names = {_stem(old), _stem(new), "", ".", ".."}
        self.problems: list[str] = []

    def may_concern(self, links: Iterable[Link]) -> bool:
        return any(lk.target and _stem(lk.target) in self.names for lk in links)

    def count_links_to_old(self, text: str, source: str) -> int:
        return sum(1 for lk in parse_links(text) if lk.target
                   and self.before.resolve(lk.target, source).path == self.old)

    def text(self, text: str, source: str, moved_to: str) -> tuple[str, int]:
        """`text` (the file `source`, at `moved_to` afterwards) with its links rewritten;
        returns (new text, links rewritten)."""
        parts: list[str] = []
        last = count = 0
        for link in parse_links(text):
            if not link.target or (source == moved_to and _stem(link.target) not in self.names):
                continue
            form = self._form(link, source, moved_to)
            if form is None or form == link.target:
                continue
            parts += [text[last:link.target_start], form]
            last = link.target_end
            count += 1
        return ("".join(parts) + text[last:], count) if count else (text, 0)

    def _form(self, link: Link, source: str, moved_to: str) -> str | None:
        """The new target of `link`, or None to leave it (refusals go to `problems`)."""
        where = f"{source}:{link.line} {link.raw}"
        was = self.before.resolve(link.target, source)
        if was.path == self.old:
            form = retarget_form(link.target, self.new, moved_to, self.after)
            if form is None:
                self.problems.append(f"{where} cannot be written to name {self.new}")
            return form
        if was.how == "ambiguous" and self.old in was.candidates:
            self.problems.append(
                f"{where} could mean {' or '.join(was.candidates)}: write the one it means "
                "as a vault path")
            return None
        moved = source != moved_to
        if moved and is_relative(link.target):
            # the moved note's relative links name the same place from its new folder
            form = moved_relative(link.target, source, moved_to)
            if form is not None and (was.path is None
                                     or self.after.resolve(form, moved_to).path == was.path):
                return form
        if was.path is None:
            return None  # resolved to nothing: nothing to keep
        now = self.after.resolve(link.target, moved_to)
        if now.path == was.path:
            return None
        if moved:
            form = retarget_form(link.target, was.path, moved_to, self.after)
            if form is not None:
                return form
        what = now.path or " or ".join(now.candidates) or "nothing"
        self.problems.append(f"{where} names {was.path} and would name {what} after the rename")
        return None


def _refusal(old: str, new: str, problems: list[str]) -> str:
    shown = [f"  {p}" for p in problems[:_NAMED_LINKS]]
    if len(problems) > _NAMED_LINKS:
        shown.append(f"  … and {len(problems) - _NAMED_LINKS} more")
    return (
        f"rename {old} -> {new} would break {len(problems)} link(s), so nothing was written:\n"
        + "\n".join(shown)
        + "\nWrite each as the vault path it means ([[digest/…/note.md|text]]; `reme-workbench "
        "health --fix` does it for short links in digest/), or choose another name."
    )


def _check_rename_layers(old: str, new: str, *, move_source: bool) -> None:
    """One line naming the fix when a rename would move source material."""
    for path in (old, new):
        if layer_of(path) == "resource":
            raise RemeError(
                f"{path} is in resource/, which is immutable source material; leave it where "
                "it is.",
                path=path,
            )
    old_layer, new_layer = layer_of(old), layer_of(new)
    if old_layer == "daily" and not move_source:
        raise RemeError(
            f"{old} is source material (daily/); rename moves digest notes. To move a daily "
            "log within daily/ (retargeting the links to it, provenance included), add "
            "--move-source.",
            path=old,
        )
    if old_layer != new_layer and "daily" in (old_layer, new_layer):
        what = "source material into a note" if old_layer == "daily" else "a note into source material"
        raise RemeError(
            f"{old} -> {new} would turn {what} and break provenance; a daily log moves only "
            "within daily/ (dream makes notes from material).",
            path=old,
        )


def _body(text: str) -> str:
    fm = find_frontmatter(text)
    return text[fm.end:] if fm is not None else text


def _outside_targets(text: str, links: list[Link]) -> str:
    """`text` with each link's target span cut out: what a rename may not change."""
    parts, last = [], 0
    for lk in links:
        parts += [text[last:lk.target_start], "\x00"]
        last = lk.target_end
    return "".join(parts) + text[last:]


def _check_rename_keeps_links(old: str, new: str, planned: dict[str, tuple[str, str]]) -> NamedCheck:
    """At apply time, over the vault's files as they are then: in every file written (the
    moved note at `new`, read before as `old`), each link keeps its alias, anchor, embed
    mark and predicate and resolves to what it resolved to, `old` read as `new`; a link
    that resolved to nothing keeps its target (outside the moved note); and no byte
    changes outside the link targets (the moved note's frontmatter aside)."""

    def run(ctx: CheckContext) -> list[str]:
        if ctx.after.get(new) is None or ctx.after.get(old) is not None:
            return [f"{old} would not move to {new}"]
        before, after = _resolvers(ctx.files(), old, new)
        failures = []
        for path, (source, before_text) in planned.items():
            data = ctx.after.get(path)
            if data is None:
                failures.append(f"{path} would not be written")
                continue
            after_text = data.decode("utf-8")
            was, now = parse_links(before_text), parse_links(after_text)
            if len(was) != len(now):
                failures.append(f"{path}: {len(was)} link(s) before, {len(now)} after")
                continue
            for a, b in zip(was, now, strict=True):
                if (a.alias, a.anchor, a.embed, a.predicate) != (b.alias, b.anchor, b.embed, b.predicate):
                    failures.append(f"{path}:{b.line} {a.raw} became {b.raw}")
                    continue
                went = before.resolve(a.target, source).path if a.target else None
                if went is None:
                    if a.target != b.target and path != new:
                        failures.append(f"{path}:{b.line} {a.raw} resolved to nothing and changed")
                    continue
                goes = after.resolve(b.target, path).path
                if goes != (new if went == old else went):
                    failures.append(f"{path}:{b.line} {b.raw} would name {goes}, not "
                                    f"{new if went == old else went}")
            if path == new:
                before_text, after_text = _body(before_text), _body(after_text)
                was, now = parse_links(before_text), parse_links(after_text)
            if _outside_targets(before_text, was) != _outside_targets(after_text, now):
                failures.append(f"{path}: text other than link targets would change")
        return failures

    return NamedCheck("rename_keeps_every_link", run)
