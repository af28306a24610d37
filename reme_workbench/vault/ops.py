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
from .layout import check_writable, is_digest_note, is_markdown, layer_of, normalize_rel
from .links import outbound_keys, parse_links, retarget_text
from .note import MAX_NOTE_BYTES, decode_note_bytes, parse, render, rewritten_whole
from .store import AuditEntry, Changeset, CheckContext, Create, Delete, Edit, NamedCheck, Store

__all__ = ["RetargetPlan", "plan_retarget", "plan_rename", "RETARGET_LAYERS"]

# Which layers a retarget rewrites by default: pipelines touch digest/ only; the
# explicit `rename` command also updates the agent's daily logs. resource/ is immutable.
RETARGET_LAYERS: tuple[str, ...] = ("digest",)


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
    """Plan moving note `old` to `new` and retargeting every inbound link, as one changeset.

    The moved note's frontmatter `name` follows its new basename. A note moves within
    digest/. Sources are immutable: a daily log moves only with `move_source=True` (the
    `rename --move-source` command) and only within daily/, so the provenance links
    pointing at it are retargeted, not broken; resource/ files never move, and nothing
    crosses between material and notes.
    """
    old, new = normalize_rel(old), normalize_rel(new)
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
    moved_text, self_links = retarget_text(text, old, new)
    note = parse(moved_text, new)
    if "name" in note.frontmatter or is_digest_note(new):
        note = note.with_name_synced()
    moved_text = render(note)
    # docs/spec.md §1.4.2: the one case the block cannot be edited in place is said
    rewritten = rewritten_whole(note)

    records = list(records)
    inbound = plan_retarget(
        store, records, old, new, layers=layers, exclude=[old], max_bytes=max_bytes
    )
    counts = dict(inbound.counts)
    if self_links:
        counts[new] = self_links
    ops = (Create(new, moved_text.encode("utf-8")), Delete(old, stamp), *inbound.changeset.ops)
    moved_from = posixpath.basename(old)
    audit = AuditEntry(
        kind="vault_actions",
        markdown=(
            f"- rename `{old}` -> [[{new}]] ({moved_from} moved; "
            f"{inbound.total} inbound link(s) in {len(inbound.counts)} file(s) retargeted)"
            + (f"; its frontmatter written again whole ({rewritten})" if rewritten else "")
            + "\n"
        ),
    )
    changeset = Changeset(
        ops=ops,
        checks=inbound.changeset.checks + (_check_moved_keeps_links(old, new, text),),
        description=f"rename {old} -> {new}",
        allow_sources=allow_sources or inbound.changeset.allow_sources,
        audit=audit,
    )
    return RetargetPlan(old, new, counts, inbound.left_alone, changeset)


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


def _check_moved_keeps_links(old: str, new: str, before_text: str) -> NamedCheck:
    def run(ctx: CheckContext) -> list[str]:
        after = ctx.after.get(new)
        if after is None:
            return [f"{new} would not be created"]
        if ctx.after.get(old) is not None:
            return [f"{old} would still exist after the move"]
        if outbound_keys(after.decode("utf-8")) != _mapped_keys(before_text, old, new):
            return [f"{new} would not keep the links {old} had"]
        return []

    return NamedCheck("rename_keeps_the_moved_note_links", run)
