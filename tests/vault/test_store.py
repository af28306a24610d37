"""Store.apply enforces the write rules for every caller: stamps, checks, paths, audit."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from reme_workbench.errors import (
    ChangesetRejectedError,
    NoteExistsError,
    RemeError,
    StaleChangesetError,
    UnsafePathError,
)
from reme_workbench.vault.store import (
    AuditEntry,
    Changeset,
    CheckContext,
    Create,
    Delete,
    Edit,
    NamedCheck,
    Stamp,
    Store,
    apply_with_replan,
    read_with_stamp,
    stamp_bytes,
)

NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for layer in ("daily", "resource", "digest/wiki", "digest/personal", "meta", "audit"):
        (root / layer).mkdir(parents=True)
    (root / "digest/wiki/a.md").write_text("alpha\n")
    (root / "digest/wiki/b.md").write_text("beta\n")
    (root / "daily/2026-11-01.md").write_text("diary\n")
    return root


@pytest.fixture
def store(vault: Path) -> Store:
    return Store(vault, clock=lambda: NOW, lock_timeout=2.0)


def files(root: Path) -> dict[str, bytes]:
    """Every regular file outside .reme/, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".reme" not in p.relative_to(root).parts
    }


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))


# --------------------------------------------------------------------------- basics


def test_read_with_stamp_matches_bytes_and_mtime(vault: Path):
    data, stamp = read_with_stamp(vault, "digest/wiki/a.md")
    assert data == b"alpha\n"
    assert stamp == stamp_bytes(b"alpha\n", (vault / "digest/wiki/a.md").stat().st_mtime_ns)
    assert read_with_stamp(vault, "digest/wiki/missing.md") is None


def test_str_content_is_encoded_utf8():
    assert Create("digest/wiki/x.md", "é").content == "é".encode()
    with pytest.raises(TypeError):
        Create("digest/wiki/x.md", 3)  # type: ignore[arg-type]


def test_create_edit_delete_land(store: Store, vault: Path):
    result = store.apply(
        Changeset(
            (
                store.plan_create("digest/wiki/new/c.md", "gamma\n"),  # parent is created
                store.plan_edit("digest/wiki/a.md", "ALPHA\n"),
                store.plan_delete("digest/wiki/b.md"),
            ),
            description="demo",
        )
    )
    assert files(vault)["digest/wiki/new/c.md"] == b"gamma\n"
    assert files(vault)["digest/wiki/a.md"] == b"ALPHA\n"
    assert not (vault / "digest/wiki/b.md").exists()
    assert result.written == ("digest/wiki/new/c.md", "digest/wiki/a.md", "digest/wiki/b.md")
    assert result.applied_at == NOW
    assert os.listdir(vault / ".reme/journal") == []
    assert not [p for p in vault.rglob("*") if p.name.endswith(".reme-tmp")]


def test_edit_keeps_file_permissions(store: Store, vault: Path):
    (vault / "digest/wiki/a.md").chmod(0o600)
    store.apply(Changeset((store.plan_edit("digest/wiki/a.md", "x"),)))
    assert (vault / "digest/wiki/a.md").stat().st_mode & 0o777 == 0o600


# --------------------------------------------------------------------------- no silent overwrite


def test_plan_create_refuses_existing(store: Store):
    with pytest.raises(NoteExistsError, match="slug"):
        store.plan_create("digest/wiki/a.md", "x")


def test_create_never_overwrites_a_file_that_appeared(store: Store, vault: Path):
    op = store.plan_create("digest/wiki/c.md", "mine\n")
    other = store.plan_edit("digest/wiki/a.md", "changed\n")
    (vault / "digest/wiki/c.md").write_text("theirs\n")  # someone else got there first
    before = files(vault)
    with pytest.raises(NoteExistsError) as info:
        store.apply(Changeset((other, op)))
    assert info.value.path == "digest/wiki/c.md"
    assert "digest/wiki/c.md" in str(info.value) and "slug" in str(info.value)
    assert files(vault) == before  # nothing written, not even the valid edit


def test_stale_content_refuses_whole_changeset(store: Store, vault: Path):
    edit_a = store.plan_edit("digest/wiki/a.md", "A2\n")
    delete_b = store.plan_delete("digest/wiki/b.md")
    (vault / "digest/wiki/b.md").write_text("beta, edited by the user\n")
    before = files(vault)
    with pytest.raises(StaleChangesetError) as info:
        store.apply(Changeset((edit_a, delete_b)))
    assert info.value.paths == ["digest/wiki/b.md"]
    assert "digest/wiki/b.md" in str(info.value)
    assert files(vault) == before


