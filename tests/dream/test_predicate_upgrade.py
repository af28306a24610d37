"""The predicate upgrade path (docs/spec.md §4.5.5, issue #24.1): an UPDATE may turn
`[[x]]` into `is_a:: [[x]]` (or back) when it says so in `predicate_changes`; E-1
(`keeps_outbound`) checks that only that predicate changed, and the audit line names the
old and the new edge. The model's reply is untrusted: it is validated at the boundary,
and an unlisted or lying change is refused like a dropped link.

Driven as a user would: a scripted model (`ScriptedBrain`, raw JSON replies through the
real validation path) dreams, the proposal waits, and a person shows and accepts it with
`reme-workbench proposals`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.dream.pipeline import Dreamer
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.llm.base import BrainError
from reme_workbench.llm.schema import IntegrateDecision
from reme_workbench.proposals import ProposalQueue
from reme_workbench.vault.checks import CheckSpec, build_check
from reme_workbench.vault.links import outbound_keys
from reme_workbench.vault.store import Changeset, CheckContext
from reme_workbench.vault.vault import Vault

LOG = "daily/2026-10-05/deploy.md"
LOG2 = "daily/2026-10-13/deploy-again.md"
NOTE = "digest/procedure/deploy-payments-api.md"
CANARY = "digest/wiki/canary.md"
RUNBOOK = "digest/wiki/runbook.md"
BODY = (
    "1. Run the canary for 10 minutes.\n2. Watch the error rate.\n"
    f"See [[{CANARY}]].\nis_a:: [[{RUNBOOK}]]\n\n"
    f"derived_from:: [[{LOG}]]\n"
)
TEXT = ("---\nname: deploy-payments-api\ndescription: How to deploy payments-api with a "
        "canary.\n---\n" + BODY)


@pytest.fixture
def vault(make_vault, clock):
    root = make_vault({
        LOG: "---\nname: deploy\ndescription: d\n---\nDeployed payments-api with a 10 minute canary.\n",
        LOG2: "---\nname: deploy-again\ndescription: d\n---\nThe canary step uses the canary "
              "release pattern; the deploy is a runbook.\n",
        NOTE: TEXT,
        CANARY: f"---\nname: canary\ndescription: Canary releases.\n---\nA canary.\nderived_from:: [[{LOG}]]\n",
        RUNBOOK: f"---\nname: runbook\ndescription: Runbooks.\n---\nA runbook.\nderived_from:: [[{LOG}]]\n",
    })
    return Vault.open(root, clock=clock)


@pytest.fixture
def index(vault):
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as idx:
        yield idx


UNIT = {"name": "Deploy payments-api", "bucket": "procedure",
        "summary": "Deploy payments-api with a canary and watch errors."}


def refine(body: str, changes=None) -> str:
    """The raw JSON a model would send: an untrusted reply, validated on the real path."""
    reply = {"action": "UPDATE", "flavor": "REFINE", "target_path": NOTE,
             "description": "How to deploy payments-api with a canary.", "body": body,
             "rationale": "The material says what the canary link is."}
    if changes is not None:
        reply["predicate_changes"] = changes
    return json.dumps(reply)


RETYPED = BODY.replace(f"See [[{CANARY}]].", f"uses:: [[{CANARY}]]") + f"derived_from:: [[{LOG2}]]\n"
TO_USES = [{"target": CANARY, "old": None, "new": "uses"}]


def dream(vault, index, *replies):
    brain = ScriptedBrain().enqueue_extract([UNIT])
    for reply in replies:
        brain.enqueue_integrate(reply)
    (outcome,) = Dreamer(vault, brain, index).run([LOG2]).outcomes
    return outcome, brain


def cli_json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_listed_retype_is_proposed_shown_accepted_and_audited(vault, index):
    outcome, brain = dream(vault, index, refine(RETYPED, TO_USES))
    assert (outcome.action, outcome.flavor, outcome.state) == ("UPDATE", "REFINE", "pending")
    assert brain.pending["integrate"] == 0  # no retry was needed
    shown = cli_json(vault.root, "proposals", "show", outcome.proposal_id)
    assert shown["story"]["predicate_changes"] == [{"target": CANARY, "old": None, "new": "uses"}]
    (check,) = [c for c in ProposalQueue(vault).load(outcome.proposal_id).checks
                if c.name == "keeps_outbound"]
    assert check.params["retypes"] == [[CANARY, None, "uses"]]

    accepted = cli_json(vault.root, "proposals", "accept", outcome.proposal_id)
    assert accepted["state"] == "applied", accepted
    keys = outbound_keys((vault.root / NOTE).read_text())
    assert (CANARY, "uses") in keys and (CANARY, None) not in keys
    assert (RUNBOOK, "is_a") in keys and (LOG, "derived_from") in keys
    (audit,) = (vault.root / "audit").rglob("proposals.md")
    line = next(ln for ln in audit.read_text().splitlines() if outcome.proposal_id in ln)
    assert f"retypes `[[{CANARY}]]` → `uses:: [[{CANARY}]]` in [[{NOTE}]]" in line


def test_a_typed_link_may_go_back_to_a_plain_one(vault, index):
    back = BODY.replace(f"is_a:: [[{RUNBOOK}]]", f"[[{RUNBOOK}]]") + f"derived_from:: [[{LOG2}]]\n"
    outcome, _ = dream(vault, index, refine(back, [{"target": RUNBOOK, "old": "is_a", "new": None}]))
    assert outcome.state == "pending", outcome.message
    assert ProposalQueue(vault).accept(outcome.proposal_id).state == "applied"
    keys = outbound_keys((vault.root / NOTE).read_text())
    assert (RUNBOOK, None) in keys and (RUNBOOK, "is_a") not in keys


def test_an_unlisted_retype_is_a_dropped_link_retried_then_rejected(vault, index):
    outcome, brain = dream(vault, index, refine(RETYPED), refine(RETYPED))
    assert outcome.action == "FAILED" and outcome.state == "rejected"
    retry = [r for m, r in brain.history if m == "integrate"][1]
    assert f"drops the link [[{CANARY}]]" in retry.feedback
    assert (vault.root / NOTE).read_text() == TEXT


def test_a_listed_retype_may_not_hide_another_lost_link(vault, index):
    lost = RETYPED.replace(f"is_a:: [[{RUNBOOK}]]", "a runbook")
    outcome, _ = dream(vault, index, refine(lost, TO_USES), refine(lost, TO_USES))
    assert outcome.state == "rejected"
    assert f"drops the link is_a:: [[{RUNBOOK}]]" in outcome.message
    assert (vault.root / NOTE).read_text() == TEXT


def test_a_retype_that_drops_the_target_names_both_edges(vault, index):
    gone = BODY.replace(f"See [[{CANARY}]].", "See the canary.") + f"derived_from:: [[{LOG2}]]\n"
    outcome, _ = dream(vault, index, refine(gone, TO_USES), refine(gone, TO_USES))
    assert outcome.state == "rejected"
    assert (f"drops the link uses:: [[{CANARY}]] (retyped from [[{CANARY}]]" in outcome.message)


def test_a_retype_of_a_link_the_note_lacks_is_refused_with_its_links(vault, index):
    wrong = [{"target": "digest/wiki/elsewhere.md", "old": None, "new": "uses"}]
    outcome, brain = dream(vault, index, refine(RETYPED, wrong), refine(RETYPED, wrong))
    assert outcome.action == "FAILED" and outcome.state == "failed"
    retry = [r for m, r in brain.history if m == "integrate"][1]
    assert "digest/wiki/elsewhere.md" in retry.feedback and f"is_a:: [[{RUNBOOK}]]" in retry.feedback
    assert (vault.root / NOTE).read_text() == TEXT


@pytest.mark.parametrize("change, why", [
    ({"target": CANARY, "old": None, "new": None}, "same predicate"),
    ({"target": f"{CANARY}#Intro", "old": None, "new": "uses"}, "#anchor"),
    ({"target": CANARY, "old": None, "new": "is a"}, "a predicate is"),
    ({"target": LOG, "old": "derived_from", "new": None}, "provenance"),
    ({"target": CANARY, "old": None, "new": "x" * 65}, "at most 64"),
])
def test_an_untrusted_change_is_refused_at_the_boundary(vault, index, change, why):
    bad = refine(RETYPED, [change])
    with pytest.raises(ValueError, match=why):
        IntegrateDecision.model_validate_json(bad)
    outcome, _ = dream(vault, index, bad, bad)  # asked again, then the unit fails
    assert outcome.state == "failed" and (vault.root / NOTE).read_text() == TEXT


def test_create_takes_no_predicate_changes_and_the_list_is_bounded():
    create = {"action": "CREATE", "name": "n", "description": "d", "body": "b",
              "predicate_changes": TO_USES}
    with pytest.raises(ValueError, match="CREATE has no old links"):
        IntegrateDecision.model_validate(create)
    many = [{"target": f"digest/wiki/n{i}.md", "old": None, "new": "uses"} for i in range(11)]
    with pytest.raises(ValueError, match="at most 10"):
        IntegrateDecision.model_validate_json(refine(RETYPED, many))
    with pytest.raises(BrainError):
        ScriptedBrain().enqueue_integrate(refine(RETYPED, many)).enqueue_integrate(
            refine(RETYPED, many)).integrate(_request())


def _request():
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit
    return IntegrateRequest(Material(LOG2, "text"), MemoryUnit(**UNIT),
                            (CandidateNote(NOTE, "deploy-payments-api", "d", BODY),))


def _run(spec: CheckSpec, before: str, after: str) -> list[str]:
    ctx = CheckContext(Changeset(ops=()), {NOTE: before.encode()}, {NOTE: after.encode()})
    return build_check(spec).fn(ctx)


def test_the_stored_check_allows_only_the_named_predicate_change():
    keys = sorted([list(k) for k in outbound_keys(TEXT)], key=lambda k: (k[0], k[1] or ""))
    retyped = TEXT.replace(f"See [[{CANARY}]].", f"uses:: [[{CANARY}]]")
    plain = CheckSpec("keeps_outbound", {"path": NOTE, "keys": keys})
    named = CheckSpec("keeps_outbound", {"path": NOTE, "keys": keys,
                                         "retypes": [[CANARY, None, "uses"]]})
    assert _run(plain, TEXT, retyped) == [f"{NOTE} drops the link [[{CANARY}]]"]
    assert _run(named, TEXT, retyped) == []
    assert _run(named, TEXT, TEXT) != []  # the change was named: the old edge alone is not it
    other = CheckSpec("keeps_outbound", {"path": NOTE, "keys": keys,
                                         "retypes": [[CANARY, "is_a", "uses"]]})
    assert any("which the note does not have" in f for f in _run(other, TEXT, retyped))
    prov = CheckSpec("keeps_outbound", {"path": NOTE, "keys": keys,
                                        "retypes": [[LOG, "derived_from", None]]})
    assert any("never retyped" in f for f in _run(prov, TEXT, TEXT))
