"""Names never lock the vault (docs/spec.md §3.4.6, §3.4.7).

A note's file name may be as long as the file system allows (255 bytes: 80 Chinese
characters is 240); the journal's temp names must fit beside it. A journal that the file
system refuses to finish is undone at the next command, and one that can be neither
finished nor undone leaves reads working, stops writes with one line, and is settled by
`reme-workbench recover` (or given up with `--set-aside`, keeping its files in audit/).
"""

from __future__ import annotations

import errno
import os
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.errors import UnsafePathError
from reme_workbench.vault import guarded, journal
from reme_workbench.vault.journal import JournalOp, write_journal
from reme_workbench.vault.store import Changeset, Store

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
# 74 characters of a Chinese title: 222 bytes, + ".md"; the old temp name added 38 more
LONG = "数据库连接池在高并发场景下的配置与调优实践记录以及生产环境中遇到的各种问题和解决办法总结" * 2
LONG = LONG[:74]
NOTE = "---\nname: {name}\ndescription: A note with a long title.\n---\nBody.\n\nderived_from:: [[daily/2026-10-05/log.md]]\n"


def test_a_long_legal_name_is_created_edited_and_deleted(make_vault):
    root = make_vault({"daily/2026-10-05/log.md": "log\n"})
    store = Store(root, clock=lambda: NOW)
    rel = f"digest/wiki/{LONG}.md"
    assert len(f"{LONG}.md".encode()) == 225
    store.apply(Changeset((store.plan_create(rel, NOTE.format(name=LONG)),)))
    store.apply(Changeset((store.plan_edit(rel, NOTE.format(name=LONG) + "More.\n"),)))
    assert (root / rel).read_text(encoding="utf-8").endswith("More.\n")
    store.apply(Changeset((store.plan_delete(rel),)))
    assert not (root / rel).exists()
    assert os.listdir(root / ".reme/journal") == []


def test_a_name_over_255_bytes_is_refused_before_anything_is_staged(make_vault):
    root = make_vault({})
    store = Store(root, clock=lambda: NOW)
    too_long = "长" * 86  # 258 bytes
    with pytest.raises(UnsafePathError, match="at most 255 bytes"):
        store.apply(Changeset((store.plan_create(f"digest/wiki/{too_long}.md", "x\n"),)))
    assert not (root / ".reme/journal").exists() or os.listdir(root / ".reme/journal") == []


