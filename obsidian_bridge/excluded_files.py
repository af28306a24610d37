"""Obsidian's "Excluded files": `userIgnoreFilters` in `.obsidian/app.json`.

An `import` keeps the originals of a person's vault byte for byte in
`resource/<day>/<vault name>/` as the notes' provenance (docs/spec.md §3.6.5). They are
Markdown notes too, so Obsidian would show every note twice — in search, the quick
switcher and the graph. Obsidian's own setting (Settings → Files and links → Excluded
files) hides a folder from search, the graph and unlinked mentions and ranks it last in
the quick switcher and link suggestions, while links into it still resolve and open: a
note's `derived_from::` link still opens its original, an embed still shows its image.
The folder stays where dream reads sources and where the provenance links resolve for
reme-workbench.

Obsidian keeps that setting in `.obsidian/app.json` as a list of entries: a path the
file's path starts with (a folder ends in `/`), or a `/regular expression/`. The folder
is merged into that list: every other setting and every entry the person made stay as
they are, in their order, the folder goes after them, and a folder an entry already
covers is not added again. An app.json that does not parse (or whose list is not a
list) — or that cannot be read: a folder, a symlink — is left exactly as it is, with a
message saying how to add the folder by hand; the import lands either way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from reme_workbench.errors import RemeError
from reme_workbench.vault.store import Create, Edit, FileOp
from reme_workbench.vault.vault import Vault

__all__ = ["APP_JSON", "IGNORE_KEY", "ExcludedPlan", "covers", "merge_excluded", "plan_excluded"]

APP_JSON = ".obsidian/app.json"
IGNORE_KEY = "userIgnoreFilters"


def covers(entry: object, folder: str) -> bool:
    """Whether the entry already excludes every file of `folder/`: a plain entry the
    folder's path starts with (`resource/` covers all of resource/). A regular
    expression is not second-guessed: the folder is added beside it."""
    if not isinstance(entry, str) or not entry:
        return False
    if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
        return False
    return f"{folder.rstrip('/')}/".startswith(entry)


def merge_excluded(doc: dict, folders: Sequence[str]) -> dict:
    """`doc` (app.json as read) with each of `folders` excluded (see the module doc). Pure;
    `doc[IGNORE_KEY]` must be a list when present."""
    entries = list(doc.get(IGNORE_KEY) or [])
    for folder in folders:
        if not any(covers(entry, folder) for entry in entries):
            entries.append(f"{folder.rstrip('/')}/")
    out = dict(doc)
    out[IGNORE_KEY] = entries
    return out


@dataclass(frozen=True)
class ExcludedPlan:
    ops: tuple[FileOp, ...]  # the app.json write, or nothing
    excluded: tuple[str, ...]  # the entries it adds
    message: str  # what happened, or why app.json was left alone and what to do


def plan_excluded(vault: Vault, folders: Sequence[str]) -> ExcludedPlan:
    """The write of `.obsidian/app.json` that excludes `folders` (created when the vault
    has none; stamped, so a file Obsidian saved meanwhile makes the caller re-plan)."""
    by_hand = " and ".join(f"{f.rstrip('/')}/" for f in folders)
    left_alone = (f"it is left as it is, so Obsidian shows the originals in {by_hand} beside "
                  "your notes. Fix the file, or add the folder under Settings → Files and "
                  "links → Excluded files.")
    try:
        current = vault.store.read(APP_JSON)
    except RemeError as exc:  # a folder, a symlink, .obsidian a file: never the import's end
        return ExcludedPlan((), (), f"{APP_JSON} cannot be read ({exc}); {left_alone}")
    doc: dict = {}
    if current is not None:
        try:
            doc = json.loads(current[0].decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return ExcludedPlan((), (), f"{APP_JSON} does not parse ({exc}); {left_alone}")
        if not isinstance(doc, dict) or not isinstance(doc.get(IGNORE_KEY) or [], list):
            return ExcludedPlan((), (), f"{APP_JSON} is not a JSON object with a list of "
                                        f"{IGNORE_KEY}; {left_alone}")
    merged = merge_excluded(doc, folders)
    added = tuple(e for e in merged[IGNORE_KEY] if e not in (doc.get(IGNORE_KEY) or []))
    if not added:
        return ExcludedPlan((), (), f"{by_hand} already under Excluded files in {APP_JSON}")
    data = (json.dumps(merged, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    op = Create(APP_JSON, data) if current is None else Edit(APP_JSON, data, current[1])
    return ExcludedPlan((op,), added, f"{', '.join(added)} added to Excluded files in {APP_JSON}: "
                                      "Obsidian's search and graph show each note once")