def test_touched_mtime_alone_is_stale(store: Store, vault: Path):
    edit = store.plan_edit("digest/wiki/a.md", "A2\n")
    bump_mtime(vault / "digest/wiki/a.md")  # same bytes, but someone is working on it
    with pytest.raises(StaleChangesetError):
        store.apply(Changeset((edit,)))
    assert (vault / "digest/wiki/a.md").read_text() == "alpha\n"


def test_edit_of_deleted_file_is_stale(store: Store, vault: Path):
    edit = store.plan_edit("digest/wiki/a.md", "A2\n")
    (vault / "digest/wiki/a.md").unlink()
    with pytest.raises(StaleChangesetError):
        store.apply(Changeset((edit,)))
    assert not (vault / "digest/wiki/a.md").exists()


def test_made_up_stamp_is_stale(store: Store, vault: Path):
    with pytest.raises(StaleChangesetError):
        store.apply(Changeset((Delete("digest/wiki/a.md", Stamp("0" * 64, 1)),)))
    assert (vault / "digest/wiki/a.md").exists()


def test_two_ops_on_one_path_refused(store: Store, vault: Path):
    edit = store.plan_edit("digest/wiki/a.md", "x")
    delete = store.plan_delete("digest/wiki/a.md")
    with pytest.raises(RemeError, match="twice"):
        store.apply(Changeset((edit, delete)))
    with pytest.raises(RemeError, match="twice"):  # same file spelled two ways
        store.apply(Changeset((edit, Delete("./digest/wiki/a.md", delete.expected))))
    assert (vault / "digest/wiki/a.md").read_text() == "alpha\n"


# --------------------------------------------------------------------------- checks


def test_failing_checks_reject_and_write_nothing(store: Store, vault: Path):
    seen: list[CheckContext] = []

    def record(ctx: CheckContext) -> list[str]:
        seen.append(ctx)
        return []

    def crash(ctx: CheckContext) -> list[str]:
        raise ValueError("boom")

    checks = (
        NamedCheck("passes", record),
        NamedCheck("two_failures", lambda ctx: ["first reason", "second reason"]),
        NamedCheck("crashes", crash),
    )
    cs = Changeset(
        (store.plan_create("digest/wiki/c.md", "c"), store.plan_delete("digest/wiki/a.md")),
        checks=checks,
        audit=AuditEntry("test_kind", "should not land"),
    )
    before = files(vault)
    with pytest.raises(ChangesetRejectedError) as info:
        store.apply(cs)
    assert info.value.failures == [
        ("two_failures", "first reason"),
        ("two_failures", "second reason"),
        ("crashes", "the check itself raised ValueError: boom"),
    ]
    assert "nothing was written" in str(info.value)
    assert files(vault) == before
    ctx = seen[0]
    assert ctx.changeset is cs
    assert dict(ctx.before) == {"digest/wiki/c.md": None, "digest/wiki/a.md": b"alpha\n"}
    assert dict(ctx.after) == {"digest/wiki/c.md": b"c", "digest/wiki/a.md": None}


def test_passing_checks_let_it_through(store: Store, vault: Path):
    cs = Changeset(
        (store.plan_edit("digest/wiki/a.md", "ok"),),
        checks=(NamedCheck("fine", lambda ctx: []),),
    )
    store.apply(cs)
    assert (vault / "digest/wiki/a.md").read_text() == "ok"


# --------------------------------------------------------------------------- paths


def test_symlinked_file_refused(store: Store, vault: Path, tmp_path: Path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    (vault / "digest/wiki/link.md").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="symlink"):
        store.read("digest/wiki/link.md")
    fake = stamp_bytes(b"secret\n", outside.stat().st_mtime_ns)
    with pytest.raises(UnsafePathError, match="symlink"):
        store.apply(Changeset((Edit("digest/wiki/link.md", "pwned", fake),)))
    assert outside.read_text() == "secret\n"


def test_symlinked_folder_refused(store: Store, vault: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (vault / "digest/procedure").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symlink"):
        store.apply(Changeset((Create("digest/procedure/x.md", "pwned"),)))
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    "path",
    ["digest/wiki/../../../escape.md", "../escape.md", "/tmp/escape.md", "digest/wiki/./x.md"],
)
def test_paths_leaving_the_vault_refused(store: Store, vault: Path, path: str):
    with pytest.raises(UnsafePathError):
        store.apply(Changeset((Create(path, "x"),)))
    assert not (vault.parent / "escape.md").exists()


