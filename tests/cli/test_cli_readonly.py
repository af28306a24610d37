"""A read-only vault: every command either works read-only or stops with one line.

A vault is made read-only with `chmod -R a-w`. The tests run as root here, and root
writes through file modes, so the CLI is run as the unprivileged user `nobody`
(`setpriv`), for whom the modes hold; as any other user the modes hold already. Both
ways the kernel refuses the writes: nothing is simulated. When `nobody` cannot read the
clone (it lies under a folder closed to other users), the tests skip and say so.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import snapshot

NOTE = """---
name: alpha
description: The alpha note.
---
Alpha links to [[digest/wiki/nowhere.md]] and the canary.

derived_from:: [[daily/2026-10-05/log.md]]
"""
LOG = "---\nname: log\ndescription: A log.\n---\nDeployed payments-api with a canary.\n"
NOBODY = 65534


def _as_user() -> list[str] | None:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _why_the_user_cannot_run_the_cli(prefix: list[str] | None,
                                     python: str = sys.executable) -> str | None:
    """Why `nobody` cannot run this clone's CLI, or None when it can. A clone (or its
    virtual environment, or the temporary folder) under a folder other users may not
    enter — a `mktemp -d`, a 0700 home — cannot be read by `nobody`: the tests would fail
    with `No module named reme_workbench` or `Permission denied`, which says nothing
    about read-only vaults."""
    if prefix is None:
        return "running as root without setpriv (the CLI must run as a user file modes bind)"
    if not prefix:
        return None  # not root: the tests run the CLI as this user, who can read the clone
    probe_code = "import os, tempfile, reme_workbench; os.listdir(tempfile.gettempdir())"
    try:
        probe = subprocess.run([*prefix, python, "-c", probe_code], capture_output=True,
                               text=True, timeout=120, cwd="/")
    except OSError as exc:
        said = f"{python}: {exc.strerror}"
    else:
        if probe.returncode == 0:
            return None
        said = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
    return (f"the user nobody (uid {NOBODY}) cannot run this clone's CLI ({said}): a folder "
            f"above the clone ({Path(__file__).resolve().parents[2]}), its Python "
            f"({python}) or the temporary folder ({tempfile.gettempdir()}) is closed "
            "to other users; to run these tests, clone into a folder others may enter "
            "(chmod o+x on each folder above it)")


PREFIX = _as_user()
_CANNOT = _why_the_user_cannot_run_the_cli(PREFIX)
pytestmark = pytest.mark.skipif(_CANNOT is not None, reason=_CANNOT or "")


def _run_cli(*args: str, cwd: Path, **extra_env: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["HOME"] = str(cwd)
    env.update(extra_env)
    return subprocess.run(
        [*PREFIX, sys.executable, "-m", "reme_workbench", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120,
    )


def _chmod_tree(root: Path, writable: bool) -> None:
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            mode = path.stat().st_mode
            path.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)
    mode = root.stat().st_mode
    root.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)


@pytest.fixture(scope="module")
def readonly():
    """A sample-like vault, used once (index, a health report, a proposal) and then made
    read-only. It lives in a folder `nobody` may enter (pytest's tmp_path is root-only)."""
    base = Path(tempfile.mkdtemp(prefix="reme-readonly-"))
    base.chmod(0o755)
    vault = base / "vault"
    for layer in ("resource", "daily/2026-10-05", "digest/procedure", "digest/personal", "digest/wiki", "meta", "audit"):
        (vault / layer).mkdir(parents=True)
    (vault / "digest/wiki/alpha.md").write_text(NOTE, encoding="utf-8")
    (vault / "daily/2026-10-05/log.md").write_text(LOG, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "reme_workbench", "--vault", str(vault), "index", "--embedder", "hashing", "--json"],
        check=True, capture_output=True,
    )
    _chmod_tree(vault, writable=False)
    try:
        yield vault
    finally:
        _chmod_tree(vault, writable=True)
        shutil.rmtree(base)


