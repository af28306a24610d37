"""One note = one `.md` file: frontmatter mapping + body, parsed and rendered losslessly.

Pure `parse` / `render` sit beside thin file I/O (`decode_note_bytes`, `read_note`), in
the manner of basic-memory's entity parser. The identity of a note is its vault-relative
path with the extension; the frontmatter keeps `name` (the basename, kept in sync) and
`description`, `kind` is an optional free label, and every other user key is preserved
in its order.

Round trips are byte-identical: `render(parse(t, p)) == t` for every text `t` that
parses. An edit changes only what it means to change (docs/spec.md §1.4.2): the original
frontmatter block is re-emitted verbatim while the mapping is unchanged, and a changed
mapping is written into that same text key by key (`frontmatter_edit.edit_block`): a
changed key gets its new value in place (its comment kept), a removed key loses its own
lines, a new key is inserted (`name` first, others last) — every other byte, scalars as
written (`12:30`, `01234`, `yes`), quoting, comments, blank lines, flow style, CRLF and
the BOM, stays. The one fallback: a block that cannot be edited so (one flow mapping
`{a: 1}`, a key written twice or merged with `<<`, keys put in another order, an edit
that breaks an alias) is dumped again whole, and `rewritten_whole(note)` says why.
"""

from __future__ import annotations

import copy
import os
import posixpath
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import NoteError, UnsafePathError
from .frontmatter import BOM, field_text, read_frontmatter
from .frontmatter_edit import WrittenBlock, dump_block, edit_block, same_value
from .layout import is_markdown, normalize_rel, resolve_inside

__all__ = [
    "MAX_NOTE_BYTES",
    "Note",
    "parse",
    "render",
    "render_bytes",
    "rewritten_whole",
    "decode_note_bytes",
    "read_note",
]

# A note is prose written for an LLM's context window; anything bigger is a mistake
# (a log, a dump) and loading it would stall every scan.
MAX_NOTE_BYTES = 5 * 1024 * 1024

# Keys the library owns; `new` refuses them in `extra` so they cannot be overridden.
_OWN_KEYS = ("name", "description", "kind")


