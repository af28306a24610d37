"""Which material to dream, and what was already dreamt at which content hash.

Material is any text file under `daily/` or `resource/`. `meta/dreamt.json` records
each dreamt path with the sha256 it had, so a second run over unchanged material does
nothing, and an edited log is dreamt again. Each file carries the phrases it shares
with most material of its folder, layer or run (`boilerplate.py`): a template's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..errors import NoteError, RemeError
from ..index.chunking import file_date
from ..llm.base import Material
from ..llm.prompts import detect_language
from ..vault.layout import SOURCE_LAYERS, normalize_rel
from ..vault.meta import read_meta, write_meta
from ..vault.note import decode_note_bytes, parse
from ..vault.vault import Vault
from .boilerplate import shared_phrases
from .markdown import MaterialInfo, material_info, title_from_file_name

__all__ = ["MaterialFile", "select_material", "DreamtRecord", "TEXT_SUFFIXES", "split_material",
           "entry_parts", "part_hash"]

TEXT_SUFFIXES = (".md", ".txt")
DREAMT_META = "dreamt"
DREAMT_VERSION = 1
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A model's context is finite; longer material is dreamt in pieces (and the CLI says so).
MAX_MATERIAL_CHARS = 24_000
# An entry a client appended (docs/spec.md §3.6.4): a log grows by these.
_ENTRY = re.compile(r"^## \d{1,2}:\d{2}(?:[ \t].*)?$", re.M)


def entry_parts(text: str) -> list[str]:
    """A log cut before each appended entry (`## HH:MM [title]`): its opening part, then
    one part per entry; [text] when it has no entry."""
    starts = [m.start() for m in _ENTRY.finditer(text)]
    if not starts:
        return [text]
    cuts = [0, *starts, len(text)] if starts[0] > 0 else [*starts, len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def part_hash(part: str) -> str:
    return hashlib.sha256(part.strip().encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class MaterialFile:
    path: str
    sha256: str
    text: str  # the body: frontmatter removed
    date: str | None
    info: MaterialInfo = MaterialInfo("")
    shared: tuple[str, ...] = ()  # its boilerplate phrases (docs/spec.md §5.8)
    parts: tuple[str, ...] = ()  # hashes of its parts (opening + appended entries), dreamt or not

    def pieces(self) -> list[Material]:
        """The material as the brain reads it: one `Material` per piece of the body."""
        info = self.info
        return [
            Material(self.path, piece, self.date, detect_language(piece), title=info.title,
                     description=info.description, aliases=info.aliases, tags=info.tags,
                     shared=self.shared)
            for piece in split_material(self.text)
        ]


class DreamtRecord:
    """meta/dreamt.json: path -> {sha256, dreamt_at}."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        read = read_meta(vault.root, DREAMT_META, version=DREAMT_VERSION)
        self.warning = read.warning if read.exists else None  # a corrupt record: redream
        self.entries: dict[str, dict] = dict((read.data or {}).get("files", {}))

    def is_current(self, path: str, sha256: str) -> bool:
        return self.entries.get(path, {}).get("sha256") == sha256

    def parts(self, path: str) -> frozenset[str]:
        """Hashes of the parts of `path` (opening, appended entries) dreamt before."""
        return frozenset(self.entries.get(path, {}).get("parts", ()))

    def mark(self, path: str, sha256: str, parts: Iterable[str] = ()) -> None:
        self.entries[path] = {"sha256": sha256, "dreamt_at": self.vault.clock().isoformat()}
        if parts:
            self.entries[path]["parts"] = sorted(set(parts) | self.parts(path))
        write_meta(
            self.vault.root,
            DREAMT_META,
            {"files": self.entries},
            version=DREAMT_VERSION,
            now=self.vault.clock(),
        )


