"""meta/*.json: atomic, versioned writes; readers degrade with a warning instead of crashing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.vault import meta
from reme_workbench.vault.meta import append_audit, append_jsonl, read_meta, write_meta
from reme_workbench.vault.store import Store

NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    return vault


def test_write_meta_puts_version_and_computed_at_first(root: Path):
    path = write_meta(root, "communities", {"b": 1, "names": ["Zürich"]}, version=3, now=NOW)
    assert path == root / "meta/communities.json"
    text = path.read_text(encoding="utf-8")
    assert "Zürich" in text  # ensure_ascii=False: readable in Obsidian
    assert text.endswith("\n") and "\n  " in text  # pretty
    doc = json.loads(text)
    assert list(doc) == ["version", "computed_at", "b", "names"]
    assert doc["version"] == 3 and doc["computed_at"] == "2026-11-02T09:30:00Z"


def test_computed_at_is_utc(root: Path):
    local = datetime(2026, 11, 2, 21, 0, tzinfo=timezone(timedelta(hours=-5)))
    write_meta(root, "x", {}, version=1, now=local)
    assert read_meta(root, "x", version=1).data["computed_at"] == "2026-11-03T02:00:00Z"
    write_meta(root, "y", {}, version=1, now=datetime(2026, 1, 1, 8, 0))  # naive = UTC
    assert read_meta(root, "y", version=1).data["computed_at"] == "2026-01-01T08:00:00Z"


def test_payload_cannot_override_version(root: Path):
    write_meta(root, "x", {"version": 99, "computed_at": "old", "k": 1}, version=2, now=NOW)
    data = read_meta(root, "x", version=2).data
    assert data == {"version": 2, "computed_at": "2026-11-02T09:30:00Z", "k": 1}


def test_write_meta_replaces_atomically(root: Path, monkeypatch):
    write_meta(root, "graph", {"n": "old" * 1000}, version=1, now=NOW)
    path = root / "meta/graph.json"
    seen_while_writing = []
    real_fsync = os.fsync

    def spy_fsync(fd):  # the new bytes are written but not yet in place
        seen_while_writing.append(json.loads(path.read_bytes())["n"])
        real_fsync(fd)

    monkeypatch.setattr(meta.os, "fsync", spy_fsync)
    with open(path, "rb") as reader:  # a reader that opened the old file
        write_meta(root, "graph", {"n": "new"}, version=1, now=NOW)
        assert json.loads(reader.read())["n"] == "old" * 1000  # never sees a torn file
    monkeypatch.undo()
    assert seen_while_writing and set(seen_while_writing[:1]) == {"old" * 1000}
    assert read_meta(root, "graph", version=1).data["n"] == "new"
    assert sorted(p.name for p in (root / "meta").iterdir()) == ["graph.json"]


def test_failed_write_keeps_the_old_file_and_no_temp(root: Path, monkeypatch):
    write_meta(root, "graph", {"n": 1}, version=1, now=NOW)

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(meta.os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_meta(root, "graph", {"n": 2}, version=1, now=NOW)
    monkeypatch.undo()
    assert read_meta(root, "graph", version=1).data["n"] == 1
    assert sorted(p.name for p in (root / "meta").iterdir()) == ["graph.json"]


@pytest.mark.parametrize("name", ["../escape", "Communities", "a/b/c", "a/", "", "x.json"])
def test_meta_name_validated(root: Path, name: str):
    with pytest.raises(RemeError):
        write_meta(root, name, {}, version=1, now=NOW)
    with pytest.raises(RemeError):
        read_meta(root, name, version=1)
    assert not (root.parent / "escape.json").exists()


def test_version_mismatch_degrades_with_warning(root: Path):
    write_meta(root, "communities", {"k": 1}, version=1, now=NOW)
    result = read_meta(root, "communities", version=2, rebuild="reme-workbench communities")
    assert result.data is None
    assert "version 1" in result.warning and "version 2" in result.warning
    assert "run `reme-workbench communities` to rebuild" in result.warning


@pytest.mark.parametrize(
    "raw, why",
    [
        (b'{"version": 1, "k": ', "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"k": 1}', "version None"),
        (b'{"version": true}', "version True"),
        (b"\xff\xfe{}", "not valid JSON"),
    ],
)
def test_broken_meta_degrades_with_warning(root: Path, raw: bytes, why: str):
    (root / "meta").mkdir()
    (root / "meta/communities.json").write_bytes(raw)
    result = read_meta(root, "communities", version=1)
    assert result.data is None
    assert why in result.warning and "meta/communities.json" in result.warning


def test_absent_and_symlinked_meta_degrade(root: Path, tmp_path: Path):
    absent = read_meta(root, "communities", version=1, rebuild="reme-workbench communities")
    assert absent.data is None and "does not exist" in absent.warning
    (root / "meta").mkdir()
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"version": 1}')
    (root / "meta/communities.json").symlink_to(outside)
    linked = read_meta(root, "communities", version=1)
    assert linked.data is None and "symlink" in linked.warning
    with pytest.raises(RemeError):  # and it is never written through
        write_meta(root, "communities", {}, version=1, now=NOW)
    assert outside.read_text() == '{"version": 1}'


def test_good_meta_reads_back_without_warning(root: Path):
    write_meta(root, "communities", {"k": [1, 2]}, version=4, now=NOW)
    result = read_meta(root, "communities", version=4)
    assert result.warning is None
    assert result.data == {"version": 4, "computed_at": "2026-11-02T09:30:00Z", "k": [1, 2]}


# --------------------------------------------------------------------------- jsonl


def test_append_jsonl_one_line_per_record(root: Path):
    append_jsonl(root, "access_log", {"path": "digest/wiki/a.md", "note": "two\nlines"})
    append_jsonl(root, "access_log", {"path": "digest/wiki/é.md"})
    lines = (root / "meta/access_log.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"path": "digest/wiki/a.md", "note": "two\nlines"},
        {"path": "digest/wiki/é.md"},
    ]
    assert "é" in lines[1]


APPENDER = """
import sys
from pathlib import Path
from reme_workbench.vault.meta import append_jsonl
root, worker = Path(sys.argv[1]), int(sys.argv[2])
for i in range(300):
    append_jsonl(root, "access_log", {"worker": worker, "i": i, "pad": "x" * (i % 97)})