@pytest.mark.parametrize(
    "path", ["digest/other/x.md", "digest/x.md", "notes/x.md", ".reme/x.md", "digest/wiki/x.txt"]
)
def test_outside_buckets_and_layers_refused(store: Store, vault: Path, path: str):
    before = files(vault)
    with pytest.raises(UnsafePathError):
        store.apply(Changeset((Create(path, "x"),)))
    assert files(vault) == before


def test_sources_need_allow_sources(store: Store, vault: Path):
    edit = store.plan_edit("daily/2026-11-01.md", "rewritten\n")
    with pytest.raises(UnsafePathError, match="daily/"):
        store.apply(Changeset((edit,)))
    with pytest.raises(UnsafePathError, match="resource/"):
        store.apply(Changeset((Create("resource/r.md", "x"),)))
    assert (vault / "daily/2026-11-01.md").read_text() == "diary\n"
    store.apply(Changeset((edit,), allow_sources=True))
    assert (vault / "daily/2026-11-01.md").read_text() == "rewritten\n"


def test_parent_that_is_a_file_refused(store: Store, vault: Path):
    with pytest.raises(UnsafePathError):
        store.apply(Changeset((Create("digest/wiki/a.md/x.md", "x"),)))
    assert (vault / "digest/wiki/a.md").read_text() == "alpha\n"


# --------------------------------------------------------------------------- inverse


def test_inverse_reverts_exactly_and_back_again(store: Store, vault: Path):
    original = files(vault)
    cs = Changeset(
        (
            store.plan_create("digest/personal/new.md", "n\n"),
            store.plan_edit("digest/wiki/a.md", "A!\n"),
            store.plan_delete("digest/wiki/b.md"),
        )
    )
    result = store.apply(cs)
    changed = files(vault)
    assert changed != original
    kinds = {op.path: type(op) for op in result.inverse.ops}
    assert kinds == {
        "digest/personal/new.md": Delete,
        "digest/wiki/a.md": Edit,
        "digest/wiki/b.md": Create,
    }
    undo = store.apply(result.inverse)
    assert files(vault) == original
    store.apply(undo.inverse)  # redo: the inverse of the inverse
    assert files(vault) == changed


def test_inverse_is_stamped_with_the_new_files(store: Store, vault: Path):
    result = store.apply(Changeset((store.plan_edit("digest/wiki/a.md", "A!\n"),)))
    (inverse_edit,) = result.inverse.ops
    assert inverse_edit.expected == store.read("digest/wiki/a.md")[1]
    (vault / "digest/wiki/a.md").write_text("user edit after the change\n")
    with pytest.raises(StaleChangesetError):  # reverting must not clobber the user's edit
        store.apply(result.inverse)
    assert (vault / "digest/wiki/a.md").read_text() == "user edit after the change\n"


def test_inverse_keeps_allow_sources(store: Store, vault: Path):
    result = store.apply(
        Changeset((store.plan_edit("daily/2026-11-01.md", "x"),), allow_sources=True)
    )
    assert result.inverse.allow_sources
    store.apply(result.inverse)
    assert (vault / "daily/2026-11-01.md").read_text() == "diary\n"


# --------------------------------------------------------------------------- audit


def test_audit_lands_with_the_change(store: Store, vault: Path):
    result = store.apply(
        Changeset(
            (store.plan_edit("digest/wiki/a.md", "A\n"),),
            audit=AuditEntry("consolidate_actions", "- edited a\n"),
        )
    )
    rel = "audit/2026-11-02/consolidate_actions.md"
    assert result.written[-1] == rel
    assert (vault / rel).read_text() == "# consolidate_actions 2026-11-02\n\n- edited a\n"
    store.apply(Changeset((), audit=AuditEntry("consolidate_actions", "- second\n")))
    assert (vault / rel).read_text() == (
        "# consolidate_actions 2026-11-02\n\n- edited a\n\n- second\n"
    )
    # the audit line is history: reverting the change leaves it in place
    store.apply(result.inverse)
    assert "- edited a" in (vault / rel).read_text()


def test_audit_date_is_the_utc_date_of_the_clock(vault: Path):
    late_evening_in_new_york = datetime(2026, 11, 2, 21, 0, tzinfo=timezone(timedelta(hours=-5)))
    store = Store(vault, clock=lambda: late_evening_in_new_york)
    store.apply(Changeset((), audit=AuditEntry("health_links", "x")))
    assert (vault / "audit/2026-11-03/health_links.md").exists()


def test_audit_appends_to_a_user_edited_file(store: Store, vault: Path):
    rel = vault / "audit/2026-11-02/health_links.md"
    rel.parent.mkdir()
    rel.write_text("# my own heading")  # no final newline
    store.apply(Changeset((), audit=AuditEntry("health_links", "entry")))
    assert rel.read_text() == "# my own heading\n\nentry\n"


