"""The write-ahead journal in `.reme/journal/<id>/`: a changeset lands whole or not at all.

A journal folder holds the staged new contents (`new-<i>`), backups of the old ones
(`old-<i>`) and, once everything staged is durable, `manifest.json`. Writing the
manifest (temp + fsync + rename + fsync of the folder) is the commit point:

* no manifest      -> nothing in the vault was touched yet; recovery discards the folder;
* manifest         -> the ops are put in place one by one (`guarded.forward`): each file
  replaced is first moved into the folder (`held-<i>`) and checked, so a person's save
  that lands meanwhile is never overwritten — it makes the whole changeset *abandoned*;
* `abandoned.json` -> every op done so far is undone (`guarded.backward`), where the
  file still holds what the change wrote, and the folder removed;
* `applied.json`   -> all ops are done and durable; only the clean-up was interrupted.

`settle` runs a committed journal to one of the two ends and says which
(`Settlement`); recovery after a crash calls the same function, so a crash at any step
ends the same way a live write would. What cannot be put back — a person edited a file
in the moment between our write and our undo — is kept under `audit/<date>/`, never
only in `.reme/` (`set_aside`).

Every caller must hold the vault lock (`lock.VaultLock`): a journal of a live writer
must never be "recovered" by someone else.

Crash injection for tests: set `REME_JOURNAL_CRASH_AT` to a step number N (every
fsync / rename / link / unlink / mkdir done here counts as one step) or to a step label
(`committed`, `applied`, ...) and the process calls `os._exit(137)` right after that step.
Unset (the default), the hook costs one dict lookup per step.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from ..errors import RemeError, UnsafePathError
from .guarded import (
    Conflict,
    OpState,
    backward,
    ensure_parents,
    file_sha,
    forward,
    precheck,
    write_synced,
)
from .layout import CACHE_DIR, resolve_inside
from .lock import ensure_cache_dir

__all__ = [
    "CRASH_ENV",
    "JournalOp",
    "Settlement",
    "journal_root",
    "write_journal",
    "settle",
    "set_aside_journal",
    "recover_all",
    "RECOVER_COMMAND",
]

CRASH_ENV = "REME_JOURNAL_CRASH_AT"
MANIFEST = "manifest.json"
APPLIED = "applied.json"
ABANDONED = "abandoned.json"
FORMAT = 2
READABLE_FORMATS = (1, 2)  # format 1 had long temp names beside the target; ops are alike
# what a person runs when a journal can be neither finished nor undone (cli: `recover`)
RECOVER_COMMAND = "reme-workbench recover"

OpKind = Literal["create", "edit", "delete"]


@dataclass(frozen=True)
class JournalOp:
    """One file op with both sides: `new` None for a delete, `old` None for a create."""

    kind: OpKind
    path: str
    new: bytes | None
    old: bytes | None
    mode: int | None = None  # permission bits to keep on an edit


@dataclass(frozen=True)
class Settlement:
    """How a committed journal ended.

    `applied`: every op is in place. Otherwise the changeset was abandoned because of
    `conflicts` (paths someone else wrote while it was written) and undone, except the
    paths in `not_undone`, which someone edited after the change wrote them (their file
    stands). `set_aside` is the audit file keeping what could not be put in place.
    """

    journal_id: str
    description: str
    applied: bool
    conflicts: tuple[Conflict, ...] = ()
    not_undone: tuple[Conflict, ...] = ()
    set_aside: str | None = None
    io_error: str | None = None  # the file system refused a write (not someone's save)

    @property
    def conflict_paths(self) -> list[str]:
        return [c.rel for c in self.conflicts]

    def describe(self) -> str:
        """One paragraph for a person: what happened to the change and where things are."""
        name = f"{self.journal_id}" + (f" ({self.description})" if self.description else "")
        if self.applied:
            if self.set_aside:
                late = ", ".join(c.rel for c in self.conflicts)
                return (f"The change {name} was applied, but a program kept {late} open and "
                        "wrote into the replaced copy while it was written; that save is kept "
                        f"in {self.set_aside}. Compare it with the note and copy back what "
                        "you need.")
            return f"The change {name} was finished."
        why = "; ".join(f"{c.rel} {c.why}" for c in self.conflicts) or "it could not be written"
        text = (f"The change {name} was not applied: {why}. A person's save wins, so the "
                "change was undone and nothing of it stays")
        if self.not_undone:
            kept = "; ".join(f"{c.rel} {c.why}" for c in self.not_undone)
            text = (f"The change {name} was not applied: {why}. It was undone except where "
                    f"someone edited a file after it was written ({kept}): those files "
                    "stand as they are now")
        if self.set_aside:
            text += f"; what could not be put back is kept in {self.set_aside}"
        return text + "."


# --------------------------------------------------------------------------- crash hook

_steps = 0


def _step(label: str) -> None:
    global _steps
    _steps += 1
    spec = os.environ.get(CRASH_ENV)
    if spec and (spec == label or spec == str(_steps)):
        os._exit(137)  # simulate kill -9: no clean-up, no flush


def _fsync_dir(path: Path) -> None:
    # A rename/link/unlink is durable only once its folder is fsynced.
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
        _step("fsync-dir")
    finally:
        os.close(fd)


def _utc(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- writing


def journal_root(root: Path) -> Path:
    return Path(root) / CACHE_DIR / "journal"


def _ensure_journal_root(root: Path) -> Path:
    ensure_cache_dir(root)
    jroot = resolve_inside(root, f"{CACHE_DIR}/journal")
    try:
        os.mkdir(jroot)
    except FileExistsError:
        if not stat.S_ISDIR(os.lstat(jroot).st_mode):
            raise RemeError(f"{str(jroot)!r} is not a folder; remove it.") from None
    else:
        _fsync_dir(jroot.parent)
    return jroot


def write_journal(
    root: Path, journal_id: str, ops: Sequence[JournalOp], *, description: str = ""
) -> Path:
    """Stage `ops` and commit the journal; return its folder. Nothing in the vault changes.

    On any error before the commit the partial folder is removed and the error re-raised.
    """
    jroot = _ensure_journal_root(root)
    jdir = jroot / journal_id
    os.mkdir(jdir)
    _step("mkdir-journal")
    try:
        entries = []
        for i, op in enumerate(ops):
            entry: dict[str, object] = {"kind": op.kind, "path": op.path, "mode": op.mode}
            for side, data in (("new", op.new), ("old", op.old)):
                if data is None:
                    entry[side] = entry[f"{side}_sha256"] = None
                else:
                    name = f"{side}-{i}"
                    write_synced(jdir / name, data, _step, label="fsync-stage")
                    entry[side], entry[f"{side}_sha256"] = name, _sha(data)
            entries.append(entry)
        _fsync_dir(jdir)
        _fsync_dir(jroot)  # the journal folder's own entry
        _step("staged")
        manifest = {"format": FORMAT, "id": journal_id, "description": description, "ops": entries}
        tmp = jdir / (MANIFEST + ".tmp")
        write_synced(tmp, json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8"),
                     _step, label="fsync-manifest")
        os.rename(tmp, jdir / MANIFEST)
        _step("rename-manifest")
        _fsync_dir(jdir)  # after this the commit survives power loss
        _step("committed")
    except BaseException:
        if not (jdir / MANIFEST).exists():
            shutil.rmtree(jdir, ignore_errors=True)
        raise
    return jdir


# --------------------------------------------------------------------------- settling


def _load_manifest(jdir: Path) -> dict:
    for name in (ABANDONED, MANIFEST, APPLIED):
        path = jdir / name
        if not path.exists():
            continue
        try:
            manifest = json.loads(path.read_bytes())
            if (manifest.get("format") not in READABLE_FORMATS
                    or not isinstance(manifest.get("ops"), list)):
                raise ValueError("unknown journal format")
            return manifest
        except (OSError, ValueError) as exc:
            raise RemeError(
                f"The committed journal {str(jdir)!r} cannot be read ({exc}). Run "
                f"`{RECOVER_COMMAND} --set-aside` to keep its files under audit/ and remove "
                "it; the notes stay as they are now."
            ) from None
    raise RemeError(f"{str(jdir)!r} holds no manifest; it was never committed.")


def _states(manifest: dict) -> list[OpState]:
    # paths as staged (the store checked them); each op resolves its own, so one a file
    # system refuses is a conflict of that op, not an unreadable journal
    return [OpState(i, e["kind"], str(e["path"]), e.get("new_sha256"),
                    e.get("old_sha256"), e.get("mode") if isinstance(e.get("mode"), int) else None)
            for i, e in enumerate(manifest["ops"])]


def _staged(jdir: Path, entry: dict, side: str):
    return lambda: (jdir / entry[side]).read_bytes()


def settle(root: Path, jdir: Path, *, now: datetime | None = None, live: bool = False) -> Settlement:
    """Run the committed journal `jdir` to its end — every op in place, or none — then
    remove it. Idempotent: a crash anywhere in between, and `settle` again, ends the same.

    `live`: the writer that staged it is settling it, and still holds the change's
    content; in recovery (after a crash) the change's version of a file it could not
    write is kept under audit/, as no one else holds it any more.

    Raises RemeError (naming `reme-workbench recover`) only when the file system refuses
    both finishing and undoing (a folder made read-only, a full disk); the journal is then
    left in place.
    """
    root = Path(root)
    manifest = _load_manifest(jdir)
    jid = str(manifest.get("id", jdir.name))
    try:
        return _settle(root, jdir, manifest, now, live)
    except OSError as exc:
        raise RemeError(
            f"The change {jid} could be neither finished nor undone: {exc}. Nothing more was "
            f"touched. Fix the cause (permissions, free space), then run `{RECOVER_COMMAND}`; "
            f"or `{RECOVER_COMMAND} --set-aside` leaves the notes as they are and keeps the "
            "change's files under audit/."
        ) from exc


def _settle(root: Path, jdir: Path, manifest: dict, now: datetime | None,
            live: bool) -> Settlement:
    jid, description = str(manifest.get("id", jdir.name)), str(manifest.get("description", ""))
    ops, entries = _states(manifest), manifest["ops"]
    touched: set[Path] = {jdir}
    if (jdir / ABANDONED).exists():
        conflicts = tuple(Conflict(c["rel"], c["why"]) for c in manifest.get("conflicts", []))
        return _undo(root, jdir, manifest, ops, conflicts, touched, now, live=live)
    conflicts: list[Conflict] = []
    io_error = None
    try:
        conflicts = [c for op in ops if (c := precheck(root, jdir, op, jid))]
        for op, entry in zip(ops, entries, strict=True):
            if conflicts:
                break
            found = forward(root, jdir, op, _staged(jdir, entry, "new"), touched, _step, jid)
            if found:
                conflicts.append(found)
        if not conflicts:
            for folder in sorted(touched):
                _fsync_dir(folder)
            conflicts = _late_saves(jdir, ops)
    except (OSError, UnsafePathError) as exc:  # the file system (or the path) refuses
        where = _rel_of(root, exc.filename) if getattr(exc, "filename", None) else (
            getattr(exc, "path", None) or "a file")
        io_error = f"{where}: {getattr(exc, 'strerror', None) or exc}"
        conflicts.append(Conflict(where, f"could not be written ({io_error})"))
    if conflicts:
        done = _undo(root, jdir, manifest, ops, tuple(conflicts), touched, now, live=live)
        return replace(done, io_error=io_error)
    _step("applied")
    # Mark done before deleting staged files: a half-removed committed journal
    # could otherwise not be rolled forward.
    os.rename(jdir / MANIFEST, jdir / APPLIED)
    _step("rename-applied")
    _fsync_dir(jdir)
    # the last look: a save that reached a replaced file since is kept, not deleted
    late = _late_saves(jdir, ops)
    where = None
    if late:
        where = _write_set_aside(root, jid, description, [
            (c.rel, jdir / f"held-{op.index}", "a save that reached the replaced file after "
             "the change was written (the note holds the change, with any later save)")
            for c in late for op in ops if op.rel == c.rel], now)
    _remove_journal(jdir)
    return Settlement(jid, description, True, late, set_aside=where)


def _late_saves(jdir: Path, ops: list[OpState]) -> list[Conflict]:
    """Ops whose replaced file changed after it was checked: a program that kept it open
    across the swap wrote into it (the path already holds the new file)."""
    return [Conflict(op.rel, "was saved while the change was being written")
            for op in ops if op.kind != "create"
            and file_sha(jdir / f"held-{op.index}", "held") not in (None, op.old_sha)]


def _rel_of(root: Path, filename) -> str:
    try:
        return Path(os.fsdecode(filename)).relative_to(root).as_posix()
    except ValueError:
        return os.fsdecode(filename)


def _undo(root: Path, jdir: Path, manifest: dict, ops: list[OpState],
          conflicts: tuple[Conflict, ...], touched: set[Path], now: datetime | None, *,
          live: bool) -> Settlement:
    jid, description = str(manifest.get("id", jdir.name)), str(manifest.get("description", ""))
    if not (jdir / ABANDONED).exists():
        marker = {**manifest, "conflicts": [{"rel": c.rel, "why": c.why} for c in conflicts]}
        tmp = jdir / (ABANDONED + ".tmp")
        write_synced(tmp, json.dumps(marker, ensure_ascii=False, indent=1).encode("utf-8"),
                     _step, label="fsync-abandon")
        os.rename(tmp, jdir / ABANDONED)  # from here on, recovery undoes instead of finishing
        _step("rename-abandoned")
        if (jdir / MANIFEST).exists():
            os.unlink(jdir / MANIFEST)
        _fsync_dir(jdir)
    not_undone: list[Conflict] = []
    for op in reversed(ops):
        try:
            found = backward(root, jdir, op, touched, _step)
        except UnsafePathError:
            continue  # a path no file can have (too long, say): nothing was done there
        if found:
            not_undone.append(found)
    for folder in sorted(touched):
        _fsync_dir(folder)
    # what someone's later edit kept us from putting back (the file before the change),
    # and, after a crash, the change's own version (no caller holds it any more)
    keep = [(op.rel, jdir / f"held-{op.index}", "the file before the change")
            for op in ops if any(c.rel == op.rel for c in not_undone)
            and (jdir / f"held-{op.index}").exists()]
    if not live:
        keep += [(op.rel, jdir / e["new"], "the change's version, not applied")
                 for op, e in zip(ops, manifest["ops"], strict=True)
                 if e.get("new") and any(c.rel == op.rel for c in conflicts)]
    where = _write_set_aside(root, jid, description, keep, now) if keep else None
    _remove_journal(jdir)
    return Settlement(jid, description, False, conflicts, tuple(not_undone), where)


# --------------------------------------------------------------------------- set aside


def _fence(text: str) -> str:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _write_set_aside(root: Path, jid: str, description: str,
                     items: list[tuple[str, Path, str]], now: datetime | None) -> str:
    """`audit/<date>/set_aside-<journal id>.md`: each file's text in a fenced block, so
    Obsidian shows it without taking its links for links; binary files beside it."""
    when = _utc(now)
    rel = f"audit/{when:%Y-%m-%d}/set_aside-{jid}.md"
    lines = [f"# Set aside from change {jid}", "",
             (f"{description}. " if description else "")
             + "These could not be put in place without overwriting someone's later edit; "
             "they are kept here so nothing is lost. Copy back what you need.", ""]
    touched: set[Path] = set()
    for i, (path, source, what) in enumerate(items):
        data = source.read_bytes()
        lines += [f"## {path}", "", f"{what}:", ""]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            binary = f"audit/{when:%Y-%m-%d}/set_aside-{jid}-{i}.bin"
            ensure_parents(root, binary, touched, _step)
            target = resolve_inside(root, binary)
            if not target.exists():
                write_synced(target, data, _step, mode=0o644)
            lines += [f"(binary, {len(data):,} bytes: `{binary}`)", ""]
            continue
        fence = _fence(text)
        lines += [fence + "markdown", text.rstrip("\n"), fence, ""]
    ensure_parents(root, rel, touched, _step)
    target = resolve_inside(root, rel)
    if not target.exists():  # idempotent: a crash after it was written writes it once
        tmp = target.with_name(f".{jid}.reme-tmp")
        write_synced(tmp, "\n".join(lines).encode("utf-8"), _step, mode=0o644)
        try:
            os.link(tmp, target)
        except FileExistsError:
            pass
        os.unlink(tmp)
    for folder in touched | {target.parent}:
        _fsync_dir(folder)
    return rel


def set_aside_journal(root: Path, jdir: Path, *, now: datetime | None = None) -> str:
    """Give up on a journal without touching any note: keep every file it staged and
    every file it moved aside under audit/ (one page), then remove it. For
    `reme-workbench recover --set-aside`, when a journal can be neither finished nor
    undone; the caller holds the vault lock."""
    jid = jdir.name
    items: list[tuple[str, Path, str]] = []
    description = ""
    if not any((jdir / name).exists() for name in (MANIFEST, ABANDONED)):
        _remove_journal(jdir)  # never committed, or finished: no note depends on it
        return "(nothing to keep)"
    try:
        manifest = _load_manifest(jdir)
        description = str(manifest.get("description", ""))
        for i, e in enumerate(manifest["ops"]):
            for name, what in ((e.get("new"), "the change's version"),
                               (f"held-{i}", "the file it replaced (moved aside)"),
                               (e.get("old"), "the file before the change")):
                if name and (jdir / name).exists():
                    items.append((str(e.get("path")), jdir / name, what))
    except RemeError:  # unreadable manifest: keep every file the folder holds
        items = [(p.name, p, "a file of the journal") for p in sorted(jdir.iterdir()) if p.is_file()]
    where = _write_set_aside(root, jid, description, items, now) if items else "(nothing to keep)"
    _remove_journal(jdir)
    return where


def _remove_journal(jdir: Path) -> None:
    shutil.rmtree(jdir)
    _step("rmtree")
    _fsync_dir(jdir.parent)


def recover_all(root: Path, *, now: datetime | None = None) -> list[str]:
    """Settle committed journals and discard uncommitted ones (the caller holds the
    lock); return what was done, for the user."""
    jroot = resolve_inside(root, f"{CACHE_DIR}/journal")  # refuses a symlinked folder
    try:
        names = sorted(os.listdir(jroot))
    except FileNotFoundError:
        return []
    messages: list[str] = []
    for name in names:
        jdir = jroot / name
        if not stat.S_ISDIR(os.lstat(jdir).st_mode):
            os.unlink(jdir)  # stray file: never part of a commit
            continue
        if (jdir / MANIFEST).exists() or (jdir / ABANDONED).exists():
            done = settle(root, jdir, now=now)
            if done.applied:
                messages.append(f"Finished the change {name}"
                                + (f" ({done.description})" if done.description else "")
                                + " that was interrupted after it was committed.")
            if not done.applied or done.set_aside:
                messages.append(done.describe())
        elif (jdir / APPLIED).exists():  # complete; only the clean-up was interrupted
            manifest = _load_manifest(jdir)
            late = _late_saves(jdir, _states(manifest))
            if late:
                where = _write_set_aside(root, name, str(manifest.get("description", "")), [
                    (c.rel, jdir / f"held-{op.index}", "a save that reached the replaced file "
                     "after the change was written") for c in late
                    for op in _states(manifest) if op.rel == c.rel], now)
                messages.append(Settlement(name, str(manifest.get("description", "")), True,
                                           tuple(late), set_aside=where).describe())
            _remove_journal(jdir)
        else:
            _remove_journal(jdir)
            messages.append(
                f"Discarded the change {name} that was interrupted before it was committed; "
                "no vault file had been touched."
            )
    return messages