"""


def test_append_jsonl_concurrent_writers_never_interleave(root: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(root), str(w)], env=env)
        for w in range(4)
    ]
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    lines = (root / "meta/access_log.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]  # a torn line would not parse
    assert len(records) == 4 * 300
    for w in range(4):
        assert [r["i"] for r in records if r["worker"] == w] == list(range(300))


def test_append_audit_goes_through_the_store(root: Path):
    store = Store(root, clock=lambda: NOW)
    result = append_audit(store, "health_links", "- 2 broken links")
    assert result.written == ("audit/2026-11-02/health_links.md",)
    text = (root / "audit/2026-11-02/health_links.md").read_text()
    assert text == "# health_links 2026-11-02\n\n- 2 broken links\n"


def test_meta_collection_in_one_sub_folder(tmp_path):
    now = datetime(2026, 11, 2, tzinfo=UTC)
    path = write_meta(tmp_path, "proposals/p-1", {"x": 1}, version=1, now=now)
    assert path == tmp_path / "meta" / "proposals" / "p-1.json"
    assert read_meta(tmp_path, "proposals/p-1", version=1).data["x"] == 1


def test_rename_in_meta_follows_the_note_and_keeps_the_batch_times(tmp_path):
    from reme_workbench.vault.meta import rename_in_meta

    when = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    write_meta(tmp_path, "archived", {"archived": ["digest/wiki/a.md", "digest/wiki/b.md"],
                                      "threshold": 0.15}, version=1, now=when)
    write_meta(tmp_path, "recency", {"scores": {"digest/wiki/a.md": 0.1}}, version=1, now=when)
    (tmp_path / "meta" / "cooldowns.json").write_text("not json")  # unreadable: left alone
    done = rename_in_meta(tmp_path, "digest/wiki/a.md", "digest/wiki/z.md")
    assert sorted(done) == ["meta/archived.json", "meta/recency.json"]
    archived = read_meta(tmp_path, "archived", version=1).data
    assert archived["archived"] == ["digest/wiki/z.md", "digest/wiki/b.md"]
    assert archived["computed_at"] == "2026-10-01T09:00:00Z"  # thaw compares touches with it
    assert read_meta(tmp_path, "recency", version=1).data["scores"] == {"digest/wiki/z.md": 0.1}
    assert (tmp_path / "meta" / "cooldowns.json").read_text() == "not json"
    assert rename_in_meta(tmp_path, "digest/wiki/gone.md", "digest/wiki/x.md") == []
