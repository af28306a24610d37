"""The sample vault fills every review screen of the workbench (issue #12, docs/spec.md §7.6–§7.8).

The pipeline a user runs, through the CLI entry point: `init --sample`, `dream`, then
`consolidate` twice (the second with --force, as a user would to get the hubs today).

Embedder: dream runs with `--embedder hashing` (bag-of-words vectors: fast, deterministic,
no model download), and consolidate takes the index's embedder, so every figure the
offline consolidate brain measures here (description similarity, split dispersion) is
measured on hashing vectors. The targets hold with the default embedder too (e5, and
MiniLM), measured by hand and listed in reme_workbench/samples/vault/README.md; this
test checks them with hashing only.

What the sample plants for each target (material only; the offline rules are untouched):
* a duplicate candidate — two logs three weeks apart of one procedure under other titles,
  daily/2026-10-09/replay-refund-webhook-dlq.md and daily/2026-10-30/refund-webhook-dlq-backlog.md:
  the later one has a step the first lacks, so dream CREATEs a second note instead of
  corroborating. Each log carries its own merchant, ids and counts, and the statement
  judge counts a statement as shared only when its values agree (docs/spec.md §7.9.2:
  the rule that keeps distinct notes of one kind apart), so the pair is an uncertain
  pair, not a merge proposal: the sample has no merge proposal today;
* split — daily/2026-10-26/new-laptop-dev-setup.md, one twelve-step procedure whose note is
  over the 2,000-token split threshold;
* uncertain pairs and hubs — from the four weeks as they were (staging/prod rotations,
  the PgBouncer notes, the communities).
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from reme_workbench.cli import cli

MERGE_PAIR = {"digest/procedure/replay-refund-webhook-dlq.md",
              "digest/procedure/refund-webhook-dlq-backlog.md"}
LONG_NOTE = "digest/procedure/new-laptop-dev-setup.md"


def run(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def phases(report: dict) -> dict[str, dict]:
    return {p["phase"]: p for p in report["phases"]}


def test_the_sample_gives_uncertain_pairs_a_split_and_hubs(tmp_path):
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    dreamt = run("--vault", str(vault), "dream", "--embedder", "hashing", "--json")
    created = {o["target_path"] for o in dreamt["outcomes"]
               if o["action"] == "CREATE" and o["state"] == "applied"}
    assert MERGE_PAIR <= created  # two notes of one procedure: dream did not corroborate
    assert dreamt["split_candidates"] == [LONG_NOTE]  # queued for consolidate, dream never waits

    first = phases(run("--vault", str(vault), "consolidate", "--json"))
    assert all(first[p]["ran"] for p in ("communities", "abstract", "merge", "split"))

    # merge: the planted pair is a candidate, and one judge (the descriptions) calls it the
    # same; the statements differ in their values (merchant, ids, counts): uncertain
    merge = first["merge"]["details"]
    assert merge["proposals"] == [], merge["proposals"]

    # uncertain: at least one pair with one agreeing vote, in the audit report
    assert merge["uncertain"] and all(
        sum(v["agrees"] for v in u["votes"]) == 1 for u in merge["uncertain"])
    report = (vault / merge["uncertain_report"]).read_text(encoding="utf-8")
    assert re.fullmatch(r"audit/\d{4}-\d{2}-\d{2}/dups_uncertain\.md", merge["uncertain_report"])
    sections = [line for line in report.splitlines() if line.startswith("## ")]
    assert len(sections) == len(merge["uncertain"]) and all("⟷" in s for s in sections)
    assert any(set(u["candidate"][k] for k in ("a", "b")) == MERGE_PAIR
               for u in merge["uncertain"])

    # split: the long procedure, judged dispersed, one proposal with children
    split = first["split"]["details"]["outcomes"]
    assert [(o["path"], o["state"]) for o in split] == [(LONG_NOTE, "pending")]
    assert split[0]["tokens"] > 2000 and len(split[0]["children"]) >= 2

    # abstract: communities were computed for the first time in this run, so no community
    # has a stability yet and the stability gate stops every one that got that far
    abstract = first["abstract"]["details"]
    assert abstract["outcomes"] == [] and abstract["blocked_by"]["stability"] >= 1

    # the second run compares with the first communities: stable ones get a hub
    second = phases(run("--vault", str(vault), "consolidate", "--force", "--json"))
    hubs = [o for o in second["abstract"]["details"]["outcomes"] if o["state"] == "pending"]
    assert hubs and second["abstract"]["details"]["blocked_by"]["stability"] == 0
    assert all(o["path"].startswith("digest/") for o in hubs)

    pending = run("--vault", str(vault), "proposals", "list", "--state", "pending", "--json")
    actions = {p["action"] for p in pending}
    assert {"consolidate.split", "consolidate.abstract"} <= actions
    assert sum(p["action"] == "consolidate.abstract" for p in pending) == len(hubs)