def _candidates(vault: Vault, targets: Iterable[str] | None) -> list[str]:
    records = vault.scan.records
    material = sorted(
        p
        for p in records
        if p.split("/", 1)[0] in SOURCE_LAYERS and p.lower().endswith(TEXT_SUFFIXES)
    )
    if not targets:
        return material
    chosen: list[str] = []
    for target in targets:
        target = target.rstrip("/")
        if _DATE.match(target):  # a date: that day's logs and resources
            hits = [p for p in material if p.split("/")[1:2] == [target]]
        else:
            rel = normalize_rel(target)
            if rel.split("/", 1)[0] not in SOURCE_LAYERS:
                raise RemeError(
                    f"{target} is not material: dream reads files under daily/ or resource/ "
                    "(give a path there, a date like 2026-10-05, or nothing for everything new)."
                )
            hits = [p for p in material if p == rel or p.startswith(rel + "/")]
        if not hits:
            raise RemeError(
                f"No material matches {target!r}; check the path or date (`reme-workbench status`)."
            )
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def select_material(
    vault: Vault, targets: Iterable[str] | None, record: DreamtRecord, *, force: bool = False
) -> tuple[list[MaterialFile], list[str]]:
    """The material to dream now, and messages about what was skipped and why.

    With no targets: everything not yet dreamt at its current hash. With targets: those
    files, still skipping unchanged ones unless `force`. Each file carries its
    boilerplate phrases, counted over its folder, its layer and the files chosen now.
    """
    out: list[MaterialFile] = []
    skipped: list[str] = []
    records = vault.scan.records
    for path in _candidates(vault, targets):
        rec = records[path]
        if rec.error:
            skipped.append(f"{path}: {rec.error}")
            continue
        if not force and record.is_current(path, rec.sha256):
            continue
        try:
            read = _read(vault, path)
        except NoteError as exc:
            skipped.append(f"{path}: {exc}")
            continue
        if read is None:
            continue
        body, frontmatter = read
        if not body.strip():
            skipped.append(f"{path}: empty, nothing to dream")
            record.mark(path, rec.sha256)
            continue
        date = file_date(path, frontmatter)
        info = material_info(path, frontmatter, body) if path.endswith(".md") else MaterialInfo(
            title_from_file_name(path, body))
        parts = entry_parts(body)
        hashes = tuple(part_hash(p) for p in parts)
        done = record.parts(path) if not force else frozenset()
        if done:  # a grown log (§3.6.4): its entries dreamt before are not dreamt again
            body = "".join(p for p, h in zip(parts, hashes, strict=True) if h not in done)
            if not body.strip():
                record.mark(path, rec.sha256, hashes)
                continue
        out.append(MaterialFile(path, rec.sha256, body, date, info, parts=hashes))
    shared = shared_phrases(_candidates(vault, None), {mf.path: mf.text for mf in out},
                            lambda path: _body(vault, path))
    return [replace(mf, shared=shared.get(mf.path, ())) for mf in out], skipped


def _read(vault: Vault, path: str) -> tuple[str, dict] | None:
    """(body, frontmatter) of a material file, None when it is gone; a NoteError when it
    cannot be read as text."""
    current = vault.store.read(path)
    if current is None:
        return None
    text = decode_note_bytes(current[0], path, max_bytes=vault.scan.max_note_bytes)
    if path.endswith(".md"):
        try:
            note = parse(text, path)
            return note.body, dict(note.frontmatter)
        except NoteError:
            pass  # a log with broken frontmatter is still material
    return text, {}


def _body(vault: Vault, path: str) -> str | None:
    """Another material file's body, for counting its phrases; None when unreadable."""
    rec = vault.scan.records.get(path)
    if rec is None or rec.error:
        return None
    try:
        read = _read(vault, path)
    except NoteError:
        return None
    return read[0] if read is not None else None


def split_material(text: str, limit: int = MAX_MATERIAL_CHARS) -> list[str]:
    """Cut over-long material into pieces at blank lines (else lines), each <= limit."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for block in re.split(r"(\n\s*\n)", text):
        if len(current) + len(block) <= limit:
            current += block
            continue
        if current.strip():
            pieces.append(current)
        current = ""
        while len(block) > limit:  # a single enormous paragraph: cut at a line, else hard
            cut = block.rfind("\n", 0, limit)
            cut = cut if cut > 0 else limit
            pieces.append(block[:cut])
            block = block[cut:]
        current = block
    if current.strip():
        pieces.append(current)
    return pieces
