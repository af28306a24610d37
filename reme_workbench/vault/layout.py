"""The vault's fixed layout: layers, buckets, and which paths a caller may touch.

Paths inside the library are always vault-relative POSIX strings with the extension
(`digest/wiki/jwt-rotation.md`); that string is a note's identity (docs/spec.md §1.3).
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import Literal, get_args

from ..errors import UnsafePathError

__all__ = [
    "Bucket",
    "BUCKETS",
    "FALLBACK_BUCKET",
    "LAYERS",
    "SOURCE_LAYERS",
    "WRITABLE_LAYERS",
    "CACHE_DIR",
    "normalize_rel",
    "layer_of",
    "bucket_of",
    "is_digest_note",
    "is_markdown",
    "resolve_inside",
    "check_writable",
    "MAX_NAME_BYTES",
    "MAX_SUB_FOLDERS",
]

# docs/spec.md §1.2: the three buckets are part of the dream model, not a setting.
Bucket = Literal["procedure", "personal", "wiki"]
BUCKETS: tuple[str, ...] = get_args(Bucket)
FALLBACK_BUCKET: Bucket = "wiki"

LAYERS: tuple[str, ...] = ("resource", "daily", "digest", "meta", "audit")
# what ext4, APFS, NTFS and most file systems allow one file or folder name (docs/spec.md §3.4.6)
MAX_NAME_BYTES = 255
# Sources are read-only for every pipeline; only explicit user commands write them.
SOURCE_LAYERS: tuple[str, ...] = ("resource", "daily")
# What pipelines may write; workbench/ and .obsidian/ belong to the bridge and notebooks.
WRITABLE_LAYERS: tuple[str, ...] = ("digest", "meta", "audit", "workbench", ".obsidian")
CACHE_DIR = ".reme"
# How many folders a digest note may sit in below its bucket (docs/spec.md §1.2.3): a
# person's vault keeps its folder tree when it is imported (course/term/lectures/…),
# and a bound keeps a path a brain proposes from running arbitrarily deep.
MAX_SUB_FOLDERS = 8

# Windows device names: a file called `con.md` cannot be opened there.
_RESERVED_STEMS = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"com{i}" for i in range(1, 10)]
    + [f"lpt{i}" for i in range(1, 10)]
)


def normalize_rel(rel: str) -> str:
    """Return `rel` as a clean vault-relative POSIX path or raise UnsafePathError.

    Refuses absolute paths, `..` segments, empty segments, NUL and backslashes, so a
    path proposed by an LLM or typed by a user can never name a place outside the vault.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise UnsafePathError("Empty path: give a vault-relative path such as digest/wiki/x.md.")
    original = rel
    if "\x00" in rel:
        raise UnsafePathError(f"Path {original!r} contains a NUL byte; remove it.", path=original)
    if "\\" in rel:
        raise UnsafePathError(
            f"Path {original!r} contains a backslash; use forward slashes (digest/wiki/x.md).",
            path=original,
        )
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        raise UnsafePathError(
            f"Path {original!r} is absolute; give it relative to the vault root.", path=original
        )
    if rel.startswith("./"):
        rel = rel[2:]
    parts = rel.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise UnsafePathError(
                f"Path {original!r} has an empty, '.' or '..' segment; paths may not leave "
                "the vault. Give a plain path such as digest/wiki/x.md.",
                path=original,
            )
        size = len(part.encode("utf-8", errors="surrogatepass"))
        if size > MAX_NAME_BYTES:  # no file system here holds it: say so, never ENAMETOOLONG
            raise UnsafePathError(
                f"{part[:40]!r}… in {original[:80]!r} is {size} bytes long; a file or folder "
                f"name may have at most {MAX_NAME_BYTES} bytes (UTF-8). Choose a shorter name.",
                path=original,
            )
        stem = part.split(".", 1)[0].lower()
        if stem in _RESERVED_STEMS:
            raise UnsafePathError(
                f"Path {original!r} uses the reserved device name {part!r}; rename it.",
                path=original,
            )
    return posixpath.join(*parts)


def layer_of(rel: str) -> str | None:
    """The top-level layer of a vault-relative path (`digest`, `daily`, ...) or None."""
    head = rel.split("/", 1)[0]
    return head if head in LAYERS or head in WRITABLE_LAYERS or head == CACHE_DIR else None


def bucket_of(rel: str) -> str | None:
    """The bucket of a digest path (`digest/wiki/x.md` -> `wiki`), else None."""
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] == "digest" and parts[1] in BUCKETS:
        return parts[1]
    return None


def is_markdown(rel: str) -> bool:
    return rel.lower().endswith(".md")


def is_digest_note(rel: str) -> bool:
    """True for `digest/<bucket>/…/<name>.md` with one of the three buckets."""
    return is_markdown(rel) and bucket_of(rel) is not None


def resolve_inside(root: Path, rel: str) -> Path:
    """Absolute path of `rel` under `root`, refusing any symlink on the way.

    Every existing component between the root and the target is checked with lstat: a
    symlink anywhere (even one pointing back inside) is refused, because following it
    could write outside the vault.
    """
    rel = normalize_rel(rel)
    root = Path(root)
    current = root
    for part in rel.split("/"):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            break  # the rest does not exist yet, so it cannot be a link
        except NotADirectoryError:
            raise UnsafePathError(
                f"Path {rel!r} runs through a file that is not a folder; check the path.",
                path=rel,
            ) from None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePathError(
                f"Path {rel!r} goes through the symlink {current.relative_to(root).as_posix()!r}; "
                "reme-workbench never follows links it could write through. Replace the "
                "symlink with a real folder or file.",
                path=rel,
            )
    return root / rel


def check_writable(rel: str, *, allow_sources: bool = False) -> str:
    """Normalise `rel` and check that a pipeline may write it; return the clean path.

    Digest writes must land in one of the three buckets; `daily/` and `resource/` are
    writable only when an explicit user command passes `allow_sources=True`.
    """
    rel = normalize_rel(rel)
    layer = rel.split("/", 1)[0]
    if layer in SOURCE_LAYERS:
        if not allow_sources:
            raise UnsafePathError(
                f"{rel!r} is in {layer}/, which is source material: pipelines never write "
                "it. Only explicit user commands (such as `reme-workbench rename`) may.",
                path=rel,
            )
        return rel
    if layer == CACHE_DIR:
        raise UnsafePathError(
            f"{rel!r} is inside {CACHE_DIR}/, the rebuildable cache; it is not part of a "
            "changeset.",
            path=rel,
        )
    if layer not in WRITABLE_LAYERS:
        raise UnsafePathError(
            f"{rel!r} is outside the vault's layers; write under digest/<bucket>/, meta/ "
            "or audit/.",
            path=rel,
        )
    if layer == "digest":
        parts = rel.split("/")
        if len(parts) < 3 or parts[1] not in BUCKETS:
            raise UnsafePathError(
                f"{rel!r} is not inside a bucket; digest notes live in digest/<bucket>/ "
                f"with bucket one of {', '.join(BUCKETS)}.",
                path=rel,
            )
        if len(parts) - 3 > MAX_SUB_FOLDERS:
            raise UnsafePathError(
                f"{rel!r} is nested too deep: {len(parts) - 3} folders under the bucket, at "
                f"most {MAX_SUB_FOLDERS} (digest/<bucket>/<folder>/…/<name>.md). Choose a "
                "shallower folder.",
                path=rel,
            )
        if not is_markdown(rel):
            raise UnsafePathError(
                f"{rel!r} is not a markdown file; digest notes end in .md.", path=rel
            )
    return rel
