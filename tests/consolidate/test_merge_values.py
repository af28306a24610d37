"""A merge keeps what both notes said (docs/spec.md §7.7.5, issue #24.3): every value the
statements of either note give — numbers, identifiers, names, commands, dates — is in
the merged body, or the merge is rejected with the missing values named (`keeps_values`).
So `[proposals] auto_apply` for merges is safe whichever brain wrote the body: a
scripted model (`ScriptedBrain`, raw JSON through the real validation path), the offline
brain, and a person's edit when they accept a held merge through
`reme-workbench proposals` / the ops layer (the stored check runs again)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.brains.factory import offline_consolidate_brain
from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings, Settings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import ACTION, MergeContext, plan_merges
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.ops import AcceptRequest, Workspace, accept_proposal
from reme_workbench.proposals.queue import Policy, ProposalQueue
from reme_workbench.textrules.values import statement_values
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

WINNER = "digest/procedure/deploy-payments-api.md"
LOSER = "digest/procedure/payments-api-deploy-steps.md"  # the longer path loses (§7.7.3)
D1 = "daily/2026-10-05/deploy.md"
D2 = "daily/2026-10-12/payments.md"
WINNER_BODY = (
    "1. Run the database migrations.\n"
    "2. Start the canary and watch the error rate on Grafana.\n\n"
    f"derived_from:: [[{D1}]]\n"
)
LOSER_BODY = (
    "Run the database migrations, then keep the canary on pg-staging-01 for 15 minutes.\n"
    "Run `make smoke` before you promote; Mei signs off, never on a Friday.\n\n"
    f"derived_from:: [[{D2}]]\n"
)
LOSER_VALUES = ["pg-staging-01", "15", "make smoke", "Mei", "Friday"]


def note(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Deploying the payments API.\n---\n{body}"


def make(make_vault) -> Vault:
    root = make_vault({WINNER: note("deploy-payments-api", WINNER_BODY),
                       LOSER: note("payments-api-deploy-steps", LOSER_BODY),
                       D1: "deploy log\n", D2: "payments log\n"})
    return Vault.open(root, clock=lambda: FIXED_NOW)


def merged(body: str) -> str:
    """The raw JSON a model would send for the merged note."""
    return json.dumps({"description": "Deploying the payments API.", "body": body})


WHOLE = WINNER_BODY.replace(f"derived_from:: [[{D1}]]\n", "") + "\n" + LOSER_BODY + \
    f"derived_from:: [[{D1}]]\n"
# what a model that "refines" writes: the loser's gist, its values gone
REWORDED = WINNER_BODY + "Keep the canary a while and smoke-test before promoting.\n" + \
    f"derived_from:: [[{D2}]]\n"


def brain(*merges: str) -> ScriptedBrain:
    scripted = ScriptedBrain()
    for _ in range(3):
        scripted.enqueue_vote({"is_same": True, "confidence": 0.95, "reason": "one runbook"})
    for reply in merges:
        scripted.enqueue_merge(reply)
    return scripted


def run(vault: Vault, scripted, **how):
    cand = MergeCandidate(*sorted((WINNER, LOSER)), "c_00", 0.9, 0.8, None)
    return plan_merges(vault, scripted, [cand], MergeSettings(),
                       MergeContext(now=FIXED_NOW, parallel_votes=False, **how))


def cli_json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_values_of_a_statement_are_read_as_written():
    assert statement_values(LOSER_BODY) == (
        "pg-staging-01", "15", "make smoke", "Mei", "Friday")
    body = ("## Port 6432\n\n1. Set `pool_mode = transaction` at 10:30 (see [[digest/wiki/x-1.md]]).\n"
            "```bash\nkubectl rollout restart deploy/payments-api\n```\n"
            "周报改到周五下午,用 helm 部署。\nstatus:: done in v2.14.0\n")
    assert statement_values(body) == (
        "pool_mode = transaction", "10:30", "kubectl rollout restart deploy/payments-api",
        "周五", "helm", "v2.14.0")  # no heading, list number, link or predicate


def test_a_body_that_drops_values_gets_one_retry_then_is_rejected_naming_them(make_vault):
    vault = make(make_vault)
    scripted = brain(merged(REWORDED), merged(REWORDED))
    result = run(vault, scripted, policy=Policy(frozenset({ACTION})))  # merges auto-apply
    assert result.proposals == () and len(result.rejected) == 1
    retry = [r for m, r in scripted.history if m == "merge"][1]
    assert retry.feedback is not None
    for value in LOSER_VALUES:
        assert f"`{value}`" in retry.feedback, value
    (stored,) = ProposalQueue(vault).list()
    assert stored.state == "rejected" and "keeps_values" in stored.error
    assert f"drops what {LOSER} said" in stored.error and "`pg-staging-01`" in stored.error
    assert (vault.root / LOSER).exists()  # nothing was written
    assert "15 minutes" not in (vault.root / WINNER).read_text()
    assert scripted.pending["merge"] == 0


def test_a_retry_that_keeps_every_value_applies_under_auto_apply(make_vault):
    vault = make(make_vault)
    scripted = brain(merged(REWORDED), merged(WHOLE))
    (done,) = run(vault, scripted, policy=Policy(frozenset({ACTION}))).proposals
    assert done.state == "applied"
    (check,) = [c for c in done.checks if c.name == "keeps_values"]
    assert check.params["values"][LOSER] == LOSER_VALUES
    text = (vault.root / WINNER).read_text()
    assert "pg-staging-01 for 15 minutes" in text and not (vault.root / LOSER).exists()


def test_the_winner_values_count_too(make_vault):
    vault = make(make_vault)
    scripted = brain(merged(WHOLE.replace(" on Grafana", "")), merged(WHOLE))
    (done,) = run(vault, scripted).proposals
    assert done.state == "pending"
    feedback = [r for m, r in scripted.history if m == "merge"][1].feedback
    assert f"drops what {WINNER} said: `Grafana`" in feedback


def test_a_held_merge_is_checked_again_when_a_person_accepts_it(make_vault):
    vault = make(make_vault)
    (held,) = run(vault, brain(merged(WHOLE))).proposals  # default: merges wait for a person
    assert held.state == "pending"
    shown = cli_json(vault.root, "proposals", "show", held.id)
    assert {"name": "keeps_values", "failures": []} in shown["story"]["checks"]
    planned = next(op.content.decode() for op in held.ops if op.path == WINNER)
    edited = planned.replace("for 15 minutes", "for a while")
    ws = Workspace(vault.root, embedder=HashingEmbedder())
    refused = accept_proposal(ws, AcceptRequest(id=held.id, edited={WINNER: edited}))
    assert refused.state == "rejected"
    assert "keeps_values" in refused.error and "`15`" in refused.error
    assert (vault.root / LOSER).exists()


def test_a_held_merge_accepted_through_the_cli_keeps_every_value(make_vault):
    vault = make(make_vault)
    (held,) = run(vault, brain(merged(WHOLE))).proposals
    assert cli_json(vault.root, "proposals", "accept", held.id)["state"] == "applied"
    text = (vault.root / WINNER).read_text()
    assert all(v in text for v in LOSER_VALUES) and not (vault.root / LOSER).exists()


def test_the_offline_brain_merge_keeps_the_losers_values(make_vault):
    vault = make(make_vault)
    offline = offline_consolidate_brain(HashingEmbedder(), Settings())
    (held,) = run(vault, offline, decided_by_person=True).proposals  # "merge anyway"
    assert held.state == "pending"
    assert {"name": "keeps_values", "failures": []} in held.story["checks"]
    body = next(op.content.decode() for op in held.ops if op.path == WINNER)
    assert all(v in body for v in LOSER_VALUES)
    assert cli_json(vault.root, "proposals", "accept", held.id)["state"] == "applied"
