"""Adopt a person's existing Obsidian vault: its notes become digest notes.

`plan_import(vault, source)` reads a folder of Markdown notes as Obsidian keeps them
(short links, attachments, folders, any frontmatter) and plans one changeset
(docs/spec.md §3.6.5):

* a snapshot of every original file under `resource/<day>/<vault name>/…`, byte for
  byte — the provenance of what is imported (only created, never overwritten);
* every note as `digest/<bucket>/<its folders>/<name>.md`: the person's folder tree
  kept under the bucket (each folder a valid name, spelled as first met, at most
  `MAX_SUB_FOLDERS` deep), its name kept where the vault's path rules allow (else made
  a slug; a name taken gets `-2`, `-3`, …), its frontmatter kept (a `name` key added
  when it has none), one `derived_from::` line to its snapshot at the end — after
  closing a code fence or comment the note left open, so the line is read as a link —
  and every link resolved among the imported vault's files the way Obsidian resolves it
  and written as the vault path its file now has (notes in digest/, the attachments'
  snapshots in resource/), alias, anchor and predicate kept;
* drawings (`.excalidraw.md`, or an `excalidraw-plugin` frontmatter key), templates (the
  folder `.obsidian/templates.json` or Templater names, or a folder called `templates`)
  and Canvas files are kept as files, not made notes: links to them name their snapshot;
* what could not be brought — files that cannot be read, links that resolve to nothing
  or to several files (left as written) — listed in the plan and in the audit entry.

Nothing here reads beyond `source` or writes outside the changeset; the caller applies
it and logs an `import` access event per note, so recency starts at the import and not
at the files' old times (§7.3.2). The caller may add writes of its own to the same
changeset (`also`): the Obsidian bridge adds the snapshot folder to Obsidian's
"Excluded files", so the originals are not shown beside the notes.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from ..errors import NoteError, NoteExistsError, RemeError, StaleChangesetError, UnsafePathError
from .layout import BUCKETS, MAX_SUB_FOLDERS, is_digest_note, normalize_rel
from .links import format_predicate_link, parse_links
from .meta import log_access
from .note import (
    MAX_NOTE_BYTES,
    Note,
    decode_note_bytes,
    parse,
    render,
    render_bytes,
    rewritten_whole,
)
from .resolve import LinkResolver, aliases_of, is_linkable, normalize_short_links
from .slug import slugify
from .store import AuditEntry, Changeset, Create, FileOp

__all__ = ["ImportedNote", "ImportPlan", "plan_import", "MAX_ATTACHMENT_BYTES"]

# An attachment bigger than this is not copied (reported): a vault of notes is not a
# place for video files, and the changeset stages every byte it writes.
MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024
_SKIPPED_DIRS = {".obsidian", ".trash", ".git"}
_UNSAFE_NAME = str.maketrans({c: "-" for c in "[]|#^\\:*?\"<>"})
# Where Obsidian's core Templates plugin and the Templater plugin keep their folder
# setting, and the folder names people give templates when neither says.
_TEMPLATE_SETTINGS = ((".obsidian/templates.json", "folder"),
                      (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"))
_TEMPLATE_FOLDERS = {"templates", "_templates"}
# A fence line (3+ backticks or tildes; any indent, as in a list item): the closer an
# open fence needs is of its character and at least as long as its opener.
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)


@dataclass(frozen=True)
class ImportedNote:
    source: str  # its path in the imported vault
    path: str  # the digest note it becomes
    snapshot: str  # the original, kept in resource/
    renamed: bool  # the name had to change (made a slug, or taken)


@dataclass(frozen=True)
class ImportPlan:
    source: Path
    folder: str  # resource/<day>/<vault name>: where the originals are kept
    notes: tuple[ImportedNote, ...]
    attachments: dict  # its path in the imported vault -> its snapshot in resource/
    skipped: tuple[tuple[str, str], ...]  # (path in the imported vault, why)
    unresolved: tuple[dict, ...]  # {note, source, line (in the original), raw, why}: left as written
    links_rewritten: int
    changeset: Changeset
    kept_as_files: tuple[tuple[str, str], ...] = ()  # (path, why): Markdown that is no note

    def to_json(self) -> dict:
        return {
            "source": str(self.source),
            "folder": self.folder,
            "notes": [{"source": n.source, "path": n.path, "snapshot": n.snapshot,
                       "renamed": n.renamed} for n in self.notes],
            "attachments": dict(self.attachments),
            "kept_as_files": [{"path": p, "snapshot": self.attachments.get(p), "why": why}
                              for p, why in self.kept_as_files],
            "skipped": [{"path": p, "why": why} for p, why in self.skipped],
            "unresolved": list(self.unresolved),
            "links_rewritten": self.links_rewritten,
        }


def _walk(source: Path, vault_root: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """(files as (posix path in `source`, full path), skipped (path, why)); hidden folders
    (.obsidian, .trash, .git) and the vault itself, when it sits inside `source`, left out."""
    files, skipped = [], []
    vault_root = vault_root.resolve()
    for folder, dirs, names in os.walk(source):
        here = Path(folder)
        keep = []
        for d in sorted(dirs):
            full = here / d
            if d.startswith(".") or d in _SKIPPED_DIRS or full.resolve() == vault_root:
                continue
            if full.is_symlink():
                skipped.append((full.relative_to(source).as_posix(), "a symlink, not followed"))
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(names):
            if name.startswith("."):
                continue
            full = here / name
            rel = full.relative_to(source).as_posix()
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                skipped.append((rel, "a symlink, not followed"))
            elif not stat.S_ISREG(mode):
                skipped.append((rel, "not a regular file"))
            else:
                files.append((rel, full))
    return files, skipped


def _safe_rel(rel: str) -> str:
    """`rel` with each segment made a valid, linkable file name (`#`, `|`, `[`… become `-`)."""
    parts = []
    for part in rel.split("/"):
        clean = " ".join(part.translate(_UNSAFE_NAME).split()).strip(". ") or "file"
        parts.append(clean)
    return "/".join(parts)


def _note_name(stem: str) -> tuple[str, bool]:
    """The digest file name for a note called `stem`: kept when it is a valid, linkable
    name, else its slug. (name, whether it changed)."""
    if stem == stem.strip() and 0 < len(stem) <= 120 and is_linkable(f"digest/wiki/{stem}.md"):
        try:
            normalize_rel(f"digest/wiki/{stem}.md")
            return stem, False
        except UnsafePathError:
            pass
    slug = slugify(stem) or "note"
    return slug, True


def _free_name(name: str, taken) -> str:
    """`name`, else the first of `name-2`, `name-3`, … that is free (a create never overwrites)."""
    if not taken(name):
        return name
    n = 2
    while taken(f"{name}-{n}"):
        n += 1
    return f"{name}-{n}"


def _free_snapshot(snap: str, taken) -> str:
    """`snap`, else `stem-2.ext`, `stem-3.ext`, … — for a file whose name differs from
    another's only by case (two files on Linux, one on macOS and Windows)."""
    if not taken(snap):
        return snap
    folder, name = posixpath.split(snap)
    stem, dot, ext = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    n = 2
    while taken(candidate := posixpath.join(folder, f"{stem}-{n}{dot}{ext}")):
        n += 1
    return candidate


