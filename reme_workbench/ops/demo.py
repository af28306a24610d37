"""The main job, through the operations layer: the bundled sample vault's four weeks
replayed (`reme-workbench demo`), and the vault a notebook works on.

`build_demo(path)` copies the sample vault to `path` and replays its weeks in order, as
an agent and a schedule would have: for each week (Monday to Sunday, by the folder date
of the material), dream that week's material with the offline brain, then consolidate
as the weekly schedule would at the week's end (every phase, `force`). Then it places the
review notebooks, writes what Obsidian reads natively and counts what there is to look
at. Stopped (Ctrl-C) and run again, it keeps the weeks it finished and replays the week
it stopped in from a copy of the vault taken when that week began: the vault is then the
one a demo never stopped builds — but for what a person wrote in it meanwhile, which is
moved to KEPT_DIR (docs/cli.md, demo). The vault, settings (`[vault]` limits included),
embedder, index and brain come from the vault's `Workspace`, as for every operation. The
demo indexes with MiniLM unless told otherwise (`workbench.demo.demo_embedder`).

`fresh_demo_copy(dest)` gives a notebook opened outside a vault a vault to work on: the
demo is built once per embedder and package version into the user's cache folder
(`$XDG_CACHE_HOME/reme-workbench/`, else `~/.cache/reme-workbench/`) and copied fresh for
each notebook. `notebook_workspace()` is what a notebook's first cell calls.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from ..config import Settings
from ..errors import RemeError
from ..vault.layout import CACHE_DIR
from ..vault.scan import SCAN_DB
from ..workbench.demo import DemoReport, DemoWeek, Progress, demo_embedder, material_weeks
from .workspace import Workspace

__all__ = ["build_demo", "fresh_demo_copy", "notebook_workspace", "notebook_vault"]


def build_demo(path: Path | str, *, embedder: str | None = None, settings: Settings | None = None,
               progress: Progress | None = None, notebooks: bool = True) -> DemoReport:
    """Copy the sample to `path` (which must not exist, or be an empty folder) and replay
    its weeks (see the module doc). A `path` holding a demo that was stopped (its
    DEMO_MARKER) is gone on with: the weeks it finished are kept, the week it stopped in
    is put back to how it began (WEEK_START) and replayed whole, the rest replayed — the
    vault a demo never stopped has."""
    import time

    from ..index.factory import embedder_spec
    from ..proposals import ProposalQueue
    from ..vault.layout import BUCKETS, bucket_of, is_digest_note
    from ..vault.vault import init_vault
    from ..workbench.notebooks import place_notebooks

    started = time.monotonic()
    path = Path(path)
    marker = path / CACHE_DIR / DEMO_MARKER
    state = None
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        state = _read_marker(marker)  # only a folder with the demo's own marker is gone on with
        if state is None:
            raise RemeError(f"{path} already exists and is not empty; give the demo a new folder "
                            "(e.g. `reme-workbench demo reme-demo-2`) or remove it first.")
    configured = settings.recall.embedder if settings and settings.recall.embedder != "auto" else None
    spec = demo_embedder(embedder or configured or (state or {}).get("embedder"))
    if state is not None and spec != state["embedder"]:
        raise RemeError(f"The demo in {path} was started with the {state['embedder']} embedder; "
                        f"run it again without --embedder (or with --embedder {state['embedder']}) "
                        "to go on, or give the demo a new folder.")
    Workspace.check_embedder(spec, path)  # a spec it does not know stops here, before any file
    if state is None or not state["sample"]:
        if state is not None:  # stopped while the sample was copied: a file may be cut short
            _clear_but_marker(path)
        state = {"embedder": spec, "sample": False, "weeks": []}
        _write_marker(marker, state)  # first: a folder with it is the demo's own
        init_vault(path, sample=True)
        state["sample"] = True
        _write_marker(marker, state)
    # a week stopped half-way is replayed whole; what a person wrote meanwhile is kept aside
    kept = _back_to_week_start(path, len(state["weeks"]))
    if kept:
        state["kept"] = sorted(set(state.get("kept", [])) | set(kept))
        _write_marker(marker, state)
    ws = Workspace.from_environment(path, settings=settings, embedder_spec=spec)
    settings = ws.settings
    vault = ws.keep_vault()
    emb = ws.get_embedder()
    brain, _ = ws.get_dream_brain()
    weeks = material_weeks(path)
    steps = 2 * len(weeks) + 1
    created: Counter = Counter()
    updated: Counter = Counter()
    done_weeks = [_week_from_json(w) for w in state["weeks"]]  # a stopped demo's weeks
    for w in state["weeks"]:
        created.update(w["created_in"])
        updated.update(w["updated_in"])
    with ws.index(vault) as index:
        for k, (first, last, files) in enumerate(weeks):
            if k < len(done_weeks):
                continue
            _keep_week_start(path, k)
            try:
                week, in_week = _replay_week(k, first, last, files, ws=ws, vault=vault,
                                             brain=brain, index=index, settings=settings,
                                             emb=emb, progress=progress, steps=steps)
            except BaseException:  # Ctrl-C too: the restore must tell its writes from a person's
                _record_week_writes(path, k)
                raise
            week_created, week_updated = in_week
            created.update(week_created)
            updated.update(week_updated)
            done_weeks.append(week)
            state["weeks"].append({**_week_to_json(week), "created_in": dict(week_created),
                                   "updated_in": dict(week_updated)})
            _write_marker(marker, state)  # a demo stopped from here on goes on with the next week
    if progress:
        progress("placing the notebooks and the Obsidian views", steps - 1, steps)
    placed = place_notebooks(path).placed if notebooks else ()
    from obsidian_bridge import run_bridge  # the demo is meant to be opened in Obsidian too

    bridge = run_bridge(vault, communities=True, canvas=True)
    vault.refresh()
    notes = Counter(bucket_of(p) for p, r in vault.scan.records.items()
                    if is_digest_note(p) and r.readable)
    waiting = Counter(p.action for p in ProposalQueue(vault).list("pending"))
    from ..consolidate.abstract import load_communities

    communities, _, _ = load_communities(path)
    _drop_week_starts(path)
    marker.unlink(missing_ok=True)  # the demo is whole: a second one into it is refused
    if progress:
        progress("done", steps, steps)
    return DemoReport(
        path, tuple(done_weeks), {b: created[b] for b in BUCKETS}, {b: updated[b] for b in BUCKETS},
        {b: notes[b] for b in BUCKETS}, len(set((communities or {}).values())),
        dict(sorted(waiting.items())), tuple(placed), embedder_spec(emb.name),
        time.monotonic() - started,
        {"bridge": bridge.to_json(), "kept": state.get("kept", [])})


def _replay_week(k: int, first, last, files: list[str], *, ws: Workspace, vault, brain, index,
                 settings: Settings, emb, progress: Progress | None, steps: int):
    """Week `k` of the demo: its material dreamt, then consolidated as the weekly schedule
    would at the week's end. Returns the week and its (created, updated) counts by bucket."""
    from ..consolidate.run import consolidate_vault
    from ..dream.run import dream_vault
    from ..vault.layout import bucket_of

    if progress:
        progress(f"week of {first:%b %d}: dream {len(files)} files", 2 * k, steps)
    report = dream_vault(vault, brain, index, settings, targets=files)
    failed = [o for o in report.outcomes if o.state == "failed"]
    if failed:
        raise RemeError(f"Dream failed on {failed[0].material}: {failed[0].message}")
    week_created: Counter = Counter()
    week_updated: Counter = Counter()
    for o in report.outcomes:
        if o.state != "applied" or not o.target_path:
            continue
        (week_created if o.action == "CREATE" else week_updated)[bucket_of(o.target_path)] += 1
    if progress:
        progress(f"week of {first:%b %d}: consolidate", 2 * k + 1, steps)
    run = consolidate_vault(vault, settings, force=True, embedder=emb, index=index,
                            brain=ws.get_consolidate_brain())
    lines = "; ".join(f"{o.phase}: {o.summary}" for o in run.phases
                      if o.ran and o.phase in ("abstract", "merge", "split"))
    week = DemoWeek(first, last, len(report.materials), week_created.total(),
                    week_updated.total(), lines)
    return week, (week_created, week_updated)