def test_audit_kind_validated():
    with pytest.raises(RemeError, match="lowercase"):
        AuditEntry("../evil", "x")


def test_audit_and_op_on_the_same_file_refused(store: Store, vault: Path):
    cs = Changeset(
        (Create("audit/2026-11-02/health_links.md", "x"),),
        audit=AuditEntry("health_links", "y"),
    )
    with pytest.raises(RemeError, match="twice"):
        store.apply(cs)
    assert not (vault / "audit/2026-11-02").exists()


# --------------------------------------------------------------------------- re-planning


def test_apply_with_replan_replans_after_concurrent_edits(store: Store, vault: Path):
    calls = []

    def plan() -> Changeset:
        calls.append(1)
        data, _ = store.read("digest/wiki/a.md")
        edit = store.plan_edit("digest/wiki/a.md", data + b"+")
        if len(calls) < 3:  # someone edits right after we planned, twice
            (vault / "digest/wiki/a.md").write_bytes(data + b"u")
        return Changeset((edit,))

    apply_with_replan(store, plan)
    assert len(calls) == 3
    assert (vault / "digest/wiki/a.md").read_bytes() == b"alpha\nuu+"


def test_apply_with_replan_gives_up_after_three(store: Store, vault: Path):
    calls = []

    def plan() -> Changeset:
        calls.append(1)
        edit = store.plan_edit("digest/wiki/a.md", "mine")
        bump_mtime(vault / "digest/wiki/a.md")
        return Changeset((edit,))

    with pytest.raises(StaleChangesetError, match="keep changing") as info:
        apply_with_replan(store, plan)
    assert len(calls) == 3
    assert info.value.paths == ["digest/wiki/a.md"]
    assert (vault / "digest/wiki/a.md").read_text() == "alpha\n"


def test_apply_with_replan_does_not_retry_other_errors(store: Store):
    calls = []

    def plan() -> Changeset:
        calls.append(1)
        return Changeset((Create("digest/wiki/a.md", "x"),))

    with pytest.raises(NoteExistsError):
        apply_with_replan(store, plan)
    assert len(calls) == 1


# --------------------------------------------------------------------------- lock

HOLD_LOCK = """
import sys, time
from pathlib import Path
from reme_workbench.vault.lock import VaultLock
with VaultLock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(30)
"""


def test_lock_timeout_names_the_lock_and_the_other_process(store: Store, vault: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(vault)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        slow = Store(vault, clock=lambda: NOW, lock_timeout=0.3)
        started = time.monotonic()
        with pytest.raises(RemeError) as info:
            slow.apply(Changeset((slow.plan_edit("digest/wiki/a.md", "x"),)))
        assert 0.3 <= time.monotonic() - started < 5
        message = str(info.value)
        assert str(vault / ".reme" / "lock") in message
        assert "another reme-workbench process" in message
        assert f"process {holder.pid}" in message
        assert (vault / "digest/wiki/a.md").read_text() == "alpha\n"
    finally:
        holder.kill()
        holder.wait()
    # the kernel released the dead holder's lock: no stale lock to clean up
    store.apply(Changeset((store.plan_edit("digest/wiki/a.md", "x"),)))
    assert (vault / "digest/wiki/a.md").read_text() == "x"


@pytest.mark.parametrize(("at", "lands"), [("staged", False), ("committed", True), ("link", True)])
def test_ctrl_c_mid_write_settles_the_journal_before_it_goes_up(store, vault, monkeypatch, at, lands):
    """Ctrl-C (KeyboardInterrupt) while a changeset is staged or half rolled forward: the
    journal is finished (committed) or discarded (staged) before the interrupt leaves
    `apply`, so the vault is whole and no journal waits for the next command."""
    from reme_workbench.vault import journal

    real = journal._step
    fired = []

    def interrupt(label):  # one Ctrl-C, at the first step with this label
        real(label)
        if label == at and not fired:
            fired.append(label)
            raise KeyboardInterrupt

    before = files(vault)
    changeset = Changeset((store.plan_edit("digest/wiki/a.md", "ALPHA\n"),
                           store.plan_create("digest/wiki/c.md", "gamma\n")))
    monkeypatch.setattr(journal, "_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.apply(changeset)
    monkeypatch.setattr(journal, "_step", real)
    after = files(vault)
    if lands:
        assert after["digest/wiki/a.md"] == b"ALPHA\n" and after["digest/wiki/c.md"] == b"gamma\n"
    else:
        assert after == before
    assert not list((vault / ".reme" / "journal").iterdir())