def _template_folders(source: Path) -> tuple[str, ...]:
    """The templates folders the imported vault's settings name (core Templates plugin,
    Templater), as paths in `source`; a setting that is missing or does not parse names
    none. Read only when the file is a regular file (no symlink is followed)."""
    found = []
    for rel, key in _TEMPLATE_SETTINGS:
        path = source / rel
        try:
            if any(stat.S_ISLNK(os.lstat(p).st_mode) for p in (path, *path.parents)
                   if source in p.parents):
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        folder = data.get(key) if isinstance(data, dict) else None
        if isinstance(folder, str) and folder.strip().strip("/"):
            found.append(folder.strip().strip("/"))
    return tuple(found)


def _kept_as_file(rel: str, templates: Sequence[str]) -> str | None:
    """Why the Markdown file at `rel` stays a file and is not made a note, or None: a
    drawing is the Excalidraw plugin's data, a template is text with placeholders a
    person fills in — neither is knowledge (docs/spec.md §3.6.5)."""
    low = rel.lower()
    if low.endswith(".excalidraw.md"):
        return "an Excalidraw drawing"
    for folder in templates:
        if low.startswith(folder.lower() + "/"):
            return f"a template (the templates folder {folder}/)"
    for part in rel.split("/")[:-1]:
        if part.lower() in _TEMPLATE_FOLDERS:
            return f"a template (in a {part}/ folder)"
    return None