# Written first into the demo's folder and removed when the demo is whole: a folder with it
# is a demo that was stopped, and running the demo again goes on with it (weeks done kept).
DEMO_MARKER = "demo-unfinished.json"


def _read_marker(marker: Path) -> dict | None:
    try:
        state = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(state, dict) and isinstance(state.get("embedder"), str) and \
        isinstance(state.get("weeks"), list)
    return state if ok else None


def _write_marker(marker: Path, state: dict) -> None:
    """Whole or not written (a temporary file renamed over it)."""
    marker.parent.mkdir(parents=True, exist_ok=True)
    part = marker.with_name(marker.name + ".tmp")
    part.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    os.replace(part, marker)


def _clear_but_marker(path: Path) -> None:
    """Empty the demo's own folder (its marker says so) but for the marker."""
    for item in path.iterdir():
        if item.name == CACHE_DIR:
            for inner in item.iterdir():
                if inner.name != DEMO_MARKER:
                    shutil.rmtree(inner) if inner.is_dir() else inner.unlink()
        elif item.is_dir() and not item.is_symlink():
            shutil.rmtree(item)
        else:
            item.unlink()


# `.reme/demo-week-<k>`: the vault as it was when week k began, kept while that week is
# replayed. A demo stopped inside a week is put back to it before the week is replayed
# again: stopped half-way, a week has written part of its notes, proposals, dreamt record
# and consolidation state, and replaying the week on top of them is not the week replayed
# once (material whose notes are written but which is not yet marked dreamt is dreamt a
# second time, against its own notes).
WEEK_START = "demo-week-"


