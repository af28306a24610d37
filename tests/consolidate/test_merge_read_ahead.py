"""Merge on a person's imported vault: the offline brain reads the pairs' notes ahead in
one batch and votes in turn (no thread per pair), with the same votes as without, and
consolidate reports each phase's embedding apart from the rest of its CPU (issue #31:
a first run a person waits for)."""

from __future__ import annotations

import json
import threading

import numpy as np
from click.testing import CliRunner

from reme_lab.course_vault import write_course_vault
from reme_workbench.brains.offline_consolidate import OfflineConsolidateBrain
from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings, Settings
from reme_workbench.consolidate.merge import MergeContext, plan_merges
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.metered import MeteredEmbedder
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW
from tests.consolidate.test_merge import A, B, C, base_files, cand


class Recording(HashingEmbedder):
    """The hashing embedder, recording each call's texts and the thread that made it."""

    def __init__(self):
        super().__init__()
        self.calls: list[tuple[str, list[str]]] = []

    def embed(self, texts):
        self.calls.append((threading.current_thread().name, list(texts)))
        return super().embed(texts)


class NoReadAhead(OfflineConsolidateBrain):
    def read_ahead(self, notes):
        return 0


def votes_of(run):
    return (sorted((p.candidate.a, p.candidate.b, tuple((v.judge, v.agrees, v.confidence)
                                                        for v in p.votes)) for p in run.uncertain),
            sorted((c.a, c.b) for c in run.dropped), len(run.proposals))


def test_the_offline_brain_embeds_the_pairs_notes_in_one_batch_and_votes_in_turn(make_vault):
    root = make_vault(base_files())
    pairs = [cand(A, B), cand(A, C), cand(B, C)]
    ctx = MergeContext(now=FIXED_NOW, dry_run=True)
    seen = Recording()
    brain = OfflineConsolidateBrain(seen, Settings())
    ahead = plan_merges(Vault.open(root, clock=lambda: FIXED_NOW), brain, pairs, MergeSettings(), ctx)
    main = threading.main_thread().name
    assert all(thread == main for thread, _ in seen.calls)  # no thread per vote
    batches = [texts for _, texts in seen.calls if len(texts) == 3]
    assert batches, seen.calls  # the three notes' gists in one call
    gists = set(batches[0])
    later = [t for _, texts in seen.calls[seen.calls.index((main, batches[0])) + 1:] for t in texts]
    assert not gists & set(later)  # never embedded again while voting

    plain = NoReadAhead(Recording(), Settings())
    without = plan_merges(Vault.open(root, clock=lambda: FIXED_NOW), plain, pairs, MergeSettings(), ctx)
    assert votes_of(ahead) == votes_of(without) != ([], [], 0)
    assert [p.summary for p in ahead.proposals] == [p.summary for p in without.proposals]


def test_a_metered_embedder_counts_texts_and_cpu_and_is_otherwise_the_embedder():
    told = []
    metered = MeteredEmbedder(HashingEmbedder(), on_embed=told.append)
    rows = metered.embed(["alpha beta", "gamma"])
    assert rows.shape == (2, metered.dim) and metered.name == HashingEmbedder().name
    assert np.allclose(rows, HashingEmbedder().embed(["alpha beta", "gamma"]))
    metered.embed(["delta"])
    assert metered.texts == 3 and told == [2, 3] and metered.seconds >= 0.0


def test_consolidate_reports_each_phases_cpu_and_its_embedding_apart(tmp_path):
    write_course_vault(tmp_path / "course", notes=60)
    vault = tmp_path / "vault"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(vault), "--json"]).exit_code == 0
    (vault / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    imported = runner.invoke(cli, ["--vault", str(vault), "import", str(tmp_path / "course"), "--json"])
    assert imported.exit_code == 0, imported.output
    result = runner.invoke(cli, ["--vault", str(vault), "consolidate", "--only",
                                 "communities,merge", "--json"])
    assert result.exit_code == 0, result.output
    phases = {p["phase"]: p for p in json.loads(result.stdout)["phases"]}
    merge = phases["merge"]
    assert merge["cpu_seconds"] > 0 and 0 < merge["embedding_seconds"] <= merge["cpu_seconds"] + 0.05
    assert phases["communities"]["embedding_seconds"] == 0  # Leiden embeds nothing