def _note_folder(folder: str, spelled: dict[str, str]) -> str:
    """The person's folder `folder` (posix, "" at the root) as the folders of a digest
    path: each segment a valid, linkable name (`#`, `|`… become `-`; a reserved or
    too-long one made a slug), at most MAX_SUB_FOLDERS deep, and spelled as the first
    folder met that differs only by case (`Notes/` and `notes/` are one folder on macOS
    and Windows). `spelled` maps each lowercased folder path to its spelling."""
    if not folder:
        return ""
    out: list[str] = []
    for part in _safe_rel(folder).split("/")[:MAX_SUB_FOLDERS]:
        try:
            normalize_rel(part)
            if not is_linkable(f"digest/wiki/{part}/x.md"):
                raise UnsafePathError(part)
        except UnsafePathError:
            part = slugify(part) or "folder"
        path = "/".join([*out, part])
        out = spelled.setdefault(path.lower(), path).split("/")
    return "/".join(out)


def _with_provenance(note: Note, provenance: str, snapshot: str) -> Note:
    """`note` with `provenance` as its last line, where it is read as a link: a code
    fence or a comment the note leaves open would hold the line as code or hide it, so
    that fence or comment is closed first (docs/spec.md §3.6.5). Each closer is tried
    and kept only when the line then reads as the provenance link."""
    body = note.body.rstrip("\n")
    if not body.strip():
        return note.with_body(provenance + "\n")
    longest: dict[str, int] = {}
    for m in _FENCE_LINE.finditer(body):
        run = m.group(1)
        longest[run[0]] = max(longest.get(run[0], 0), len(run))
    closers = ["", *(c * n for c, n in longest.items()), "%%", "-->"]
    for closer in closers:
        closed = body + (f"\n{closer}" if closer else "")
        candidate = note.with_body(f"{closed}\n\n{provenance}\n")
        if _reads_provenance(candidate, snapshot):
            return candidate
    # nothing closes what is open at the end: the line goes first, before anything opens
    return note.with_body(f"{provenance}\n\n{note.body}")


def _reads_provenance(note: Note, snapshot: str) -> bool:
    return any(lk.predicate == "derived_from" and lk.target == snapshot
               for lk in parse_links(render(note)))


def _fm_lines(note: Note) -> int:
    """How many lines the frontmatter block takes (link lines are counted in the body)."""
    return (note._fm_text or "").count("\n")


def _digest_folders(records, bucket: str) -> dict[str, str]:
    """{lowercased folder under the bucket: its spelling} of the notes already there, so
    an imported `courses/` joins an existing `Courses/` instead of making a second one."""
    spelled: dict[str, str] = {}
    head = f"digest/{bucket}/"
    for path in records:
        if path.startswith(head):
            parts = path[len(head):].split("/")[:-1]
            for i in range(1, len(parts) + 1):
                folder = "/".join(parts[:i])
                spelled.setdefault(folder.lower(), folder)
    return spelled


