"""VaultScan: records, incremental refresh, the SQLite cache, and bad input per file."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import warnings
from pathlib import Path

import pytest

from reme_workbench.vault import scan as scan_mod
from reme_workbench.vault.scan import ScanDelta, VaultScan

NOTE_A = """---
name: alpha
description: The alpha note.
---
Alpha links to [[digest/wiki/beta.md|Beta]].
is_a:: [[digest/wiki/beta.md]]
derived_from:: [[daily/2026-10-05/log.md]]
"""
NOTE_B = """---
name: beta
description: The beta note.
---
Beta links back to [[digest/wiki/alpha.md]].
"""


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file outside .reme/ (symlinks by their lstat)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".reme") or path.is_dir() and not path.is_symlink():
            continue
        if path.is_symlink():
            out[rel] = (os.readlink(path).encode(), os.lstat(path).st_mtime_ns)
        else:
            out[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/wiki/alpha.md": NOTE_A,
            "digest/wiki/beta.md": NOTE_B,
            "daily/2026-10-05/log.md": "Worked on [[digest/wiki/alpha.md]].\n",
            "resource/2026-10-01/diagram.png": b"\x89PNG\r\n\x1a\n\x00\x00",
            "meta/communities.json": "{}",
            "audit/2026-10-05/health_links.md": "[[digest/wiki/alpha.md]]",
            "digest/wiki/.hidden.md": "[[digest/wiki/alpha.md]]",
            "digest/.obsidian-ish/x.md": "hidden folder",
        }
    )


@pytest.fixture
def counters(monkeypatch):
    """Count reads (hash) and link parses done by the scan."""
    counts = {"read": [], "parse": 0}
    real_read, real_parse = scan_mod._read_file, scan_mod.parse_links

    def read(full, rel, limit):
        counts["read"].append(rel)
        return real_read(full, rel, limit)

    def parse(text):
        counts["parse"] += 1
        return real_parse(text)

    monkeypatch.setattr(scan_mod, "_read_file", read)
    monkeypatch.setattr(scan_mod, "parse_links", parse)
    return counts


# --- records -------------------------------------------------------------------------


def test_records_cover_the_three_layers_and_skip_hidden_and_derived(vault):
    scan = VaultScan(vault, cache=False)
    delta = scan.refresh()
    expected = {
        "digest/wiki/alpha.md",
        "digest/wiki/beta.md",
        "daily/2026-10-05/log.md",
        "resource/2026-10-01/diagram.png",
    }
    assert set(scan.records) == expected
    assert set(delta.changed) == expected and delta.removed == ()
    assert scan.problems == []
    assert not (vault / ".reme" / "scan.db").exists()  # cache=False writes nothing


def test_a_record_holds_stat_hash_frontmatter_and_links(vault):
    scan = VaultScan(vault, cache=False)
    rec = scan.records["digest/wiki/alpha.md"]  # reading records runs the first refresh
    data = (vault / "digest/wiki/alpha.md").read_bytes()
    st = (vault / "digest/wiki/alpha.md").stat()
    assert (rec.size, rec.mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert rec.sha256 == hashlib.sha256(data).hexdigest()
    assert (rec.name, rec.description, rec.error, rec.is_markdown) == (
        "alpha", "The alpha note.", None, True,
    )
    assert [lk.key for lk in rec.links] == [
        ("digest/wiki/beta.md", None),
        ("digest/wiki/beta.md", "is_a"),
        ("daily/2026-10-05/log.md", "derived_from"),
    ]
    png = scan.records["resource/2026-10-01/diagram.png"]
    assert png.is_markdown is False and png.links == () and png.name is None
    assert png.sha256 == hashlib.sha256(b"\x89PNG\r\n\x1a\n\x00\x00").hexdigest()


def test_exists_checks_records_then_the_disk_without_leaving_the_vault(vault, tmp_path):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    assert scan.exists("digest/wiki/alpha.md")
    assert scan.exists("meta/communities.json")  # not a record, but a file in the vault
    assert scan.exists("./digest/wiki/beta.md")
    assert not scan.exists("digest/wiki/nowhere.md")
    assert not scan.exists("digest/wiki")  # a folder is not a link target
    (tmp_path / "outside.md").write_text("x", encoding="utf-8")
    assert not scan.exists("../outside.md")
    assert not scan.exists(str(tmp_path / "outside.md"))
    os.symlink(tmp_path / "outside.md", vault / "meta" / "link.md")
    assert not scan.exists("meta/link.md")


# --- incremental refresh -------------------------------------------------------------


def test_editing_one_file_reparses_only_that_file(vault, counters):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    assert counters["parse"] == 3  # the three markdown files
    counters["read"].clear()
    counters["parse"] = 0

    path = write(vault, "digest/wiki/beta.md", NOTE_B + "More: [[digest/wiki/gamma.md]]\n")
    bump_mtime(path)
    delta = scan.refresh()
    assert delta == ScanDelta(changed=("digest/wiki/beta.md",), removed=())
    assert counters["read"] == ["digest/wiki/beta.md"] and counters["parse"] == 1
    assert scan.records["digest/wiki/beta.md"].links[-1].target == "digest/wiki/gamma.md"

    counters["read"].clear()
    counters["parse"] = 0
    assert scan.refresh() == ScanDelta((), ())
    assert counters == {"read": [], "parse": 0}


def test_touch_without_new_bytes_rehashes_but_keeps_the_parse(vault, counters):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    counters["parse"] = 0
    path = vault / "digest/wiki/alpha.md"
    bump_mtime(path)
    delta = scan.refresh()
    assert delta.changed == () and delta.removed == ()
    assert counters["read"][-1] == "digest/wiki/alpha.md" and counters["parse"] == 0
    assert scan.records["digest/wiki/alpha.md"].mtime_ns == path.stat().st_mtime_ns


def test_deleting_a_file_reports_it_removed(vault):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    (vault / "digest/wiki/beta.md").unlink()
    delta = scan.refresh()
    assert delta == ScanDelta((), ("digest/wiki/beta.md",))
    assert "digest/wiki/beta.md" not in scan.records


def test_refresh_with_paths_reads_only_those(vault, counters):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    counters["read"].clear()
    write(vault, "digest/wiki/gamma.md", "new [[digest/wiki/alpha.md]]\n")
    write(vault, "digest/wiki/beta.md", NOTE_B + "edited\n")  # not named: not looked at
    (vault / "daily/2026-10-05/log.md").unlink()
    delta = scan.refresh(
        ["digest/wiki/gamma.md", "daily/2026-10-05/log.md", "meta/x.json", "../etc/passwd"]
    )
    assert delta == ScanDelta(("digest/wiki/gamma.md",), ("daily/2026-10-05/log.md",))
    assert counters["read"] == ["digest/wiki/gamma.md"]
    assert scan.records["digest/wiki/beta.md"].size == len(NOTE_B.encode())


def test_a_file_replaced_by_a_symlink_is_dropped_with_a_problem(vault, tmp_path):
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    target = vault / "digest/wiki/beta.md"
    target.unlink()
    os.symlink(tmp_path / "elsewhere.md", target)
    delta = scan.refresh(["digest/wiki/beta.md"])
    assert delta.removed == ("digest/wiki/beta.md",)
    assert [p.path for p in scan.problems] == ["digest/wiki/beta.md"]
    assert "is a symlink" in scan.problems[0].message


# --- the cache -----------------------------------------------------------------------


def test_a_second_scan_reuses_the_cache_and_reads_nothing_unchanged(vault, counters):
    first = VaultScan(vault)
    first.refresh()
    first.close()
    assert (vault / ".reme" / "scan.db").is_file()
    counters["read"].clear()
    counters["parse"] = 0

    second = VaultScan(vault)
    assert second.refresh() == ScanDelta((), ())
    assert counters == {"read": [], "parse": 0}
    assert dict(second.records) == dict(first.records)

    path = write(vault, "digest/wiki/alpha.md", NOTE_A + "edited\n")
    bump_mtime(path)
    third = VaultScan(vault)
    assert third.refresh().changed == ("digest/wiki/alpha.md",)
    assert counters["read"] == ["digest/wiki/alpha.md"] and counters["parse"] == 1


def test_a_removed_file_leaves_the_cache_too(vault):
    VaultScan(vault).refresh()
    (vault / "digest/wiki/beta.md").unlink()
    assert VaultScan(vault).refresh().removed == ("digest/wiki/beta.md",)
    with sqlite3.connect(vault / ".reme" / "scan.db") as conn:
        paths = {row[0] for row in conn.execute("SELECT path FROM files")}
    assert "digest/wiki/beta.md" not in paths and "digest/wiki/alpha.md" in paths


def test_a_corrupt_cache_is_deleted_and_rebuilt_with_a_warning(vault, counters):
    VaultScan(vault).refresh()
    db = vault / ".reme" / "scan.db"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    counters["read"].clear()
    with pytest.warns(RuntimeWarning, match="damaged"):
        scan = VaultScan(vault)
    scan.refresh()
    assert len(counters["read"]) == 4  # everything re-read
    assert scan.records["digest/wiki/alpha.md"].name == "alpha"
    with sqlite3.connect(db) as conn:  # and the cache is a real database again
        assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 4


def test_a_cache_row_that_does_not_decode_rebuilds_the_cache(vault):
    VaultScan(vault).refresh()
    with sqlite3.connect(vault / ".reme" / "scan.db") as conn:
        conn.execute("UPDATE files SET links = '{not json' WHERE path = 'digest/wiki/alpha.md'")
    with pytest.warns(RuntimeWarning, match="damaged"):
        scan = VaultScan(vault)
    scan.refresh()
    assert len(scan.records["digest/wiki/alpha.md"].links) == 3


def test_a_schema_change_rebuilds_the_cache(vault, counters):
    VaultScan(vault).refresh()
    with sqlite3.connect(vault / ".reme" / "scan.db") as conn:
        conn.execute("UPDATE version SET version = 'old'")
    counters["read"].clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a version change is routine, not a warning
        scan = VaultScan(vault)
        scan.refresh()
    assert len(counters["read"]) == 4


def test_an_unusable_cache_folder_degrades_to_memory(vault):
    (vault / ".reme").write_text("a file where the cache folder should be", encoding="utf-8")
    with pytest.warns(RuntimeWarning, match="cannot be used"):
        scan = VaultScan(vault)
    assert "digest/wiki/alpha.md" in scan.records
    assert (vault / ".reme").read_text(encoding="utf-8").startswith("a file")


# --- bad input -----------------------------------------------------------------------


def test_bad_files_each_give_a_problem_and_the_scan_carries_on(make_vault, tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret [[digest/wiki/ok.md]]", encoding="utf-8")
    odd = "digest/wiki/odd name #[1] 'q' \"dq\" ünï.md"
    vault = make_vault(
        {
            "digest/wiki/ok.md": "---\nname: ok\ndescription: fine\n---\n[[digest/wiki/x.md]]\n",
            "digest/wiki/bad-yaml.md": "---\nname: [unclosed\n---\nbody [[digest/wiki/ok.md]]\n",
            "digest/wiki/binary.md": b"\x00\x01\x02PNG\x00",
            "digest/wiki/latin1.md": "caf\xe9 [[digest/wiki/ok.md]]".encode("latin-1"),
            odd: "---\nname: odd\ndescription: odd\n---\n[[digest/wiki/ok.md]]\n",
        }
    )
    with open(vault / "digest/wiki/huge.md", "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # sparse: 50 MB by stat, nothing on disk
    os.symlink(outside / "secret.md", vault / "digest/wiki/link-out.md")
    os.symlink(outside, vault / "daily" / "linked-folder")
    os.close(os.open(os.path.join(os.fsencode(vault / "digest/wiki"), b"bad-\xff-name.md"),
                     os.O_CREAT | os.O_WRONLY))
    before = snapshot(vault)

    bytes_read = []
    real_read = os.read

    def counting_read(fd, n):
        data = real_read(fd, n)
        bytes_read.append(len(data))
        return data

    monkeypatch.setattr(scan_mod.os, "read", counting_read)
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    monkeypatch.undo()

    problems = {p.path: p.message for p in scan.problems}
    assert set(problems) == {
        "digest/wiki/bad-yaml.md",
        "digest/wiki/binary.md",
        "digest/wiki/latin1.md",
        "digest/wiki/huge.md",
        "digest/wiki/link-out.md",
        "daily/linked-folder",
        "digest/wiki/bad-\ufffd-name.md",
    }
    for path, message in problems.items():
        assert path in message or repr(path) in message  # names the file
    assert "Fix the YAML" in problems["digest/wiki/bad-yaml.md"]
    assert "NUL byte" in problems["digest/wiki/binary.md"]
    assert "not UTF-8" in problems["digest/wiki/latin1.md"]
    assert "limit for a note" in problems["digest/wiki/huge.md"]
    assert "symlink to a path outside the vault" in problems["digest/wiki/link-out.md"]
    assert "never follows symlinks" in problems["daily/linked-folder"]
    assert "not valid UTF-8" in problems["digest/wiki/bad-\ufffd-name.md"]

    records = scan.records
    bad_yaml = records["digest/wiki/bad-yaml.md"]
    assert bad_yaml.name is None and bad_yaml.description is None
    assert [lk.target for lk in bad_yaml.links] == ["digest/wiki/ok.md"]  # body still read
    assert records["digest/wiki/binary.md"].links == ()
    # bad YAML is still a note (body read); binary, non-UTF-8 and huge files are not
    assert bad_yaml.readable and records["digest/wiki/ok.md"].readable
    assert not any(
        records[f"digest/wiki/{n}.md"].readable for n in ("binary", "latin1", "huge")
    )
    huge = records["digest/wiki/huge.md"]
    assert huge.size == 50 * 1024 * 1024 and huge.sha256 == "" and huge.links == ()
    assert sum(bytes_read) < 10_000  # the 50 MB note was refused by its size, unread
    assert records[odd].name == "odd" and records[odd].links[0].target == "digest/wiki/ok.md"
    assert records["digest/wiki/ok.md"].name == "ok"
    assert "digest/wiki/link-out.md" not in records
    assert not any(p.startswith("daily/linked-folder") for p in records)
    assert snapshot(vault) == before  # reading modified nothing


def test_bad_files_survive_the_cache_round_trip(make_vault):
    vault = make_vault(
        {
            "digest/wiki/bad-yaml.md": "---\nname: [unclosed\n---\nbody [[digest/wiki/ok.md]]\n",
            "digest/wiki/a [b] #c.md": "[[digest/wiki/bad-yaml.md|x]]",
        }
    )
    first = VaultScan(vault)
    first.refresh()
    first.close()
    second = VaultScan(vault)
    assert second.refresh() == ScanDelta((), ())
    assert dict(second.records) == dict(first.records)
    assert [p.path for p in second.problems] == ["digest/wiki/bad-yaml.md"]


def test_a_fixed_file_loses_its_problem(make_vault):
    vault = make_vault({"digest/wiki/n.md": b"caf\xe9"})
    scan = VaultScan(vault, cache=False)
    scan.refresh()
    assert [p.path for p in scan.problems] == ["digest/wiki/n.md"]
    path = write(vault, "digest/wiki/n.md", "café")
    bump_mtime(path)
    assert scan.refresh().changed == ("digest/wiki/n.md",)
    assert scan.problems == []
