"""The write-ahead journal in `.reme/journal/<id>/`: a crash leaves old state or new, never a mix.

A journal folder holds the staged new contents (`new-<i>`), backups of the old ones
(`old-<i>`) and, once everything staged is durable, `manifest.json`. Writing the
manifest (temp + fsync + rename + fsync of the folder) is the commit point:

* no manifest   -> nothing in the vault was touched yet; recovery discards the folder;
* manifest      -> recovery rolls every op forward (idempotently: an op whose target
  already holds the new bytes is skipped);
* `applied.json` -> all ops are done and durable; only the clean-up was interrupted.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import RemeError, UnsafePathError
from .layout import CACHE_DIR, normalize_rel, resolve_inside
from .lock import ensure_cache_dir

__all__ = [
    "CRASH_ENV",
    "JournalOp",
    "journal_root",
    "write_journal",
    "roll_forward",
    "recover_all",
    "step_count",
    "tmp_name",
]

CRASH_ENV = "REME_JOURNAL_CRASH_AT"
MANIFEST = "manifest.json"
APPLIED = "applied.json"
FORMAT = 1

OpKind = Literal["create", "edit", "delete"]


@dataclass(frozen=True)
class JournalOp:
    """One file op with both sides: `new` None for a delete, `old` None for a create."""

    kind: OpKind
    path: str
    new: bytes | None
    old: bytes | None
    mode: int | None = None  # permission bits to keep on an edit


# --------------------------------------------------------------------------- crash hook

_steps = 0


def step_count() -> int:
    """How many durable steps this process has taken (used to aim crash injection)."""
    return _steps


def _step(label: str) -> None:
    global _steps
    _steps += 1
    spec = os.environ.get(CRASH_ENV)
    if spec and (spec == label or spec == str(_steps)):
        os._exit(137)  # simulate kill -9: no clean-up, no flush


# --------------------------------------------------------------------------- primitives


def _fsync_fd(fd: int, label: str) -> None:
    os.fsync(fd)
    _step(label)


def _fsync_dir(path: Path) -> None:
    # A rename/link/unlink is durable only once its folder is fsynced.
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _fsync_fd(fd, "fsync-dir")
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes, *, mode: int = 0o600, label: str = "fsync") -> None:
    """Write `data` to `path` (truncating; never through a symlink) and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        _fsync_fd(fd, label)
    finally:
        os.close(fd)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _current_sha(target: Path, rel: str) -> str | None:
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafePathError(
            f"{rel!r} cannot be opened as a regular file ({exc.strerror}); fix or remove it.",
            path=rel,
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(
                f"{rel!r} is not a regular file; move it away and try again.", path=rel
            )
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def tmp_name(target: Path, journal_id: str) -> Path:
    """The temp file next to `target`; dot-prefixed so Obsidian hides it."""
    return target.with_name(f".{target.name}.{journal_id}.reme-tmp")


def _unlink_quiet(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    _step("unlink-tmp")


def _ensure_parents(root: Path, rel: str, touched: set[Path]) -> None:
    """Create the folders of `rel` one by one, refusing symlinks and files on the way."""
    current = root
    for part in rel.split("/")[:-1]:
        parent, current = current, current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current)
            except FileExistsError:
                pass  # raced with another creator; re-checked below
            else:
                _step("mkdir")
                touched.add(parent)  # the new entry must reach the disk
            st = os.lstat(current)
        if not stat.S_ISDIR(st.st_mode):  # lstat: a symlink is not a dir here
            raise UnsafePathError(
                f"Cannot create {rel!r}: {current.relative_to(root).as_posix()!r} is a "
                "symlink or a file, not a folder. Replace it with a real folder.",
                path=rel,
            )


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
                    _write_file(jdir / name, data, label="fsync-stage")
                    entry[side], entry[f"{side}_sha256"] = name, _sha(data)
            entries.append(entry)
        _fsync_dir(jdir)
        _fsync_dir(jroot)  # the journal folder's own entry
        _step("staged")
        manifest = {"format": FORMAT, "id": journal_id, "description": description, "ops": entries}
        tmp = jdir / (MANIFEST + ".tmp")
        _write_file(
            tmp,
            json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8"),
            label="fsync-manifest",
        )
        os.rename(tmp, jdir / MANIFEST)
        _step("rename-manifest")
        _fsync_dir(jdir)  # after this the commit survives power loss
        _step("committed")
    except BaseException:
        if not (jdir / MANIFEST).exists():
            shutil.rmtree(jdir, ignore_errors=True)
        raise
    return jdir


# --------------------------------------------------------------------------- roll forward


def _set_aside(root: Path, journal_id: str, rel: str, data: bytes) -> str:
    dest_rel = f"{CACHE_DIR}/recovered/{journal_id}/{rel}"
    touched: set[Path] = set()
    _ensure_parents(root, dest_rel, touched)
    dest = resolve_inside(root, dest_rel)
    tmp = tmp_name(dest, journal_id)
    _write_file(tmp, data, mode=0o666)
    os.replace(tmp, dest)
    _step("rename-recovered")
    for d in touched | {dest.parent}:
        _fsync_dir(d)
    return dest_rel


def _load_manifest(jdir: Path) -> dict:
    try:
        manifest = json.loads((jdir / MANIFEST).read_bytes())
        if manifest.get("format") != FORMAT or not isinstance(manifest.get("ops"), list):
            raise ValueError("unknown journal format")
        return manifest
    except (OSError, ValueError) as exc:
        raise RemeError(
            f"The committed journal {str(jdir)!r} cannot be read ({exc}); it was left in "
            "place. Inspect it, finish or undo the change by hand, then delete the folder."
        ) from None


def roll_forward(root: Path, jdir: Path) -> list[str]:
    """Finish the committed journal `jdir`, then remove it; return messages for the user.

    Idempotent: run it any number of times (crashing anywhere in between) and the vault
    ends in the journal's new state. A target that holds neither the old nor the new
    content was edited after a crash: it is left alone and the journal's content is kept
    in `.reme/recovered/<id>/<path>`.
    """
    root = Path(root)
    manifest = _load_manifest(jdir)
    jid = manifest["id"]
    messages: list[str] = []
    touched: set[Path] = set()
    for entry in manifest["ops"]:
        kind, rel = entry["kind"], normalize_rel(entry["path"])
        target = resolve_inside(root, rel)
        current = _current_sha(target, rel)
        tmp = tmp_name(target, jid)
        if kind == "delete":
            if current is None:
                pass  # already gone
            elif current == entry["old_sha256"]:
                os.unlink(target)
                _step("unlink")
                touched.add(target.parent)
            else:
                messages.append(
                    f"{rel} was to be deleted by change {jid}, but someone edited it first "
                    "(after a crash, or a program that takes no lock); it was left in "
                    "place. Delete it by hand if it should go."
                )
            continue
        if current == entry["new_sha256"]:
            _unlink_quiet(tmp)  # done before the crash; only the temp may be left
            continue
        new = (jdir / entry["new"]).read_bytes()
        expected_old = entry["old_sha256"] if kind == "edit" else None
        if current != expected_old:
            where = _set_aside(root, jid, rel, new)
            _unlink_quiet(tmp)
            messages.append(
                f"{rel} was changed by someone else before change {jid} could write it "
                "(after a crash, or a program that takes no lock), so it was not "
                f"overwritten; the change's version is kept in {where}. Compare the two "
                "and merge by hand."
            )
            continue
        _ensure_parents(root, rel, touched)
        # A leftover temp may share its inode with a linked target: unlink, never truncate.
        _unlink_quiet(tmp)
        mode = entry.get("mode")
        _write_file(tmp, new, mode=mode if isinstance(mode, int) else 0o666)
        if isinstance(mode, int):
            os.chmod(tmp, mode)  # the open() mode is filtered by the umask
        if kind == "create":
            try:
                # link() fails if the target exists: a create never overwrites.
                os.link(tmp, target)
                _step("link")
            except FileExistsError:
                where = _set_aside(root, jid, rel, new)
                messages.append(
                    f"{rel} appeared while change {jid} was being written, so it was not "
                    f"overwritten; the change's version is kept in {where}."
                )
            _unlink_quiet(tmp)
        else:
            os.replace(tmp, target)
            _step("rename")
        touched.add(target.parent)
    for d in sorted(touched):
        _fsync_dir(d)
    _step("applied")
    # Mark done before deleting staged files: a half-removed committed journal
    # could otherwise not be rolled forward.
    os.rename(jdir / MANIFEST, jdir / APPLIED)
    _step("rename-applied")
    _fsync_dir(jdir)
    _remove_journal(jdir)
    return messages


def _remove_journal(jdir: Path) -> None:
    shutil.rmtree(jdir)
    _step("rmtree")
    _fsync_dir(jdir.parent)


def recover_all(root: Path) -> list[str]:
    """Roll forward committed journals and discard uncommitted ones (caller holds the lock)."""
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
        if (jdir / MANIFEST).exists():
            manifest = _load_manifest(jdir)
            done = roll_forward(root, jdir)
            desc = f" ({manifest['description']})" if manifest.get("description") else ""
            messages.append(
                f"Finished the change {name}{desc} that was interrupted after it was "
                f"committed: {len(manifest['ops'])} file op(s) rolled forward."
            )
            messages.extend(done)
        elif (jdir / APPLIED).exists():
            _remove_journal(jdir)  # complete; only the clean-up was interrupted
        else:
            _remove_journal(jdir)
            messages.append(
                f"Discarded the change {name} that was interrupted before it was committed; "
                "no vault file had been touched."
            )
    return messages