def _not_restored(name: str) -> bool:
    """A name in `.reme/` that a week start neither keeps nor puts back: the demo's own
    files, the run locks (another process may hold one), and the index and scan databases
    — caches of the files that their next refresh brings up to date from the files as
    they are (keeping them spares the demo embedding its notes again)."""
    from ..index.indexdb import INDEX_DB  # numpy and the encoders: the demo has them loaded

    return (name == DEMO_MARKER or name.startswith(WEEK_START) or name == "lock"
            or name.endswith(".lock") or name.startswith((INDEX_DB, SCAN_DB, "vectors.")))


def _week_start_copy_ignores(path: Path):
    inner = path / CACHE_DIR

    def ignore(folder: str, names: list[str]) -> set[str]:
        if Path(folder) == path:
            return {KEPT_DIR} & set(names)
        return {n for n in names if _not_restored(n)} if Path(folder) == inner else set()

    return ignore


def _keep_week_start(path: Path, week: int) -> None:
    """Copy the vault to `.reme/demo-week-<week>`, whole or not at all (copied under a
    temporary name, then renamed), and drop the copies of earlier weeks. A copy that is
    there already is the one the vault was just put back to."""
    keep = path / CACHE_DIR / f"{WEEK_START}{week}"
    if not keep.is_dir():
        part = keep.with_name(keep.name + ".tmp")
        shutil.rmtree(part, ignore_errors=True)
        shutil.copytree(path, part, symlinks=True, ignore=_week_start_copy_ignores(path))
        os.replace(part, keep)
    _drop_week_starts(path, but=keep.name)


def _drop_week_starts(path: Path, but: str | None = None) -> None:
    for item in (path / CACHE_DIR).glob(f"{WEEK_START}*"):  # the copies and their records
        if item.name != but:
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item, ignore_errors=True)
            else:
                item.unlink(missing_ok=True)


