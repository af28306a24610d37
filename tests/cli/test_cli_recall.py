"""`reme-workbench index` and `recall`, driven through the CLI with the hashing embedder."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/procedure/deploy-payments-api.md": "---\nname: deploy-payments-api\ndescription: How to deploy payments-api.\n---\n"
            "1. Run the canary for 15 minutes.\n2. Watch the error rate.\n\nderived_from:: [[daily/2026-10-05/deploy.md]]\n",
            "digest/personal/uv-for-python.md": "---\nname: uv-for-python\ndescription: Always use uv for Python environments.\n---\n"
            "Use uv, never sudo pip.\nSee [[digest/procedure/deploy-payments-api.md]].\n\nderived_from:: [[daily/2026-10-05/deploy.md]]\n",
            "daily/2026-10-05/deploy.md": "---\nname: deploy\ndescription: Deploy log.\n---\nDeployed payments-api with a canary.\n",
            "daily/2026-10-06/周报.md": "---\nname: 周报\ndescription: 周报\n---\n每周一上午写周报,用要点列表。\n",
        }
    )


def run(vault, *args):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args, "--embedder", "hashing"], catch_exceptions=False)
    return result


def test_index_is_incremental(vault):
    first = json.loads(run(vault, "index", "--json").stdout)
    assert len(first["indexed"]) == 4 and first["stats"]["embedder"].startswith("hashing")
    again = json.loads(run(vault, "index", "--json").stdout)
    assert again["indexed"] == [] and again["chunks_embedded"] == 0
    note = vault / "digest/personal/uv-for-python.md"
    note.write_text(note.read_text() + "Pin versions in a lock file.\n")
    third = json.loads(run(vault, "index", "--json").stdout)
    assert third["indexed"] == ["digest/personal/uv-for-python.md"]
    (vault / "daily/2026-10-05/deploy.md").unlink()
    fourth = json.loads(run(vault, "index", "--json").stdout)
    assert fourth["removed"] == ["daily/2026-10-05/deploy.md"]


def test_recall_finds_notes_sources_and_neighbours(vault):
    answer = json.loads(run(vault, "recall", "canary error rate", "--scope", "digest", "--json").stdout)
    hits = answer["hits"]
    assert answer["vectors"] == "4/4 files" and answer["note"] is None  # a few notes: embedded first
    assert hits[0]["path"] == "digest/procedure/deploy-payments-api.md"
    assert {h["path"] for h in hits} >= {"digest/personal/uv-for-python.md"}  # a linked neighbour
    assert all(h["path"].startswith("digest/") for h in hits)
    zh = json.loads(run(vault, "recall", "周报", "--scope", "sources", "--json").stdout)["hits"]
    assert zh[0]["path"] == "daily/2026-10-06/周报.md"
    log = (vault / "meta/access_log.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(log[0])["path"] == "digest/procedure/deploy-payments-api.md"


def test_recall_text_output_and_no_match(vault):
    out = run(vault, "recall", "canary", "--text").stdout
    assert "deploy-payments-api.md" in out and "L" in out
    assert "No matches." in run(vault, "recall", "zzzzqqqq", "--mode", "keyword", "--text").stdout


def test_recall_batch_jsonl(vault, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "canary"}\n\n{"id": "b", "query": "uv"}\n', encoding="utf-8")
    lines = run(vault, "recall", "--queries", str(queries), "--json").stdout.strip().splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["id"] for r in rows] == ["a", "b"]
    assert set(rows[0]["hits"][0]) >= {"path", "score", "chunks"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["--vault", str(vault), "recall", "--queries", str(bad), "--embedder", "hashing"])
    assert result.exit_code == 1 and "Line 1" in result.output


def test_recall_needs_exactly_one_of_query_or_file(vault):
    result = CliRunner().invoke(cli, ["--vault", str(vault), "recall", "--embedder", "hashing"])
    assert result.exit_code == 1 and "Give either a QUERY" in result.output


def test_the_index_is_a_cache(vault):
    before = run(vault, "recall", "canary uv", "--json", "--scope", "all").stdout
    shutil.rmtree(vault / ".reme")
    after = run(vault, "recall", "canary uv", "--json", "--scope", "all").stdout
    assert json.loads(before) == json.loads(after)


def _index_state(vault):
    import sqlite3

    conn = sqlite3.connect(vault / ".reme" / "index.db")
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        conn.close()
    return meta, chunks, (vault / ".reme" / "vectors.faiss").read_bytes()


@pytest.mark.parametrize(
    "args",
    [
        ("recall", "canary"),  # no flag: reme.toml names another embedder
        ("recall", "canary", "--embedder", "hashing:64"),
        ("dream", "--dry-run", "--embedder", "hashing:64"),
    ],
    ids=["recall reme.toml", "recall other", "dream other"],
)
def test_a_command_with_another_embedder_asks_for_index_instead_of_rebuilding(vault, args):
    (vault / "reme.toml").write_text('[recall]\nembedder = "hashing:32"\n', encoding="utf-8")
    built = CliRunner().invoke(cli, ["--vault", str(vault), "index", "--embedder", "hashing", "--json"])
    assert built.exit_code == 0, built.output
    before = _index_state(vault)
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: ") and "`reme-workbench index --embedder" in lines[0]
    assert _index_state(vault) == before  # nothing was re-embedded


def test_index_with_another_embedder_reembeds_and_says_so(vault):
    assert run(vault, "index", "--json").exit_code == 0  # hashing
    result = CliRunner().invoke(cli, ["--vault", str(vault), "index", "--embedder", "hashing:64", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["reembedded_all"] is True and "hashing" in data["message"]
    assert data["stats"]["embedder"].startswith("hashing") and len(data["indexed"]) == 4


def test_a_plain_recall_keeps_the_embedder_the_index_was_built_with(vault):
    """After `index --embedder X`, `recall` with no flag and the default (auto) embedder
    uses X: nothing is re-embedded and nothing fails."""
    built = CliRunner().invoke(cli, ["--vault", str(vault), "index", "--embedder", "hashing:64", "--json"])
    assert built.exit_code == 0, built.output
    before = _index_state(vault)
    result = CliRunner().invoke(cli, ["--vault", str(vault), "recall", "canary", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)  # hits
    assert _index_state(vault)[:2] == before[:2]  # same embedder, same chunks


def test_recall_answers_by_keyword_first_and_says_what_the_vectors_cover(make_vault):
    """A vault never indexed answers at once from the keyword index; the answer says how
    many files have vectors and what embeds the rest. A few edited notes are embedded
    before answering; `--mode vector` waits for every vector (it has nothing else)."""
    files = {f"digest/wiki/host-{i:02d}.md": f"---\nname: host-{i:02d}\ndescription: Host {i}.\n---\n"
             f"Host {i} runs service{i} behind the gateway.\n" for i in range(80)}
    root = make_vault(files)
    answer = json.loads(run(root, "recall", "service7", "--json").stdout)
    assert answer["hits"][0]["path"] == "digest/wiki/host-07.md"  # by keyword, at once
    assert answer["vectors"] == "0/80 files"
    assert "keyword only" in answer["note"] and "reme-workbench index" in answer["note"]
    text = run(root, "recall", "service7", "--text").stdout
    assert "vectors for 0/80 files" in text
    # an edit to a note leaves a few chunks: embedded before the answer, the rest wait
    assert json.loads(run(root, "index", "--json").stdout)["stats"]["vectors"] == 80
    (root / "digest/wiki/host-03.md").write_text("---\nname: host-03\n---\nHost 3 moved to rack 9.\n")
    again = json.loads(run(root, "recall", "rack 9", "--json").stdout)
    assert again["vectors"] == "80/80 files" and again["note"] is None
    assert again["hits"][0]["path"] == "digest/wiki/host-03.md"
    # a fresh vault asked by meaning only: every vector is embedded first
    other = make_vault(files)
    vector = json.loads(run(other, "recall", "service7", "--mode", "vector", "--json").stdout)
    assert vector["vectors"] == "80/80 files" and vector["hits"]
