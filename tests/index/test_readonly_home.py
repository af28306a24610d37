"""Recall of a vault this user may only read: the index and the access log go to a user
cache folder (index/location.py). tests/cli/test_cli_readonly.py runs the CLI as an
unprivileged user on a chmod'ed vault; here the kernel's answer is injected, so the same
path is tested where no such user exists, with everything inside the vault watched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.index import location
from reme_workbench.vault import scan

NOTE = "---\nname: canary\ndescription: How the canary runs.\n---\nRun the canary for 15 minutes.\n"
LOG = "---\nname: log\ndescription: A log.\n---\nDeployed payments-api with a canary.\n"


def every_file(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root`, .reme/ included, with its bytes and mtime."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def vault(make_vault):
    return make_vault({"digest/wiki/canary.md": NOTE, "daily/2026-10-05/log.md": LOG})


@pytest.fixture
def read_only(vault, monkeypatch, tmp_path):
    """The kernel says no to every write inside `vault` (as for a read-only mount)."""
    inside = vault.resolve()

    def may_write(path, *_args):
        return not Path(path).resolve().is_relative_to(inside)

    monkeypatch.setattr(location, "_may_write", may_write)
    monkeypatch.setattr(scan, "_may_write", may_write)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return vault


def recall(vault, *args):
    return CliRunner().invoke(cli, ["--vault", str(vault), "recall", *args, "--embedder", "hashing"],
                              catch_exceptions=False)


def test_recall_of_a_read_only_vault_writes_only_to_the_user_cache(read_only, tmp_path):
    before = every_file(read_only)
    result = recall(read_only, "canary minutes", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["hits"][0]["path"] == "digest/wiki/canary.md"
    digest = hashlib.sha256(str(read_only.resolve()).encode()).hexdigest()[:16]
    home = tmp_path / "cache/reme-workbench" / digest
    assert answer["notices"] == [
        f"The vault {read_only} is read-only for this user: its index and access log are "
        f"kept in {home}."]
    assert (home / ".reme/index.db").is_file()
    logged = [json.loads(line) for line in (home / "meta/access_log.jsonl").read_text().splitlines()]
    assert [e["path"] for e in logged] == [h["path"] for h in answer["hits"]]
    assert every_file(read_only) == before  # nothing written inside the vault, .reme/ included


def test_a_batch_says_it_once_on_stderr(read_only, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "canary"}\n{"id": "b", "query": "payments"}\n',
                       encoding="utf-8")
    before = every_file(read_only)
    result = recall(read_only, "--queries", str(queries), "--json")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.strip().splitlines()) == 2
    (line,) = result.stderr.strip().splitlines()
    assert "read-only" in line and str(tmp_path / "cache") in line
    assert every_file(read_only) == before


def test_the_cache_starts_from_the_index_the_vault_carries(vault, monkeypatch, tmp_path):
    built = CliRunner().invoke(cli, ["--vault", str(vault), "index", "--embedder", "hashing", "--json"])
    assert built.exit_code == 0, built.output
    inside = vault.resolve()
    monkeypatch.setattr(location, "_may_write", lambda p: not Path(p).resolve().is_relative_to(inside))
    monkeypatch.setattr(scan, "_may_write", lambda p: not Path(p).resolve().is_relative_to(inside))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from reme_workbench.index.embeddings import HashingEmbedder
    from reme_workbench.index.metered import MeteredEmbedder
    from reme_workbench.index.store import VaultIndex

    home = location.index_home(vault)
    assert home.root != vault and home.notice
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(vault, counted, home=home.root) as index:
        assert index.refresh().indexed == ()  # the synced index, as it was
        assert index.stats()["files"] == 2
    assert counted.texts == 0