def test_import_of_a_note_with_a_long_chinese_title_lands_whole(make_vault, tmp_path):
    """The reported case: `import` of a vault with a 74-character Chinese title. The journal
    was committed but could not finish (temp name over 255 bytes), and every later command,
    even `status`, printed a traceback."""
    root = make_vault({})
    source = tmp_path / "obsidian"
    source.mkdir()
    (source / f"{LONG}.md").write_text("# 标题\n\n正文。\n", encoding="utf-8")
    (source / "Other.md").write_text(f"See [[{LONG}]].\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(cli, ["--vault", str(root), "import", str(source)])
    assert done.exit_code == 0, done.output
    assert (root / f"digest/wiki/{LONG}.md").exists()
    status = runner.invoke(cli, ["--vault", str(root), "status"])
    assert status.exit_code == 0 and "Traceback" not in status.output, status.output
    assert os.listdir(root / ".reme/journal") == []


def test_a_journal_the_file_system_refuses_is_undone_at_the_next_command(make_vault):
    """A committed journal whose second op the file system refuses (a name too long for it,
    as an older version could leave): the next command undoes the first op and says why."""
    root = make_vault({"digest/wiki/a.md": "old a\n"})
    write_journal(root, "j1", [
        JournalOp("edit", "digest/wiki/a.md", b"new a\n", b"old a\n", 0o644),
        JournalOp("create", f"digest/wiki/{'x' * 300}.md", b"too long\n", None),
    ], description="an import from an older version")
    result = CliRunner().invoke(cli, ["--vault", str(root), "status"])
    assert result.exit_code == 0, result.output
    assert "not applied" in result.output and "could not be written" in result.output
    assert (root / "digest/wiki/a.md").read_text() == "old a\n"
    assert os.listdir(root / ".reme/journal") == []


@pytest.fixture
def stuck(make_vault, monkeypatch):
    """A committed journal whose first op is done when the file system starts refusing
    every rename and link (a folder made read-only, as far as this process can tell): it
    can be neither finished nor undone until the cause goes away."""
    root = make_vault({"digest/wiki/a.md": "old a\n", "digest/wiki/b.md": "old b\n",
                       "daily/2026-10-05/log.md": "log\n"})
    write_journal(root, "j2", [
        JournalOp("edit", "digest/wiki/a.md", b"new a\n", b"old a\n", 0o644),
        JournalOp("create", "digest/wiki/c.md", b"new c\n", None),
    ], description="merge b into a")
    real = {name: getattr(os, name) for name in ("link", "rename")}
    real_step = journal._step

    def refuse(source, dest, *args, **kwargs):  # digest/ refuses; audit/ still takes files
        if "/digest/" in str(dest):
            raise OSError(errno.EROFS, "Read-only file system", str(dest))
        return real[kwargs.pop("_name", "rename")](source, dest, *args, **kwargs)

    real_flagged = guarded._rename_flagged

    def refuse_flagged(source, dest, flags):
        if "/digest/" in str(dest):
            raise OSError(errno.EROFS, "Read-only file system", str(dest))
        return real_flagged(source, dest, flags)

    def refuse_from_now(label):
        real_step(label)
        if label == "rename-aside":  # a.md is in place; from here on nothing moves
            monkeypatch.setattr(os, "link", lambda a, b: refuse(a, b, _name="link"))
            monkeypatch.setattr(os, "rename", refuse)
            monkeypatch.setattr(guarded, "_rename_flagged", refuse_flagged)

    monkeypatch.setattr(journal, "_step", refuse_from_now)

    def fix():
        for name, fn in real.items():
            monkeypatch.setattr(os, name, fn)
        monkeypatch.undo()

    return root, fix


def test_a_stuck_journal_lets_reads_go_on_and_stops_writes_with_one_line(stuck):
    root, _ = stuck
    runner = CliRunner()
    status = runner.invoke(cli, ["--vault", str(root), "status"])
    assert status.exit_code == 0, status.output
    assert "reme-workbench recover" in status.output and "Traceback" not in status.output
    write = runner.invoke(cli, ["--vault", str(root), "rename", "digest/wiki/b.md",
                                "digest/wiki/bee.md"])
    assert write.exit_code != 0 and "reme-workbench recover" in write.output
    assert "Traceback" not in write.output
    assert (root / "digest/wiki/b.md").read_text() == "old b\n"  # nothing more was written


def test_recover_settles_it_once_the_cause_is_fixed(stuck):
    root, fix = stuck
    runner = CliRunner()
    runner.invoke(cli, ["--vault", str(root), "status"])
    fix()
    result = runner.invoke(cli, ["--vault", str(root), "recover", "--text"])
    assert result.exit_code == 0, result.output
    # the refusal had made it abandon the change; once it can, it finishes the undo
    assert "not applied" in result.output and "merge b into a" in result.output
    assert (root / "digest/wiki/a.md").read_text() == "old a\n"
    assert not (root / "digest/wiki/c.md").exists()
    assert os.listdir(root / ".reme/journal") == []
    again = runner.invoke(cli, ["--vault", str(root), "recover", "--text"])
    assert "Nothing was interrupted" in again.output


def test_recover_set_aside_keeps_every_note_and_the_change_in_audit(stuck):
    root, _ = stuck
    before = {p: (root / p).read_bytes() for p in ("digest/wiki/b.md", "daily/2026-10-05/log.md")}
    result = CliRunner().invoke(cli, ["--vault", str(root), "recover", "--set-aside"])
    assert result.exit_code == 0, result.output
    assert "set aside" in result.output.lower() or "Set aside" in result.output
    page = next((root / "audit").rglob("set_aside-j2.md")).read_text()
    assert "new a" in page and "new c" in page and "old a" in page
    assert os.listdir(root / ".reme/journal") == []
    for rel, data in before.items():
        assert (root / rel).read_bytes() == data
    # a.md is where the interrupted change left it, whole: old or new, never a mix
    assert (root / "digest/wiki/a.md").read_text() in ("old a\n", "new a\n")