# Where the restore puts what a person wrote in a demo stopped inside a week (a note
# added, a line edited): the vault's root, outside the layers the demo reads, so the
# replayed week is the week a demo never stopped replays, and nothing a person wrote is
# lost (docs/cli.md, demo). Said in the demo's report (`kept`).
KEPT_DIR = "kept-from-stopped-demo"
# `.reme/demo-week-<k>.written.json`: {path: [sha256, …]} of every file week k had written
# (added or changed since its start copy) when it stopped — the restore's way to tell the
# week's own writes from a person's.
WRITTEN_SUFFIX = ".written.json"


def _vault_files(path: Path):
    """(vault-relative path, file) of every file the week start copy compares: all but
    `.reme/` and what was kept aside."""
    for folder, dirs, names in os.walk(path):
        here = Path(folder)
        if here == path:
            dirs[:] = [d for d in dirs if d not in (CACHE_DIR, KEPT_DIR)]
            names = [n for n in names if n != KEPT_DIR]
        for name in [*names, *dirs]:  # a link to a folder is listed with the folders
            full = here / name
            # a link is compared by its target; a pipe or socket is not read (it may block)
            if full.is_symlink() or (name in names and full.is_file()):
                yield full.relative_to(path).as_posix(), full


def _fingerprint(file: Path) -> str:
    digest = hashlib.sha256()
    if file.is_symlink():
        digest.update(b"link:" + os.readlink(file).encode())
    else:
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _as_at_start(keep: Path, rel: str, file: Path) -> bool:
    """Whether `file` is as the week start copy `keep` has it."""
    kept = keep / rel
    return (kept.is_file() or kept.is_symlink()) and _fingerprint(kept) == _fingerprint(file)


def _record_week_writes(path: Path, week: int) -> None:
    """Note what week `week` wrote before it stopped (added to what an earlier stop of the
    same week noted). Whole or not written; a demo killed before it is written finds no
    record and keeps every changed file aside — more kept than needed, nothing lost."""
    keep = path / CACHE_DIR / f"{WEEK_START}{week}"
    if not keep.is_dir():
        return  # stopped before the week began: it wrote nothing
    record = keep.with_name(keep.name + WRITTEN_SUFFIX)
    written = _read_written(record)
    for rel, file in _vault_files(path):
        if not _as_at_start(keep, rel, file):
            written.setdefault(rel, set()).add(_fingerprint(file))
    part = record.with_name(record.name + ".tmp")
    part.write_text(json.dumps({rel: sorted(h) for rel, h in written.items()}), encoding="utf-8")
    os.replace(part, record)


def _read_written(record: Path) -> dict[str, set[str]]:
    try:
        rows = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(rows, dict):
        return {}
    return {rel: set(h) for rel, h in rows.items() if isinstance(h, list)}