def run(vault: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    return _run_cli("--vault", str(vault), *args, cwd=vault.parent, **extra_env)


def test_a_clone_other_users_cannot_enter_skips_with_the_reason(tmp_path):
    """A Python under a folder closed to other users (a 0700 `mktemp -d`): nobody cannot
    run it, and the tests skip saying why, instead of 20 failures."""
    if not PREFIX:
        pytest.skip("runs as root only: another user's folder modes do not bind root")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    (closed / "python").symlink_to(sys.executable)
    reason = _why_the_user_cannot_run_the_cli(PREFIX, python=str(closed / "python"))
    assert reason is not None and "closed to other users" in reason and "chmod o+x" in reason
    assert "No module named" in reason or "Permission denied" in reason  # what nobody met


def test_the_vault_really_is_read_only_for_the_cli_user(readonly):
    probe = _run_cli("-c", "x", cwd=readonly.parent)  # python -m reme_workbench -c: usage error
    assert probe.returncode != 0
    write = subprocess.run(
        [*PREFIX, sys.executable, "-c", f"open({str(readonly / 'digest/x.md')!r}, 'w')"],
        capture_output=True, text=True,
    )
    assert "PermissionError" in write.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("status", "--json"),
        ("graph", "--json"),
        ("links", "digest/wiki/alpha.md", "--json"),
        ("health", "--no-report", "--json"),
        ("proposals", "list", "--json"),
        ("rename", "digest/wiki/alpha.md", "digest/wiki/beta.md", "--dry-run", "--json"),
        ("consolidate", "--dry-run", "--json"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_reading_commands_work_read_only(readonly, args):
    before = snapshot(readonly)
    result = run(readonly, *args)
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)
    assert "Traceback" not in result.stderr
    assert result.stderr == "", result.stderr  # no warning about caches it cannot update
    assert snapshot(readonly) == before


def test_health_reports_read_only_and_says_the_report_was_not_written(readonly):
    result = run(readonly, "health", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["report"] is None
    (line,) = result.stderr.strip().splitlines()
    assert "read-only" in line and "health_links.md" in line


@pytest.mark.parametrize(
    "args",
    [
        ("rename", "digest/wiki/alpha.md", "digest/wiki/beta.md"),
        ("health", "--fix"),
        ("index", "--embedder", "hashing"),
        ("dream", "--embedder", "hashing", "--dry-run"),
        ("proposals", "accept", "p-1"),
        ("proposals", "reject", "p-1"),
        ("proposals", "revert", "p-1"),
        ("consolidate",),
        ("consolidate", "--only", "health"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_writing_commands_stop_with_one_line(readonly, args):
    before = snapshot(readonly)
    result = run(readonly, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ") and "read-only" in lines[0] and "chmod" in lines[0]
    assert snapshot(readonly) == before


def test_init_in_a_read_only_folder_is_one_line(readonly):
    result = _run_cli("init", str(readonly / "digest" / "new-vault"), cwd=readonly.parent)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("Error: ") and "Permission denied" in line


def test_the_library_refuses_a_read_only_vault_in_one_sentence(readonly):
    """Below the CLI's check: the vault lock itself turns the refusal into a RemeError."""
    code = (
        "from reme_workbench import Vault, rename_note, RemeError\n"
        f"vault = Vault.open({str(readonly)!r})\n"
        "try:\n"
        "    rename_note(vault, 'digest/wiki/alpha.md', 'digest/wiki/beta.md')\n"
        "except RemeError as exc:\n"
        "    print('REFUSED', exc)\n"
    )
    result = subprocess.run([*PREFIX, sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.startswith("REFUSED The vault"), result.stdout + result.stderr
    assert "read-only for this user" in result.stdout and "chmod -R u+w" in result.stdout


@pytest.fixture
def user_cache():
    """An XDG_CACHE_HOME the CLI's user may write (pytest's tmp_path is root-only)."""
    folder = Path(tempfile.mkdtemp(prefix="reme-cache-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_recall_searches_a_read_only_vault_from_a_user_cache(readonly, user_cache):
    before = snapshot(readonly)
    reme_before = sorted(p.name for p in (readonly / ".reme").iterdir())
    result = run(readonly, "recall", "canary", "--embedder", "hashing", "--scope", "all", "--json",
                 XDG_CACHE_HOME=str(user_cache))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["hits"][0]["path"] == "daily/2026-10-05/log.md"
    (notice,) = answer["notices"]
    (home,) = (user_cache / "reme-workbench").iterdir()  # one folder for this vault
    assert "read-only" in notice and str(home) in notice and "chmod" not in notice
    assert (home / ".reme/index.db").is_file()  # the index, started from the vault's own copy
    logged = [json.loads(line) for line in (home / "meta/access_log.jsonl").read_text().splitlines()]
    assert logged[0]["path"] == "daily/2026-10-05/log.md" and logged[0]["event"] == "recall"
    again = run(readonly, "recall", "alpha note", "--embedder", "hashing", "--text",
                XDG_CACHE_HOME=str(user_cache))
    assert again.returncode == 0, again.stderr
    assert "digest/wiki/alpha.md" in again.stdout
    assert again.stderr.strip().splitlines() == [notice]  # said once, on stderr
    assert snapshot(readonly) == before  # nothing written inside the vault
    assert sorted(p.name for p in (readonly / ".reme").iterdir()) == reme_before


def test_recall_says_how_to_fix_a_cache_it_cannot_write_either(readonly):
    result = run(readonly, "recall", "canary", "--embedder", "hashing", "--json",
                 XDG_CACHE_HOME=str(readonly / "meta"))
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("Error: ") and "XDG_CACHE_HOME" in line
