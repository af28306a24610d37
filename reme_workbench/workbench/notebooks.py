"""The vault-embedded notebooks: placing the masters in `<vault>/workbench/`, keeping a
person's edits, and finding the vault from inside a notebook.

The masters ship with the package (`reme_workbench/notebooks/`; the repository's
`notebooks/` is the same folder). `place_notebooks(root)` copies each into
`<vault>/workbench/` (Obsidian ignores `.ipynb`) and remembers what it wrote in
`.reme/workbench.json` (the sha256 of its cells' kinds and sources: running a notebook or
Jupyter's autosave changes outputs and metadata, not what a person wrote). Later calls
update a copy only while it is still what was placed — a copy a person edited is kept,
and reported, unless `refresh`;
then the edited copy is first saved beside it as `<name>.edited-<date>.ipynb`, so
nothing a person wrote is lost. Writes are atomic (temp file + rename).

`find_vault()` walks up from the working folder to the vault a notebook sits in (a folder
with `digest/` and `daily/` or `resource/`); `reme_workbench.ops.notebook_workspace()`,
the first cell of every notebook, builds on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from ..errors import RemeError
from ..vault.layout import CACHE_DIR

__all__ = ["MASTERS", "WORKBENCH_DIR", "PlaceReport", "masters", "place_notebooks", "find_vault"]

MASTERS = ("01_dream_review.ipynb", "02_communities.ipynb", "03_merge_votes.ipynb",
           "04_uncertain_duplicates.ipynb", "05_archive.ipynb", "06_threshold_experiments.ipynb")
WORKBENCH_DIR = "workbench"
_STATE = "workbench.json"  # in .reme/: what place_notebooks wrote, by sha256


def masters() -> dict[str, bytes]:
    """{file name: bytes} of the master notebooks shipped with the package."""
    folder = resources.files("reme_workbench") / "notebooks"
    found = {}
    for name in MASTERS:
        item = folder / name
        if not item.is_file():
            raise RemeError(f"The notebook {name} is missing from the installed package "
                            f"({folder}); reinstall reme-workbench.")
        found[name] = item.read_bytes()
    return found


def _sha(data: bytes) -> str:
    """What a person wrote in a notebook: its cells' kinds and sources. Running it (outputs,
    execution counts) and Jupyter's autosave (metadata) change the bytes, not this; a
    file that is not notebook JSON is hashed whole."""
    try:
        cells = json.loads(data.decode("utf-8"))["cells"]
        written = [[c.get("cell_type"), "".join(c.get("source") or "")] for c in cells]
    except (ValueError, KeyError, TypeError, AttributeError):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha256(json.dumps(written, ensure_ascii=False).encode("utf-8")).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class PlaceReport:
    folder: Path
    placed: tuple[str, ...] = ()  # new in the vault
    updated: tuple[str, ...] = ()  # replaced by a newer master (not edited by a person)
    unchanged: tuple[str, ...] = ()
    kept_edited: tuple[str, ...] = ()  # a person's edited copy, left as it is
    saved_edits: dict[str, str] = field(default_factory=dict)  # --refresh: name -> where the edited copy went

    def lines(self) -> list[str]:
        out = []
        for label, names in (("placed", self.placed), ("updated", self.updated),
                             ("kept (you edited them; --refresh replaces them)", self.kept_edited)):
            if names:
                out.append(f"{label}: {', '.join(names)}")
        out += [f"your edited {n} was saved as {p}" for n, p in self.saved_edits.items()]
        return out


def place_notebooks(root: Path | str, *, refresh: bool = False, now: datetime | None = None) -> PlaceReport:
    """Copy the masters into `<root>/workbench/` (see the module doc)."""
    root = Path(root)
    if not root.is_dir():
        raise RemeError(f"{root} is not a folder; create the vault first (`reme-workbench init`).")
    folder = root / WORKBENCH_DIR
    state_path = root / CACHE_DIR / _STATE
    try:
        state = json.loads(state_path.read_text(encoding="utf-8")).get("placed", {})
    except (OSError, ValueError, AttributeError):
        state = {}  # only a cache: a missing record makes every differing copy "edited"
    placed, updated, unchanged, kept, saved = [], [], [], [], {}
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    for name, data in masters().items():
        dest = folder / name
        new = _sha(data)
        if not dest.exists():
            _write_atomic(dest, data)
            placed.append(name)
        else:
            current = _sha(dest.read_bytes())
            if current == new:
                unchanged.append(name)
            elif current == state.get(name):
                _write_atomic(dest, data)
                updated.append(name)
            elif refresh:
                backup = dest.with_name(f"{dest.stem}.edited-{stamp}.ipynb")
                _write_atomic(backup, dest.read_bytes())
                _write_atomic(dest, data)
                saved[name] = backup.relative_to(root).as_posix()
                updated.append(name)
            else:
                kept.append(name)
                continue
        state[name] = new
    (root / CACHE_DIR).mkdir(exist_ok=True)
    _write_atomic(state_path, json.dumps({"placed": state}, indent=2).encode("utf-8"))
    return PlaceReport(folder, tuple(placed), tuple(updated), tuple(unchanged), tuple(kept), saved)


def _is_vault(folder: Path) -> bool:
    return (folder / "digest").is_dir() and ((folder / "daily").is_dir() or (folder / "resource").is_dir())


def find_vault(start: Path | str | None = None) -> Path | None:
    """The nearest folder at or above `start` (default: the working folder) that is a vault."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_vault(folder):
            return folder
    return None
