"""The sample vault fills every review screen of the workbench (docs/spec.md §7.6–§7.8).

The pipeline a user (and the `demo` job) runs, through the CLI entry point: `init
--sample`, then the four weeks in order — `dream` the week's material, then
`consolidate --force` as the weekly schedule would at the week's end.

Embedder: dream runs with `--embedder hashing` (bag-of-words vectors: fast, deterministic,
no model download), and consolidate takes the index's embedder, so every figure the
offline consolidate brain measures here (description similarity, split dispersion) is
measured on hashing vectors. The targets hold with the default embedder too (e5, and
MiniLM), measured by hand and listed in reme_workbench/samples/vault/README.md; this
test checks them with hashing only.

What the sample plants for each target (material only; the offline rules are untouched):
* a merge — one prod fix done twice, two weeks apart, under other titles and in other
  words but with the same values (daily/2026-10-17/settlement-batch-did-not-start.md,
  daily/2026-10-31/ledger-worker-leader-stuck.md): the second has a step the first lacks,
  so dream CREATEs a second note; consolidate's description and statement judges agree;
* uncertain pairs — notes of one kind the judges disagree on (the staging and the prod
  credential rotation, the PgBouncer notes); and a procedure logged twice for two
  merchants (daily/2026-10-09/replay-refund-webhook-dlq.md,
  daily/2026-10-30/refund-webhook-dlq-backlog.md), a candidate the judges keep apart:
  each log names its own merchant, ids and counts;
* split — daily/2026-10-26/new-laptop-dev-setup.md, one twelve-step procedure whose note is
  over the 2,000-token split threshold;
* hubs — communities stable from one week to the next.
"""

from __future__ import annotations

import json
import re
from datetime import date

from click.testing import CliRunner

from reme_workbench.cli import cli

MERGE_PAIR = {"digest/procedure/settlement-batch-did-not-start.md",
              "digest/procedure/ledger-worker-leader-stuck.md"}
TWO_MERCHANTS = {"digest/procedure/replay-refund-webhook-dlq.md",
                  "digest/procedure/refund-webhook-dlq-backlog.md"}
LONG_NOTE = "digest/procedure/new-laptop-dev-setup.md"
WEEKS = [(date(2026, 10, 5), date(2026, 10, 11)), (date(2026, 10, 12), date(2026, 10, 18)),
         (date(2026, 10, 19), date(2026, 10, 25)), (date(2026, 10, 26), date(2026, 11, 1))]


def run(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def phases(report: dict) -> dict[str, dict]:
    return {p["phase"]: p for p in report["phases"]}


def material_of(vault, first: date, last: date) -> list[str]:
    return sorted(str(p.relative_to(vault)) for layer in ("daily", "resource")
                  for p in (vault / layer).glob("*/*")
                  if first <= date.fromisoformat(p.parent.name) <= last)


def test_the_four_weeks_give_a_merge_uncertain_pairs_a_split_and_hubs(tmp_path):
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    created, weeks = set(), []
    for first, last in WEEKS:
        files = material_of(vault, first, last)
        assert files
        dreamt = run("--vault", str(vault), "dream", *files, "--embedder", "hashing", "--json")
        created |= {o["target_path"] for o in dreamt["outcomes"]
                    if o["action"] == "CREATE" and o["state"] == "applied"}
        weeks.append((dreamt, phases(run("--vault", str(vault), "consolidate", "--force", "--json"))))
    # two notes of one concept each time: dream did not corroborate
    assert MERGE_PAIR <= created and TWO_MERCHANTS <= created
    assert weeks[3][0]["split_candidates"] == [LONG_NOTE]  # queued, dream never waits

    # abstract: the first run has no previous communities, so no stability, so no hub
    assert weeks[0][1]["abstract"]["details"]["outcomes"] == []
    assert weeks[0][1]["abstract"]["details"]["blocked_by"]["stability"] >= 1
    hubs = [o for _, report in weeks[1:] for o in report["abstract"]["details"]["outcomes"]
            if o["state"] == "pending"]
    assert hubs and all(o["path"].startswith("digest/") for o in hubs)

    last = weeks[3][1]
    assert all(last[p]["ran"] for p in ("communities", "abstract", "merge", "split"))
    merge = last["merge"]["details"]
    # merge: the planted pair, two agreeing votes (the descriptions and the statements)
    stories = [json.loads((vault / "meta/proposals" / f"{p['id']}.json").read_text())["story"]
               for p in merge["proposals"]]
    proposed = [s for s in stories if {s["winner"], s["loser"]} == MERGE_PAIR]
    assert len(proposed) == 1, merge["proposals"]
    assert [v["judge"] for v in proposed[0]["votes"] if v["agrees"]] == [0, 1]
    # uncertain: pairs with one agreeing vote, in the audit report
    assert merge["uncertain"] and all(
        sum(v["agrees"] for v in u["votes"]) == 1 for u in merge["uncertain"])
    # the two merchants' replays: mined, never proposed (their values differ)
    assert not [s for s in stories if {s["winner"], s["loser"]} == TWO_MERCHANTS]
    assert TWO_MERCHANTS in [{c["a"], c["b"]} for c in
                             merge["dropped"] + [u["candidate"] for u in merge["uncertain"]]]
    report = (vault / merge["uncertain_report"]).read_text(encoding="utf-8")
    assert re.fullmatch(r"audit/\d{4}-\d{2}-\d{2}/dups_uncertain\.md", merge["uncertain_report"])
    sections = [line for line in report.splitlines() if line.startswith("## ")]
    assert len(sections) == len(merge["uncertain"]) and all("⟷" in s for s in sections)

    # split: the long procedure, judged dispersed, one proposal with children
    split = last["split"]["details"]["outcomes"]
    assert [(o["path"], o["state"]) for o in split] == [(LONG_NOTE, "pending")]
    assert split[0]["tokens"] > 2000 and len(split[0]["children"]) >= 2

    pending = run("--vault", str(vault), "proposals", "list", "--state", "pending", "--json")
    actions = {p["action"] for p in pending}
    assert {"consolidate.merge", "consolidate.split", "consolidate.abstract"} <= actions
    assert sum(p["action"] == "consolidate.abstract" for p in pending) == len(hubs)

    # consolidate --force again: a proposal that already waits, or an uncertain pair already
    # reported, is not said to be written again (its file is byte for byte the same); only
    # what is new is (a community whose stability now passes: it is measured against the
    # run a minute ago)
    before = {p.name: p.read_bytes() for p in (vault / "meta/proposals").glob("*.json")}
    dups = (vault / merge["uncertain_report"]).read_bytes()
    again = phases(run("--vault", str(vault), "consolidate", "--force", "--json"))
    waiting = {o["proposal"] for o in again["abstract"]["details"]["outcomes"]
               if o["state"] == "already-pending"}
    assert waiting and all(f"{pid}.json" in before for pid in waiting)
    said = [p for p in again["abstract"]["changed"] + again["merge"]["changed"]
            if p.startswith("meta/proposals/") or p.endswith("dups_uncertain.md")]
    assert not any(p.removeprefix("meta/proposals/") in before for p in said)
    assert not any(p.endswith("dups_uncertain.md") for p in said)
    assert all((vault / "meta/proposals" / name).read_bytes() == data
               for name, data in before.items())
    assert (vault / merge["uncertain_report"]).read_bytes() == dups