def plan_import(
    vault, source: Path, *, bucket: str = "wiki", day: date | None = None,
    max_note_bytes: int = MAX_NOTE_BYTES,
    also: Callable[[str], Sequence[FileOp]] | None = None,
) -> ImportPlan:
    """Plan adopting the Obsidian vault at `source` into `vault` (see the module doc).
    `also(folder)` gives writes that land in the same changeset, planned against the
    snapshot folder (the Obsidian settings that keep the originals out of view)."""
    source = Path(source).expanduser()
    if bucket not in BUCKETS:
        raise RemeError(f"Unknown bucket {bucket!r}; import into one of: {', '.join(BUCKETS)}.")
    if not source.is_dir():
        raise RemeError(f"{source} is not a folder; give the folder of the Obsidian vault to import.")
    root = Path(vault.root).resolve()
    if root == source.resolve() or root in source.resolve().parents:
        raise RemeError(f"{source} is inside the vault {root}; import a vault from elsewhere.")
    day = day or vault.clock().date()
    files, skipped = _walk(source, root)
    if not any(rel.lower().endswith(".md") for rel, _ in files):
        raise RemeError(f"{source} holds no Markdown notes (.md files); nothing to import.")
    taken = {p.lower() for p in vault.scan.records}
    base = f"resource/{day.isoformat()}/{_safe_rel(source.resolve().name) or 'vault'}"
    n = 2
    while any(p.startswith(base.lower() + "/") for p in taken):
        base = f"resource/{day.isoformat()}/{_safe_rel(source.resolve().name)}-{n}"
        n += 1

    # where each file goes: notes to digest/, everything else (and every original) to resource/
    snapshot: dict[str, str] = {}
    kept_as: list[tuple[str, str]] = []  # originals whose name another file took (case)
    as_files: list[tuple[str, str]] = []  # drawings, templates, canvases: files, not notes
    placed: dict[str, str] = {}
    data: dict[str, bytes] = {}
    parsed: dict[str, Note] = {}
    notes: list[ImportedNote] = []
    templates = _template_folders(source)
    spelled = _digest_folders(vault.scan.records, bucket)
    for rel, full in files:
        size = os.lstat(full).st_size
        is_note = rel.lower().endswith(".md")
        limit = max_note_bytes if is_note else MAX_ATTACHMENT_BYTES
        if size > limit:
            skipped.append((rel, f"{size:,} bytes, over the {limit:,} a vault file may have"))
            continue
        snap = _free_snapshot(f"{base}/{_safe_rel(rel)}", lambda p: p.lower() in taken)
        if snap != f"{base}/{_safe_rel(rel)}":  # `MAAS.md` beside `MaaS.md`: both are kept
            kept_as.append((rel, snap))
        taken.add(snap.lower())
        snapshot[rel] = snap
        data[rel] = full.read_bytes()
        if not is_note:
            placed[rel] = snap
            if rel.lower().endswith(".canvas"):
                as_files.append((rel, "a JSON Canvas"))
            continue
        if why_file := _kept_as_file(rel, templates):
            placed[rel] = snap
            as_files.append((rel, why_file))
            continue
        stem = posixpath.basename(rel)[:-3]
        try:  # the original is kept in resource/ either way; only a readable note is adopted
            parsed[rel] = parse(decode_note_bytes(data[rel], rel, max_bytes=max_note_bytes), rel)
        except NoteError as exc:
            skipped.append((rel, f"kept in {snap} only: {exc}"))
            continue
        if "excalidraw-plugin" in parsed[rel].frontmatter:  # a drawing under another name
            del parsed[rel]
            placed[rel] = snap
            as_files.append((rel, "an Excalidraw drawing"))
            continue
        folder = _note_folder(posixpath.dirname(rel), spelled)
        prefix = f"digest/{bucket}/" + (f"{folder}/" if folder else "")
        name, _ = _note_name(stem)
        name = _free_name(name, lambda n, prefix=prefix: f"{prefix}{n}.md".lower() in taken)
        path = f"{prefix}{name}.md"
        taken.add(path.lower())
        placed[rel] = path
        notes.append(ImportedNote(rel, path, snap, path != f"digest/{bucket}/{rel}"))

    # the imported vault's own files and its notes' aliases, as Obsidian saw them
    resolver = LinkResolver(snapshot, {rel: aliases_of(n.frontmatter) for rel, n in parsed.items()})
    ops: list = [Create(snapshot[rel], data[rel]) for rel in snapshot]
    unresolved: list[dict] = []
    rewritten = 0
    dumped: list[tuple[str, str]] = []  # notes whose frontmatter was written again whole
    why = {"ambiguous": "several files of the imported vault match it",
           "unplaced": "its file was not brought (see above)"}
    for note in notes:
        original = parsed[note.source]
        body, changes, left = normalize_short_links(
            original.body, note.source, resolver, place=placed.get)
        rewritten += len(changes)
        unresolved += [{"note": note.path, "source": note.source,
                        "line": lk.line + _fm_lines(original), "raw": lk.raw,
                        "why": why.get(found.how, "no such file in the imported vault")}
                       for lk, found in left]
        imported = replace(original, path=note.path).with_body(body)
        if "name" not in imported.frontmatter:
            imported = imported.with_name_synced()
            if why_whole := rewritten_whole(imported):  # docs/spec.md §1.4.2, said
                dumped.append((note.path, why_whole))
        imported = _with_provenance(
            imported, format_predicate_link("derived_from", note.snapshot), note.snapshot)
        ops.append(Create(note.path, render_bytes(imported)))
    if also is not None:
        ops += also(base)

    audit = AuditEntry("import", _audit(source, notes, placed, skipped, unresolved, rewritten,
                                        dumped, kept_as, as_files))
    changeset = Changeset(ops=tuple(ops), description=f"import {source} into digest/{bucket}/",
                          audit=audit, allow_sources=True)
    return ImportPlan(source, base, tuple(notes), {r: p for r, p in placed.items() if not is_digest_note(p)},
                      tuple(skipped), tuple(unresolved), rewritten, changeset, tuple(as_files))


