"""A person's edits kept in a stale proposal, carried into the proposal that plans it again.

A person's edits given with `accept` are kept in the proposal (its ops, and its story's
`edited_by_person`). When the proposal went stale and is planned again,
`carry_person_edits` takes them into the new plan when it creates a note in their place —
the person's text becomes the new create's content, its `name` following the slug if the
slug changed, checked by the new plan's checks when it is accepted — and otherwise says
why not and where they are kept (docs/spec.md §3.2.5).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from ..errors import NoteError
from ..vault.frontmatter import find_frontmatter
from ..vault.note import parse, render
from ..vault.store import Create, Delete
from .model import Proposal, op_kind
from .queue import ProposalQueue

__all__ = ["person_edits", "carry_person_edits"]


def person_edits(proposal: Proposal) -> dict[str, bytes]:
    """{path: the person's text} for each file a person edited when accepting `proposal`
    (its story's `edited_by_person`; the text is the op's content, stored with it)."""
    edited = set(proposal.story.get("edited_by_person") or ())
    return {op.path: op.content for op in proposal.ops
            if op.path in edited and not isinstance(op, Delete)}


def carry_person_edits(queue: ProposalQueue, old: Proposal, new_ids: list[str]) -> str | None:
    """Take the person's edits kept in `old` into the proposal planning it again, when that
    proposal creates one note where `old` created the one the person edited: its content
    becomes the person's text, re-targeted to the new path. Returns what became of the
    edits, for the person (None when `old` carries none); edits that cannot be carried
    stay in `old` and the answer says so."""
    edits = person_edits(old)
    if not edits:
        return None
    kept = (f"they are kept in {old.id} (`reme-workbench proposals show {old.id}` shows your "
            "text as its diff)")
    created = {op.path for op in old.ops if isinstance(op, Create)}
    new = [queue.load(pid) for pid in new_ids]
    said: list[str] = []
    for path, text in sorted(edits.items()):
        if path not in created:  # made to a note as it was: it changed since
            said.append(f"your edits to {path} were not carried: they were made to the note as "
                        f"it was when planned, and it changed since; {kept}")
            continue
        if len(new) != 1 or [op_kind(op) for op in new[0].ops] != ["create"]:
            now = "; ".join(f"{p.id} {', '.join(f'{op_kind(op)}s {op.path}' for op in p.ops)}"
                            for p in new) or "it proposed nothing"
            said.append(f"your edits to {path} were not carried: planning it again {now}, "
                        f"which text written for a new note at {path} cannot become; {kept}. "
                        "Add them by hand to the note that is there now")
            continue
        proposal = new[0]
        (op,) = proposal.ops
        content = _retargeted(text, path, op.path)
        story = {**proposal.story, "edited_by_person": [op.path],
                 "edits_carried_from": {"proposal": old.id, "path": path}}
        queue.save(replace(proposal, ops=(Create(op.path, content),), story=story))
        moved = "" if op.path == path else f" (re-targeted to {op.path}: {path} was taken)"
        said.append(f"your edits to {path} are carried into {proposal.id}{moved}; its checks "
                    "run on them when you accept it")
    return "; ".join(said) + "."


def _retargeted(text: bytes, old_path: str, new_path: str) -> bytes:
    """The person's text for `old_path` as the note at `new_path`: its frontmatter `name`
    follows the file name (the `name` line alone is rewritten where it names the old
    one, so the rest of their frontmatter stays as they wrote it)."""
    if old_path == new_path:
        return text
    old_stem = posixpath.basename(old_path).removesuffix(".md")
    new_stem = posixpath.basename(new_path).removesuffix(".md")
    try:
        source = text.decode("utf-8")
        span = find_frontmatter(source)
        if span is not None:
            name = re.compile(rf"^name:[ \t]*([\'\"]?){re.escape(old_stem)}\1[ \t]*(?=\r?$)",
                              re.MULTILINE)
            block, found = name.subn(f"name: {new_stem}", source[:span.end], count=1)
            if found and parse(block + source[span.end:], new_path).name == new_stem:
                return (block + source[span.end:]).encode("utf-8")
        return render(parse(source, new_path).with_name_synced()).encode("utf-8")
    except (UnicodeDecodeError, NoteError):
        return text  # the checks say what is wrong with it when it is accepted
