"""A merge keeps every statement of both notes (docs/spec.md §7.7.5, issue #29.8/12):
each sentence of either body — with its negations and qualifiers — must be in the
merged body (case, spacing, emphasis and link form aside). A sentence that is not is
listed as dropped in the proposal's story, its review and the audit line, and the merge
waits for a person whatever `[proposals] auto_apply` says. `keeps_values` alone let
"Never deploy on a Friday; Mei signs off" become "Always deploy on Friday, Mei or not":
the values (Friday, Mei) were all there."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import ACTION, MergeContext, plan_merges
from reme_workbench.consolidate.merge_statements import dropped_statements, note_sentences
from reme_workbench.proposals.queue import Policy, ProposalQueue
from reme_workbench.review.merges import merge_review
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

WINNER = "digest/procedure/deploy-payments-api.md"
LOSER = "digest/procedure/payments-api-deploy-rules.md"  # the longer path loses
D1 = "daily/2026-10-05/deploy.md"
D2 = "daily/2026-10-12/payments.md"
AUTO = Policy(frozenset({ACTION}))

WINNER_BODY = (
    "1. Run the database migrations.\n"
    "2. Start the canary and watch the error rate.\n\n"
    f"derived_from:: [[{D1}]]\n"
)
LOSER_BODY = (
    "Never deploy on a Friday; Mei signs off.\n"
    "Roll back with the previous tag. Tell the team *before* you roll back.\n\n"
    f"derived_from:: [[{D2}]]\n"
)
# what a model that "tidies up" writes: every value kept (Friday, Mei), the rule reversed,
# two sentences without values gone
REVERSED = (
    "1. Run the database migrations.\n"
    "2. Start the canary and watch the error rate.\n\n"
    "Always deploy on Friday, Mei or not.\n\n"
    f"derived_from:: [[{D1}]]\nderived_from:: [[{D2}]]\n"
)
KEPT = (
    "1. Run the database migrations.\n"
    "2. Start the **canary** and watch the error rate\n\n"  # emphasis, no full stop: kept
    "## From payments-api-deploy-rules\n\n"
    "- never deploy on a friday;  Mei signs off.\n"
    "- Roll back with the previous tag.\n- Tell the team before you roll back.\n\n"
    f"derived_from:: [[{D1}]]\nderived_from:: [[{D2}]]\n"
)
DROPPED = ["Never deploy on a Friday; Mei signs off.", "Roll back with the previous tag.",
           "Tell the team *before* you roll back."]


def note(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Deploying the payments API.\n---\n{body}"


def make(make_vault) -> Vault:
    root = make_vault({WINNER: note("deploy-payments-api", WINNER_BODY),
                       LOSER: note("payments-api-deploy-rules", LOSER_BODY),
                       D1: "deploy log\n", D2: "payments log\n"})
    return Vault.open(root, clock=lambda: FIXED_NOW)


def brain(*bodies: str) -> ScriptedBrain:
    scripted = ScriptedBrain()
    for _ in range(3):
        scripted.enqueue_vote({"is_same": True, "confidence": 0.95, "reason": "one runbook"})
    for body in bodies:
        scripted.enqueue_merge(json.dumps({"description": "Deploying the payments API.",
                                           "body": body}))
    return scripted


def run(vault: Vault, scripted, **how):
    cand = MergeCandidate(*sorted((WINNER, LOSER)), "c_00", 0.9, 0.8, None)
    return plan_merges(vault, scripted, [cand], MergeSettings(),
                       MergeContext(now=FIXED_NOW, parallel_votes=False, **how))


def test_the_sentences_of_a_note_keep_their_negations_and_qualifiers():
    assert note_sentences(LOSER_BODY) == tuple(DROPPED)
    assert note_sentences("## 规则\n\n- 周五不要部署；梅批准。只在白天回滚。\n> [!warning] Only "
                          "on weekdays, unless Mei says so.\n") == (
        "周五不要部署；", "梅批准。", "只在白天回滚。", "Only on weekdays, unless Mei says so.")


def test_a_reversed_rule_and_two_lost_sentences_are_listed_and_the_merge_waits(make_vault):
    vault = make(make_vault)
    scripted = brain(REVERSED, REVERSED)  # the retry asked to keep them sends it again
    (held,) = run(vault, scripted, policy=AUTO).proposals  # merges would auto-apply
    assert held.state == "pending" and held.story["held_for_person"] is True
    dropped = held.story["dropped_statements"]
    assert [(d["note"], d["sentence"]) for d in dropped] == [(LOSER, s) for s in DROPPED]
    never = dropped[0]
    assert never["closest"] == "Always deploy on Friday, Mei or not."
    assert never["qualifiers"] == {"lost": ["never"], "new": ["always", "not"]}
    assert {"name": "keeps_values", "failures": []} in held.story["checks"]  # values all there
    retry = [r for m, r in scripted.history if m == "merge"][1]
    assert "Never deploy on a Friday; Mei signs off." in retry.feedback
    review = merge_review(ProposalQueue(vault).load(held.id))
    assert [d["sentence"] for d in review.dropped_statements] == DROPPED
    audit = (vault.root / "audit/2026-11-02/consolidate_actions.md").read_text(encoding="utf-8")
    assert "3 statement(s) dropped" in audit and "Never deploy on a Friday" in audit
    assert (vault.root / LOSER).exists()  # nothing applied


def test_the_cli_shows_the_dropped_sentences(make_vault):
    vault = make(make_vault)
    (held,) = run(vault, brain(REVERSED, REVERSED)).proposals
    result = CliRunner().invoke(cli, ["--vault", str(vault.root), "proposals", "show", held.id,
                                      "--text"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "dropped_statements" in result.output and "Never deploy on a Friday" in result.output


def test_a_body_keeping_every_sentence_applies_under_auto_apply(make_vault):
    vault = make(make_vault)
    (done,) = run(vault, brain(KEPT), policy=AUTO).proposals
    assert done.state == "applied", done.error
    assert done.story["dropped_statements"] == []


def test_a_person_may_still_accept_a_merge_that_drops_sentences(make_vault):
    vault = make(make_vault)
    (held,) = run(vault, brain(REVERSED, REVERSED)).proposals
    result = CliRunner().invoke(cli, ["--vault", str(vault.root), "proposals", "accept",
                                      held.id, "--json"], catch_exceptions=False)
    assert json.loads(result.stdout)["state"] == "applied"


def test_links_count_by_what_they_name_and_self_links_by_their_words():
    before = {WINNER: "See [[canary-rollout|the canary]] first.\n",
              LOSER: f"Ask [[{WINNER}|the runbook]] and [[payments-api-deploy-rules]].\n"
                     "- [[deploy-payments-api]]\n"}
    merged = ("See [[digest/wiki/canary-rollout.md|the canary]] first.\n"
              "Ask the runbook and payments-api-deploy-rules.\n")
    names = {WINNER: "deploy-payments-api", LOSER: "payments-api-deploy-rules"}
    assert dropped_statements(before, merged, names) == []
    assert [d["sentence"] for d in dropped_statements(
        before, merged.replace("first", "last"), names)] == ["See [[canary-rollout|the canary]] first."]


def test_the_review_screens_list_the_dropped_sentences(make_vault):
    from reme_workbench.review.proposals import story_sections

    vault = make(make_vault)
    (held,) = run(vault, brain(REVERSED, REVERSED)).proposals
    (section,) = [s for s in story_sections(ProposalQueue(vault).load(held.id))
                  if s.title == "Sentences the merged note drops"]
    assert section.rows[0] == (LOSER, DROPPED[0], "Always deploy on Friday, Mei or not.")
    pytest.importorskip("ipywidgets")
    from reme_workbench.widgets import MergeVotesView

    view = MergeVotesView(vault)
    assert view.list.value == held.id
    assert "Sentences the merged note drops" in view.detail.value
    assert "Tell the team *before* you roll back." in view.detail.value
