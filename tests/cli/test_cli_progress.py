"""Progress on stderr: shown on a terminal (a real pseudo-terminal here), absent when
stderr is piped, never mixed into stdout."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

LOGS = {
    f"daily/2026-10-0{i}/log.md": (
        f"---\nname: log\ndescription: Day {i}.\n---\n"
        f"1. Rolled out payments-api v2.{i} to staging.\n2. Ran the prod canary for 15 minutes.\n\n"
        "We decided to keep the canary at 15 minutes.\n"
    )
    for i in range(1, 4)
}


@pytest.fixture
def vault(make_vault):
    return make_vault(LOGS)


def _env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def run_on_terminal(*args, tmp_path):
    """Run the CLI with stderr on a pseudo-terminal; (exit code, stdout, terminal text)."""
    master, slave = pty.openpty()
    with open(tmp_path / "stdout", "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "reme_workbench", *args],
            stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=_env(),
        )
    os.close(slave)
    seen = bytearray()
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    code = proc.wait(timeout=120)
    return code, (tmp_path / "stdout").read_text(encoding="utf-8"), seen.decode("utf-8", "replace")


def run_piped(*args):
    result = subprocess.run(
        [sys.executable, "-m", "reme_workbench", *args], capture_output=True, text=True, env=_env()
    )
    return result.returncode, result.stdout, result.stderr


def test_index_shows_files_on_a_terminal_and_nothing_when_piped(vault, tmp_path):
    code, out, term = run_on_terminal("--vault", str(vault), "index", "--embedder", "hashing", "--json", tmp_path=tmp_path)
    assert code == 0, term
    assert "indexing: 3/3 files" in term
    assert term.endswith("\r\x1b[K")  # the status line is erased at the end
    assert json.loads(out)["stats"]["files"] == 3  # stdout is the JSON alone
    (vault / "daily/2026-10-01/log.md").write_text("changed\n", encoding="utf-8")
    code, out, err = run_piped("--vault", str(vault), "index", "--embedder", "hashing", "--json")
    assert code == 0 and json.loads(out)["indexed"] == ["daily/2026-10-01/log.md"]
    assert err == ""  # no progress, no escape codes in a pipe


def test_dream_shows_files_and_units(vault, tmp_path):
    code, out, term = run_on_terminal(
        "--vault", str(vault), "dream", "--embedder", "hashing", "--dry-run", "--json", tmp_path=tmp_path
    )
    assert code == 0, term
    assert "indexing: 3/3 files" in term
    for n in (1, 2, 3):
        assert f"dreaming: file {n}/3 daily/2026-10-0{n}/log.md" in term
    assert " units)" in term
    assert json.loads(out)["materials"]
    code, out, err = run_piped("--vault", str(vault), "dream", "--embedder", "hashing", "--dry-run", "--json")
    assert code == 0 and "dreaming" not in err and "\r" not in err


def test_recall_batch_counts_queries(vault, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "canary"}\n{"id": "b", "query": "staging"}\n', encoding="utf-8")
    args = ("--vault", str(vault), "recall", "--queries", str(queries), "--embedder", "hashing", "--json")
    code, out, term = run_on_terminal(*args, tmp_path=tmp_path)
    assert code == 0, term
    assert "indexing: 3/3 files" in term and "recall: 2/2 queries" in term
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["a", "b"]
    code, out, err = run_piped(*args)
    assert code == 0 and err == ""


def test_consolidate_shows_its_phases(vault, tmp_path):
    args = ("--vault", str(vault), "consolidate", "--json")
    code, out, term = run_on_terminal(*args, tmp_path=tmp_path)
    assert code == 0, term
    phases = ("communities", "abstract", "merge", "split", "archive", "cooldowns", "health")
    for n, phase in enumerate(phases, 1):
        assert f"consolidate: {phase} ({n}/7)" in term
    assert term.endswith("\r\x1b[K")
    assert json.loads(out)["ran"] == list(phases)
    code, out, err = run_piped(*args, "--force")
    assert code == 0 and err == "" and json.loads(out)["ran"]


def test_demo_shows_a_bar_of_its_weeks(tmp_path):
    path = tmp_path / "reme-demo"
    code, out, term = run_on_terminal("demo", str(path), "--embedder", "hashing", "--json",
                                      tmp_path=tmp_path)
    assert code == 0, term
    assert "[····················] 0/9 week of Oct 05: dream 12 files" in term
    assert "week of Oct 26: consolidate" in term and "[####################] 9/9 done" in term
    assert term.endswith("\r\x1b[K")
    assert json.loads(out)["waiting"]["consolidate.merge"] == 1


def test_index_counts_the_chunks_it_embeds(make_vault, tmp_path):
    # enough chunks for more than one committed batch (index/pending.py COMMIT_BATCH)
    notes = {f"resource/topic-{i}.md": "\n\n".join(
        f"## Part {j}\n\nPart {j} of topic {i}: the canary ran {j} minutes on host {i}-{j}."
        for j in range(12)) for i in range(20)}
    vault = make_vault(notes)
    code, out, term = run_on_terminal("--vault", str(vault), "index", "--embedder", "hashing",
                                      "--json", tmp_path=tmp_path)
    assert code == 0, term
    chunks = json.loads(out)["chunks_embedded"]
    assert chunks > 64
    assert f"embedding: {chunks:,}/{chunks:,} chunks, " in term  # the last line, always drawn
    assert term.endswith("\r\x1b[K")
