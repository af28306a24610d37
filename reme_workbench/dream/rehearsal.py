"""A dry run's stage: a scratch copy of the vault that the run is rehearsed on.

`dream --dry-run` reports what the run would do (docs/spec.md §4.7.2). A run's later
units see the notes its earlier units wrote — recall finds them, a repeat corroborates
them, a name takes the next free slug — so planning every unit against the vault as it
is would predict a CREATE for each repeat. The dry run therefore *is* the run, on a
scratch copy outside the vault, thrown away afterwards: the same code decides, so its
CREATE and CORROBORATE counts are the run's, and nothing in the vault is written.

What the copy holds: every file of `daily/`, `resource/` and `digest/` the scan knows —
Markdown and text with their bytes, anything else (images, PDFs) as an empty file of the
same name, since dream only needs to know it exists (a link to it resolves) — the
files directly in `meta/` (what dream reads: the dreamt record, communities, the access
log; not the stored proposals), and the index: its database through SQLite's backup
(consistent while open) and its vectors file, so nothing is embedded again but what
the rehearsal writes.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from ..index.indexdb import INDEX_DB
from ..index.store import VECTORS_FILE, VaultIndex
from ..vault.layout import BUCKETS, CACHE_DIR
from ..vault.vault import Vault

__all__ = ["scratch_copy"]

_TEXT = (".md", ".txt")


@contextmanager
def scratch_copy(vault: Vault, index: VaultIndex) -> Iterator[tuple[Vault, VaultIndex]]:
    """A copy of `vault` and its `index` in a temporary folder, removed on exit. Call it
    after `index.refresh()`: the copy starts from the index as it is."""
    with tempfile.TemporaryDirectory(prefix="reme-dry-run-") as tmp:
        root = Path(tmp) / "vault"
        _copy_files(vault, root)
        cache = root / CACHE_DIR
        cache.mkdir()
        with closing(sqlite3.connect(cache / INDEX_DB)) as target:
            index.conn.backup(target)
        vectors = index.root / CACHE_DIR / VECTORS_FILE
        if vectors.is_file():
            shutil.copyfile(vectors, cache / VECTORS_FILE)
        stage = Vault.open(root, clock=vault.clock, max_note_bytes=vault.max_note_bytes,
                           max_replans=vault.max_replans)
        with VaultIndex(root, index.embedder, scan=stage.scan,
                        on_embedder_change=index.on_embedder_change) as stage_index:
            yield stage, stage_index


def _copy_files(vault: Vault, root: Path) -> None:
    for bucket in BUCKETS:
        (root / "digest" / bucket).mkdir(parents=True, exist_ok=True)
    for layer in ("daily", "resource"):
        (root / layer).mkdir(exist_ok=True)
    for rel in vault.scan.records:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not rel.lower().endswith(_TEXT):
            target.touch()
            continue
        try:
            shutil.copyfile(vault.root / rel, target)
        except FileNotFoundError:
            continue  # gone since the scan: the run would not find it either
    meta = vault.root / "meta"
    if meta.is_dir():
        (root / "meta").mkdir()
        for path in meta.iterdir():
            if path.is_file() and not path.is_symlink():
                shutil.copyfile(path, root / "meta" / path.name)