def _keep_aside(path: Path, rel: str, file: Path) -> str:
    """Move a person's `file` to KEPT_DIR under its own path (numbered if that is taken by
    other content); returns where it is now, vault-relative."""
    dest = path / KEPT_DIR / rel
    n = 1
    while dest.exists() or dest.is_symlink():
        if _fingerprint(dest) == _fingerprint(file):  # kept already (a restore stopped half-way)
            file.unlink()
            return dest.relative_to(path).as_posix()
        n += 1
        dest = dest.with_name(f"{Path(rel).stem}.{n}{Path(rel).suffix}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(file, dest)
    return dest.relative_to(path).as_posix()


def _back_to_week_start(path: Path, week: int) -> list[str]:
    """Put the vault back to the copy kept when `week` began, if there is one: what a
    person wrote meanwhile is first moved to KEPT_DIR (a file neither as the copy has it
    nor as the week wrote it), then everything but what `_not_restored` names is removed
    and the copy's files put in its place. Returns where the person's files are now. The
    copy itself stays until the week is done, so a demo stopped while this runs is put
    back again the next time. No copy: the demo stopped before the week wrote anything."""
    keep = path / CACHE_DIR / f"{WEEK_START}{week}"
    if not keep.is_dir():
        return []
    written = _read_written(keep.with_name(keep.name + WRITTEN_SUFFIX))
    kept = [_keep_aside(path, rel, file) for rel, file in list(_vault_files(path))
            if not _as_at_start(keep, rel, file) and _fingerprint(file) not in written.get(rel, ())]
    for item in path.iterdir():
        if item.name == CACHE_DIR:
            for inner in item.iterdir():
                if not _not_restored(inner.name):
                    _remove(inner)
        elif item.name != KEPT_DIR:
            _remove(item)
    for item in keep.iterdir():
        dest = path / item.name
        if item.is_dir() and not item.is_symlink():
            shutil.copytree(item, dest, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(item, dest, follow_symlinks=False)
    return kept


def _remove(item: Path) -> None:
    shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()


def _week_to_json(week: DemoWeek) -> dict:
    return {"first": week.first.isoformat(), "last": week.last.isoformat(),
            "materials": week.materials, "created": week.created, "updated": week.updated,
            "consolidate": week.consolidate}


def _week_from_json(row: dict) -> DemoWeek:
    from datetime import date

    return DemoWeek(date.fromisoformat(row["first"]), date.fromisoformat(row["last"]),
                    row["materials"], row["created"], row["updated"], row["consolidate"])


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "reme-workbench"


def _template_key(embedder: str) -> str:
    from importlib import metadata, resources

    try:
        version = metadata.version("reme-workbench")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        version = "source"
    digest = hashlib.sha256(f"{version}|{embedder}".encode())
    sample = resources.files("reme_workbench") / "samples" / "vault"
    with resources.as_file(sample) as folder:
        for item in sorted(Path(folder).rglob("*")):
            if item.is_file():
                digest.update(item.relative_to(folder).as_posix().encode())
                digest.update(item.read_bytes())
    return digest.hexdigest()[:16]


def fresh_demo_copy(dest: Path | str, *, embedder: str | None = None) -> Path:
    """A fresh copy of the demo vault at `dest` (see the module doc)."""
    spec = demo_embedder(embedder)
    template = _cache_root() / f"demo-{spec.replace(':', '_')}-{_template_key(spec)}"
    if not (template / "workbench").is_dir():
        template.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".demo-build-", dir=template.parent))
        try:
            print(f"Building the demo vault once ({spec} embedder); later notebooks copy it.")
            build_demo(building / "vault", embedder=spec)
            try:
                os.replace(building / "vault", template)  # another kernel may have won
            except OSError:
                pass
        finally:
            shutil.rmtree(building, ignore_errors=True)
    dest = Path(dest)
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns(".reme/*.lock"))
    shutil.rmtree(dest / CACHE_DIR / "journal", ignore_errors=True)
    return dest


_SCRATCH: list[tempfile.TemporaryDirectory] = []  # demo copies live as long as the kernel


def notebook_workspace(start: Path | str | None = None, *, embedder: str | None = None) -> Workspace:
    """The workspace a notebook works on, its vault opened and kept: `$REME_VAULT` if set,
    else the vault the notebook sits in (walking up from `start`, default the working
    folder), else — opened outside a vault — a fresh copy of the demo vault in a temporary
    folder removed when the kernel stops. Says which in one line."""
    from ..workbench.notebooks import find_vault

    env = os.environ.get("REME_VAULT")
    root = Path(env) if env else find_vault(start)
    if root is None:
        scratch = tempfile.TemporaryDirectory(prefix="reme-demo-")
        _SCRATCH.append(scratch)
        root = fresh_demo_copy(Path(scratch.name) / "demo-vault",
                               embedder=embedder or os.environ.get("REME_DEMO_EMBEDDER"))
        print(f"Not inside a vault: working on a fresh copy of the demo vault at {root} "
              "(removed when this kernel stops).")
    else:
        print(f"Vault: {root}")
    ws = Workspace.from_environment(root)
    ws.keep_vault()
    return ws


def notebook_vault(start: Path | str | None = None, *, embedder: str | None = None):
    """The `Vault` of `notebook_workspace()` (the review screens take the vault)."""
    return notebook_workspace(start, embedder=embedder).open_vault()
