"""The split phase's look over the whole digest (docs/spec.md §7.8.4).

Dream and consolidate queue the notes their writes leave over `[split] token_threshold`,
but a note can get long without them: imported, written by hand in Obsidian, or written
when a person accepted a proposal. So every split run also looks at every readable
digest note, and this must stay cheap on a big vault (the phase runs every consolidate
run, an hourly timer included):

1. the byte size rules out most notes unread: a body of at most `threshold` characters
   cannot have more estimated tokens (`vault/tokens.py`: never more than its length),
   and UTF-8 spends at least one byte a character;
2. a note whose bytes were decided already (judged not overloaded, or a refused split)
   is skipped by the sha256 the scan already holds;
3. the body tokens of the bytes read before come from `.reme/split_content_tokens.json`
   (sha256 -> tokens, or minus a bound on them: only a cache, rebuilt when it is
   missing or damaged);
4. the rest are read once and counted whole first — the frontmatter ends on a line
   break and the estimate adds up over whitespace, so the body has no more tokens than
   the file — and only a file over the threshold has its frontmatter parsed.

This is a filter: a note it keeps is read again, through the store, before anything is
decided about it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping
from datetime import datetime
from pathlib import Path

from ..errors import RemeError, UnsafePathError
from ..vault.layout import CACHE_DIR, is_digest_note, resolve_inside
from ..vault.meta import iso_utc
from ..vault.note import decode_note_bytes, parse
from ..vault.split_queue import QueuedSplit
from ..vault.tokens import content_tokens, estimate_tokens
from ..vault.vault import Vault

__all__ = ["SCAN", "TOKEN_CACHE", "find_over_threshold"]

SCAN = "consolidate.scan"  # the `by` of a note the look found (it was not queued)
TOKEN_CACHE = "split_content_tokens.json"  # provenance-only lines do not count (§4.9.1)
_CACHE_FORMAT = 1
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)  # the scan's files: never a symlink


def find_over_threshold(
    vault: Vault,
    threshold: int,
    *,
    now: datetime,
    queued: Collection[str] = (),
    decided: Mapping[str, str] | None = None,
    only: Collection[str] | None = None,
    cache: bool = True,
) -> list[QueuedSplit]:
    """The readable digest notes whose body is over `threshold` estimated tokens, in path
    order, as queue entries `by` SCAN — leaving out the `queued` paths, the notes whose
    sha256 `decided` ({path: sha256}) holds, and, with `only`, every other path. The
    vault's scan must be fresh (the split run refreshes it first). `cache=False` (a dry
    run) reads the token cache but does not write it."""
    decided = decided or {}
    when = iso_utc(now)
    limit = vault.scan.max_note_bytes
    path_of_cache = _cache_path(vault.root)
    known = _load(path_of_cache) if path_of_cache is not None else {}
    seen: dict[str, int] = {}
    found = []
    for path, record in vault.scan.records.items():
        if record.size <= threshold or path in queued or not record.readable:
            continue
        if (only is not None and path not in only) or not is_digest_note(path):
            continue
        if decided.get(path) == record.sha256:
            continue
        counted = known.get(record.sha256)
        if counted is None or -threshold > counted:  # unknown, or a bound above this threshold
            counted = _body_tokens(vault.root, path, threshold, limit)
            if counted is None:
                continue  # gone since the scan, or unreadable: health reports it
        seen[record.sha256] = counted
        if counted > threshold:
            found.append(QueuedSplit(path, counted, when, SCAN))
    if cache and path_of_cache is not None and seen != known:
        _save(path_of_cache, seen)  # the current notes' counts only: it never grows stale
    return sorted(found, key=lambda e: e.path)


def _body_tokens(root: Path, path: str, threshold: int, limit: int) -> int | None:
    """The body's estimated tokens; minus the whole file's when that is not over
    `threshold` (a bound: the body has at most as many); None when it cannot be read."""
    try:
        fd = os.open(root / path, _READ_FLAGS)
        with os.fdopen(fd, "rb") as f:
            text = decode_note_bytes(f.read(limit + 1), path, max_bytes=limit)
        whole = estimate_tokens(text)
        return -whole if whole <= threshold else content_tokens(parse(text, path).body)
    except (OSError, RemeError):
        return None


def _cache_path(root: Path) -> Path | None:
    try:
        return resolve_inside(Path(root), f"{CACHE_DIR}/{TOKEN_CACHE}")
    except UnsafePathError:  # .reme/ made a symlink: count without a cache
        return None


def _load(path: Path) -> dict[str, int]:
    """{sha256: tokens}; {} when the cache is absent, damaged or of another format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if data.get("format") != _CACHE_FORMAT or not isinstance(tokens, dict):
        return {}
    return {k: v for k, v in tokens.items()
            if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}


def _save(path: Path, tokens: dict[str, int]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)  # .reme/, as the scan cache makes it
        tmp.write_text(json.dumps({"format": _CACHE_FORMAT, "tokens": tokens},
                                  separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)  # readers see the old cache or the new one
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
