"""Where a vault's index lives: in the vault, or in a user cache folder when it is read-only.

A search writes two things: the index (`.reme/index.db`, `.reme/vectors.faiss`, the
lock `.reme/index.lock`) and the access log (`meta/access_log.jsonl`, docs/spec.md §7.3).
A vault this user may not write — a read-only mount, a synced copy without write
permission — can still be searched: both go to a folder of the user's cache,

    $XDG_CACHE_HOME/reme-workbench/<first 16 hex of sha256(the vault's resolved path)>/

(`~/.cache/...` without XDG_CACHE_HOME; `~/Library/Caches/...` on macOS, `%LOCALAPPDATA%`
on Windows), laid out as the vault is: `<that>/.reme/` and
`<that>/meta/`. Nothing is written inside the vault. When the vault carries an index of
its own (a synced `.reme/`), the cache starts from a copy of it, so a synced vault is
not embedded again.

The "may this user write here" question is the kernel's (`os.access`), so a read-only
mount counts, and root's override of file modes does too.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..vault.layout import CACHE_DIR

__all__ = ["IndexHome", "index_home", "user_cache_root", "vault_cache_folder"]

APP = "reme-workbench"
_SEED_FILES = ("index.db", "index.db-wal", "vectors.faiss")


@dataclass(frozen=True)
class IndexHome:
    """The folder that holds the index's `.reme/` and the access log's `meta/`: the
    vault's root, or a cache folder (`notice` then says so, in one line). `problem`: the
    vault is read-only and no cache folder could be made either (`root` is then the
    vault's, for commands that only read its index); a search stops with it."""

    root: Path
    notice: str | None = None
    problem: str | None = None


def user_cache_root() -> Path:
    """The user's cache folder, by the platform's rule and nothing installed besides (so
    it never moves when another package comes or goes): $XDG_CACHE_HOME when set to an
    absolute path, else ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows, ~/.cache."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base and Path(base).is_absolute():
        return Path(base)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    local = os.environ.get("LOCALAPPDATA", "").strip() if os.name == "nt" else ""
    return Path(local) if local else Path.home() / ".cache"


def vault_cache_folder(root: Path | str) -> Path:
    """The cache folder of the vault at `root` (one per resolved path)."""
    digest = hashlib.sha256(str(Path(root).resolve()).encode("utf-8", "surrogatepass")).hexdigest()
    return user_cache_root() / APP / digest[:16]


def _may_write(path: Path) -> bool:
    return os.access(path, os.W_OK | os.X_OK)


def _writable(root: Path) -> bool:
    """Whether a search may write its index and its access log inside the vault."""
    cache, meta = root / CACHE_DIR, root / "meta"
    return (_may_write(cache if cache.is_dir() else root)
            and _may_write(meta if meta.is_dir() else root))


def index_home(root: Path | str) -> IndexHome:
    """Where the index and the access log of the vault at `root` are written."""
    root = Path(root)
    if _writable(root):
        return IndexHome(root)
    folder = vault_cache_folder(root)
    try:
        (folder / CACHE_DIR).mkdir(parents=True, exist_ok=True)
        (folder / "meta").mkdir(exist_ok=True)
        _seed(root / CACHE_DIR, folder / CACHE_DIR)
    except OSError as exc:
        return IndexHome(root, problem=(
            f"The vault {root} is read-only for this user, and its index cannot be kept in "
            f"{folder} either ({exc.strerror}); set XDG_CACHE_HOME to a folder you may write."))
    return IndexHome(folder, f"The vault {root} is read-only for this user: its index and "
                             f"access log are kept in {folder}.")


def _seed(vault_cache: Path, cache: Path) -> None:
    """Start the cache from the vault's own index, when it has one and the cache none."""
    if (cache / "index.db").exists() or not (vault_cache / "index.db").is_file():
        return
    for name in _SEED_FILES:
        source = vault_cache / name
        if source.is_file():
            tmp = cache / f".{name}.seed"
            shutil.copyfile(source, tmp)
            os.replace(tmp, cache / name)