@dataclass(frozen=True)
class Note:
    """A parsed note. Frozen: every change returns a new Note (`with_*`)."""

    path: str
    frontmatter: Mapping[str, Any]
    body: str
    # Bookkeeping for byte-identical round trips; not part of a note's identity.
    # The original block text (fences included, BOM excluded) and the mapping it
    # parsed to: render re-emits the text while the mapping is still the same, and
    # edits that text when it is not.
    _fm_text: str | None = field(default=None, repr=False, compare=False)
    _fm_source: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    _bom: bool = field(default=False, repr=False, compare=False)
    _newline: str = field(default="\n", repr=False, compare=False)

    def __post_init__(self) -> None:
        # A private deep copy behind a read-only view: the caller's dict (and nested
        # lists) can change later without changing this frozen note.
        fm = copy.deepcopy(dict(self.frontmatter))
        object.__setattr__(self, "frontmatter", MappingProxyType(fm))

    # --- the three keys the library reads -------------------------------------------

    @property
    def name(self) -> str | None:
        return field_text(self.frontmatter.get("name"))

    @property
    def description(self) -> str | None:
        return field_text(self.frontmatter.get("description"))

    @property
    def kind(self) -> str | None:
        return field_text(self.frontmatter.get("kind"))

    # --- edits ------------------------------------------------------------------------

    def with_frontmatter(self, **updates: Any) -> Note:
        """Set keys (new ones go last, existing ones keep their place); None removes."""
        fm = dict(self.frontmatter)
        for key, value in updates.items():
            if value is None:
                fm.pop(key, None)
            else:
                fm[key] = value
        return replace(self, frontmatter=fm)

    def with_body(self, body: str) -> Note:
        return replace(self, body=body)

    def with_name_synced(self) -> Note:
        """Set `name` to the file's basename without `.md`; a no-op keeps the bytes."""
        stem = _stem(self.path)
        if self.frontmatter.get("name") == stem and type(self.frontmatter["name"]) is str:
            return self
        if "name" in self.frontmatter:
            return self.with_frontmatter(name=stem)
        # A missing name goes first, where `new` puts it and readers look for it.
        return replace(self, frontmatter={"name": stem, **self.frontmatter})

    @classmethod
    def new(
        cls,
        path: str,
        *,
        description: str,
        body: str,
        kind: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Note:
        """A fresh note: frontmatter `name, description, kind?, extra...`."""
        path = normalize_rel(path)
        if not is_markdown(path):
            raise UnsafePathError(
                f"{path!r} is not a markdown path; a note's path ends in .md.", path=path
            )
        fm: dict[str, Any] = {"name": _stem(path), "description": description}
        if kind is not None:
            fm["kind"] = kind
        for key, value in (extra or {}).items():
            if key in _OWN_KEYS:
                raise ValueError(
                    f"extra may not set {key!r}; pass it as the {key}= argument instead."
                )
            if value is not None:  # None means "absent", as in with_frontmatter
                fm[key] = value
        # An empty body stays empty: the closing fence's newline already ends the file.
        if body and not body.endswith("\n"):
            body += "\n"
        return cls(path=path, frontmatter=fm, body=body)


# --- pure parse / render --------------------------------------------------------------


def parse(text: str, path: str) -> Note:
    """Split `text` into frontmatter and body. Pure; `path` is the note's identity."""
    bom = text.startswith(BOM)
    data, span = read_frontmatter(text, path)  # NoteError for bad YAML, with the line
    if span is None:
        body = text[1:] if bom else text
        newline = "\r\n" if "\r\n" in body else "\n"
        return Note(path=path, frontmatter={}, body=body, _bom=bom, _newline=newline)
    return Note(
        path=path,
        frontmatter=data,
        body=text[span.end :],
        _fm_text=text[span.start : span.end],
        _fm_source=copy.deepcopy(data),
        _bom=bom,
        _newline=span.newline,
    )


def render(note: Note) -> str:
    """The note's text. An untouched parsed note renders exactly as it was read; an
    edited one keeps every byte of its block but the keys that changed."""
    prefix = BOM if note._bom else ""
    return prefix + _block(note).text + note.body


def rewritten_whole(note: Note) -> str | None:
    """Why `render(note)` dumps the note's frontmatter block again whole (losing its
    comments and quoting), or None when the block is kept or edited in place (or the
    note had none). A writer that applies without a person's review says it."""
    return _block(note).rewritten


def _block(note: Note) -> WrittenBlock:
    if note._fm_text is None:  # no block was read: a new one, or none
        return WrittenBlock(dump_block(note.frontmatter, note._newline) if note.frontmatter else "")
    if same_value(dict(note.frontmatter), note._fm_source):
        return WrittenBlock(note._fm_text)
    return edit_block(note._fm_text, note._fm_source, note.frontmatter, note._newline)


def render_bytes(note: Note) -> bytes:
    """UTF-8 bytes of `render(note)`; a BOM read from the file is written back."""
    text = render(note)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NoteError(
            f"{note.path}: character {exc.start} is a lone surrogate "
            f"({text[exc.start]!r}) that UTF-8 cannot store; remove it from the note.",
            path=note.path,
        ) from None


# --- file I/O -------------------------------------------------------------------------


def decode_note_bytes(data: bytes, path: str, *, max_bytes: int = MAX_NOTE_BYTES) -> str:
    """Decode a note file's bytes (strict UTF-8, BOM kept as a character)."""
    if len(data) > max_bytes:
        raise _too_large(path, len(data), max_bytes)
    # UTF-16 is full of NULs; name it rather than call the file binary.
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise NoteError(
            f"{path} is UTF-16 encoded; notes are UTF-8. Convert it with "
            f"`iconv -f utf-16 -t utf-8 {path}`.",
            path=path,
        )
    nul = data.find(b"\x00")
    if nul != -1:
        raise NoteError(
            f"{path} has a NUL byte at offset {nul}: it looks binary; move it out of the "
            "vault or rename it without .md.",
            path=path,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteError(
            f"{path} is not UTF-8 (invalid byte 0x{data[exc.start]:02x} at byte offset "
            f"{exc.start}). Convert it, e.g. `iconv -f <encoding> -t utf-8` with the "
            "file's real encoding (often latin1 or cp1252).",
            path=path,
        ) from None


def read_note(root: Path, rel: str, *, max_bytes: int = MAX_NOTE_BYTES) -> Note:
    """Read and parse `root/rel`. Refuses symlinks, non-files and oversized files.

    The size is checked with fstat on the open descriptor before any byte is read, and
    at most `max_bytes + 1` bytes are ever read, so a huge (or growing) file is never
    loaded. A missing file raises FileNotFoundError.
    """
    rel = normalize_rel(rel)
    target = resolve_inside(root, rel)
    # O_NOFOLLOW closes the gap between resolve_inside's lstat and the open; O_NONBLOCK
    # keeps a FIFO named *.md from hanging the open.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if os.path.islink(target):
            raise UnsafePathError(
                f"{rel!r} is a symlink; reme-workbench never follows links. Replace it "
                "with the real file.",
                path=rel,
            ) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NoteError(
                f"{rel} is not a regular file; move it out of the vault or rename it without .md.",
                path=rel,
            )
        if st.st_size > max_bytes:
            raise _too_large(rel, st.st_size, max_bytes)
        chunks: list[bytes] = []
        remaining = max_bytes + 1  # one extra byte tells us the file grew past the limit
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    return parse(decode_note_bytes(b"".join(chunks), rel, max_bytes=max_bytes), rel)


# --- helpers --------------------------------------------------------------------------


def _stem(path: str) -> str:
    base = posixpath.basename(path)
    return base[:-3] if is_markdown(base) else base


def _too_large(path: str, size: int, limit: int) -> NoteError:
    return NoteError(
        f"{path} is {size:,} bytes ({size / 1048576:.1f} MiB), over the {limit:,}-byte "
        f"({limit / 1048576:.1f} MiB) limit for a note. Split it into smaller notes or "
        "move it out of the vault.",
        path=path,
    )