def _audit(source: Path, notes, placed, skipped, unresolved, rewritten, dumped, kept_as,
           as_files) -> str:
    attachments = sum(1 for p in placed.values() if not is_digest_note(p))
    lines = [f"## import {source}", "",
             f"{len(notes)} note(s) into digest/, {attachments} attachment(s) and every "
             f"original kept in resource/, {rewritten} link(s) rewritten to vault paths. "
             "docs/spec.md §3.6.5 of reme-workbench.", ""]
    renamed = [n for n in notes if n.renamed]
    if renamed:
        lines += [f"### Renamed ({len(renamed)})", "",
                  *[f"- `{n.source}` → [[{n.path}]]" for n in renamed], ""]
    if as_files:
        lines += [f"### Kept as files, not notes ({len(as_files)})", "",
                  *[f"- `{rel}`: {why}" for rel, why in as_files], ""]
    if kept_as:
        lines += [f"### Originals kept under another name ({len(kept_as)})", "",
                  "Their names differ from another file's only by case (one file on macOS "
                  "and Windows), so each got a suffix.", "",
                  *[f"- `{rel}` → `{snap}`" for rel, snap in kept_as], ""]
    if skipped:
        lines += [f"### Not brought ({len(skipped)})", "", *[f"- `{p}`: {why}" for p, why in skipped], ""]
    if unresolved:
        lines += [f"### Links left as written ({len(unresolved)})", "",
                  *[f"- [[{u['note']}]] (`{u['source']}` line {u['line']}): `{u['raw']}` "
                    f"({u['why']})" for u in unresolved], ""]
    if dumped:
        lines += [f"### Frontmatter written again whole ({len(dumped)})", "",
                  *[f"- [[{path}]]: {why}" for path, why in dumped], ""]
    return "\n".join(lines) + "\n"


def import_vault(vault, source: Path, *, bucket: str = "wiki", dry_run: bool = False,
                 also: Callable[[str], Sequence[FileOp]] | None = None) -> ImportPlan:
    """Plan and apply the import (one changeset: all of it lands, or nothing), then log an
    `import` access event per note so its recency starts now (docs/spec.md §7.3.2). A
    file created meanwhile under a planned name, or a file `also` edits changed
    meanwhile (Obsidian saving its settings), makes the plan again. `dry_run` plans and
    reports, and writes nothing."""
    def plan() -> ImportPlan:
        return plan_import(vault, source, bucket=bucket, max_note_bytes=vault.max_note_bytes,
                           also=also)

    plans = [plan()]
    if dry_run:
        return plans[0]
    for attempt in range(vault.max_replans):
        try:
            vault.apply(plans[-1].changeset)
            break
        except (NoteExistsError, StaleChangesetError):
            if attempt + 1 == vault.max_replans:
                raise
            vault.refresh()
            plans.append(plan())
    when = vault.clock()
    for note in plans[-1].notes:
        log_access(vault.root, note.path, when, "import")
    return plans[-1]
