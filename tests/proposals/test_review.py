"""The review layer (reme_workbench.review): what a person reads about a proposal and what
they decide — filters, the story per kind, diffs with the links they add and remove,
accept / edit-then-accept / reject, a batch, and a stale proposal planned again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.dream.pipeline import Dreamer
from reme_workbench.errors import RemeError
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.ops import Workspace, accept_many, decide, replan
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.review import (
    ReviewFilter,
    bucket_of,
    checks_of,
    file_diffs,
    material_of,
    story_sections,
)
from reme_workbench.vault.vault import Vault

LOG = "daily/2026-10-05/deploy.md"
LOG2 = "daily/2026-10-13/deploy-again.md"
EXISTING = "digest/procedure/deploy-payments-api.md"
EXISTING_TEXT = (
    "---\nname: deploy-payments-api\ndescription: How to deploy payments-api with a canary.\n---\n"
    "1. Run the canary for 10 minutes.\n2. Watch the error rate.\n"
    "See [[digest/wiki/canary.md]].\n\n"
    f"derived_from:: [[{LOG}]]\n"
)
NEW = "digest/personal/prefer-uv.md"


@pytest.fixture
def vault(make_vault, clock):
    root = make_vault({
        LOG: "---\nname: deploy\ndescription: d\n---\nDeployed payments-api with a 10 minute canary. Use uv.\n",
        LOG2: "---\nname: deploy-again\ndescription: d\n---\nDeployed payments-api again; canary now 15 minutes.\n",
        EXISTING: EXISTING_TEXT,
        "digest/wiki/canary.md": f"---\nname: canary\ndescription: Canary releases.\n---\nA canary.\nderived_from:: [[{LOG}]]\n",
    })
    return Vault.open(root, clock=clock)


@pytest.fixture
def pending(vault):
    """Two proposals held for review: a CREATE from LOG and a REFINE of EXISTING from LOG2."""
    refined = (EXISTING_TEXT.split("---\n", 2)[2].replace("10 minutes", "15 minutes")
               + "Watch [[digest/wiki/error-budget.md|the error budget]] too.\n"
               + f"derived_from:: [[{LOG2}]]\n")
    brain = (ScriptedBrain()
             .enqueue_extract([{"name": "Prefer uv", "bucket": "personal", "summary": "Use uv."}])
             .enqueue_integrate({"action": "CREATE", "name": "Prefer uv", "description": "Always uv.",
                                 "body": f"Use uv, never sudo pip.\n\nderived_from:: [[{LOG}]]\n"})
             .enqueue_extract([{"name": "Deploy payments-api", "bucket": "procedure",
                                "summary": "Deploy payments-api with a 15 minute canary."}])
             .enqueue_integrate({"action": "UPDATE", "flavor": "REFINE", "target_path": EXISTING,
                                 "description": "How to deploy payments-api with a 15 minute canary.",
                                 "body": refined}))
    (vault.root / "digest/wiki/error-budget.md").write_text(
        f"---\nname: error-budget\ndescription: The error budget.\n---\nBudget.\nderived_from:: [[{LOG}]]\n")
    vault.refresh()
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as idx:
        report = Dreamer(vault, brain, idx, policy=Policy.hold_everything()).run([LOG, LOG2])
    ids = {o.target_path: o.proposal_id for o in report.outcomes}
    assert all(o.state == "pending" for o in report.outcomes)
    return ids[NEW], ids[EXISTING]


def test_filters_pick_by_state_action_bucket_and_material(vault, pending):
    create, refine = pending
    queue = ProposalQueue(vault)
    every = queue.list()
    assert {p.id for p in ReviewFilter().pick(every)} == {create, refine}
    assert [p.id for p in ReviewFilter(actions=("dream.refine",)).pick(every)] == [refine]
    assert [p.id for p in ReviewFilter(bucket="personal").pick(every)] == [create]
    assert [p.id for p in ReviewFilter(material=LOG2).pick(every)] == [refine]
    assert ReviewFilter(actions=("consolidate.",)).pick(every) == []
    assert ReviewFilter(state="applied").pick(every) == []
    p = queue.load(create)
    assert (bucket_of(p), material_of(p)) == ("personal", LOG)


def test_the_story_of_a_dream_proposal_reads_as_sections(vault, pending):
    refine = ProposalQueue(vault).load(pending[1])
    sections = {s.title: s for s in story_sections(refine)}
    assert list(sections)[:5] == ["Proposal", "Material", "Unit", "Recall evidence", "The brain's decision"]
    assert sections["Material"].lines == (LOG2,)
    assert sections["Unit"].lines[0] == "Deploy payments-api (procedure)"
    evidence = sections["Recall evidence"]
    assert evidence.header == ("note", "score", "via", "shown to the brain")
    assert EXISTING in [row[0] for row in evidence.rows]
    assert next(r for r in evidence.rows if r[0] == EXISTING)[3] == "yes"
    assert sections["The brain's decision"].lines[0] == f"UPDATE REFINE {EXISTING}"
    checks = sections["Checks"]
    assert ("keeps_outbound", "pass", "") in checks.rows
    assert sections["Tokens"].lines == ("prompt 0 · completion 0 · cached 0",)
    assert {name for name, ok, _ in checks_of(refine) if ok} >= {"keeps_outbound", "has_provenance"}


def test_a_diff_per_file_with_the_links_added_and_removed(vault, pending):
    refine = ProposalQueue(vault).load(pending[1])
    (diff,) = file_diffs(refine)
    assert (diff.path, diff.kind) == (EXISTING, "edit")
    assert "-1. Run the canary for 10 minutes." in diff.lines
    assert "+1. Run the canary for 15 minutes." in diff.lines
    assert diff.links_added == (f"derived_from:: [[{LOG2}]]", "[[digest/wiki/error-budget.md]]")
    assert diff.links_removed == ()
    (created,) = file_diffs(ProposalQueue(vault).load(pending[0]))
    assert created.kind == "create" and created.old == "" and "Use uv" in created.new
    assert created.links_added == (f"derived_from:: [[{LOG}]]",)


def test_accept_applies_and_reject_records_the_reason(vault, pending):
    create, refine = pending
    done = decide(vault, create, "accept")
    assert done.state == "applied" and done.ok and (vault.root / NEW).is_file()
    gone = decide(vault, refine, "reject", reason="the canary is still 10 minutes")
    assert gone.state == "rejected"
    assert ProposalQueue(vault).load(refine).error == "the canary is still 10 minutes"
    assert (vault.root / EXISTING).read_text() == EXISTING_TEXT
    with pytest.raises(RemeError, match="only pending proposals"):
        decide(vault, refine, "accept")
    with pytest.raises(RemeError, match="Unknown decision"):
        decide(vault, create, "maybe")


def test_an_edited_body_is_judged_by_the_same_checks(vault, pending):
    refine = pending[1]
    new = file_diffs(ProposalQueue(vault).load(refine))[0].new
    # the person drops the old link to the canary note: E-1 refuses it, nothing is written
    broken = new.replace("See [[digest/wiki/canary.md]].\n", "")
    refused = decide(vault, refine, "accept", edited={EXISTING: broken})
    assert refused.state == "rejected" and "keeps_outbound" in refused.message
    assert (vault.root / EXISTING).read_text() == EXISTING_TEXT


def test_an_edit_that_keeps_the_rules_applies_as_edited(vault, pending):
    refine = pending[1]
    new = file_diffs(ProposalQueue(vault).load(refine))[0].new
    mine = new.replace("15 minutes", "15 minutes (since INC-2026-031)")
    done = decide(vault, refine, "accept", edited={EXISTING: mine})
    assert done.state == "applied" and "edited" in done.message
    assert (vault.root / EXISTING).read_text() == mine
    assert ProposalQueue(vault).load(refine).story["edited_by_person"] == [EXISTING]


def test_a_batch_accepts_each_and_reports_the_one_that_went_stale(vault, pending):
    create, refine = pending
    (vault.root / EXISTING).write_text(EXISTING_TEXT + "A person's line.\n")  # changed since planned
    results = accept_many(vault, [create, refine, "p-no-such-proposal"])
    assert [r.state for r in results] == ["applied", "stale", "error"]
    assert "Re-plan it" in results[1].message
    assert "No proposal" in results[2].message
    assert (vault.root / EXISTING).read_text().endswith("A person's line.\n")  # not overwritten


def test_a_stale_dream_proposal_is_planned_again_from_the_file_as_it_is(vault, pending):
    refine = pending[1]
    (vault.root / EXISTING).write_text(EXISTING_TEXT + "A person's line.\n")
    assert decide(vault, refine, "accept").state == "stale"
    body = (EXISTING_TEXT.split("---\n", 2)[2] + "A person's line.\n").replace("10 minutes", "15 minutes")
    brain = ScriptedBrain().enqueue_integrate({
        "action": "UPDATE", "flavor": "REFINE", "target_path": EXISTING,
        "description": "How to deploy payments-api with a 15 minute canary.",
        "body": body + f"derived_from:: [[{LOG2}]]\n"})
    again = replan(Workspace(vault.root, vault=vault, embedder=HashingEmbedder(), dream_brain=brain),
                   refine)
    assert again.state == "rejected" and len(again.new_ids) == 1
    queue = ProposalQueue(vault)
    assert "superseded" in queue.load(refine).error
    fresh = queue.load(again.new_ids[0])
    assert fresh.state == "pending"  # a re-plan waits for the person, whatever the policy
    request = [r for m, r in brain.history if m == "integrate"][0]
    assert "A person's line." in next(c.body for c in request.candidates if c.path == EXISTING)
    assert decide(vault, fresh.id, "accept").state == "applied"
    text = (vault.root / EXISTING).read_text()
    assert "A person's line." in text and "15 minutes" in text


def test_only_a_stale_proposal_is_planned_again(vault, pending):
    with pytest.raises(RemeError, match="only a stale proposal"):
        replan(vault, pending[0])


def test_a_dream_story_edited_out_of_shape_is_refused_with_what_to_do(vault, pending):
    """The proposal file is a trust boundary: a unit that is not a unit is one line saying
    what to do (dream.pipeline.UnitOrigin.from_json), not pydantic's traceback."""
    refine = pending[1]
    (vault.root / EXISTING).write_text(EXISTING_TEXT + "A person's line.\n")
    assert decide(vault, refine, "accept").state == "stale"
    queue = ProposalQueue(vault)
    old = queue.load(refine)
    queue.save(replace(old, story={**old.story, "unit": {"name": 5, "bucket": "nowhere"}}))
    ws = Workspace(vault.root, vault=vault, embedder=HashingEmbedder(), dream_brain=ScriptedBrain())
    with pytest.raises(RemeError, match="does not say which material and unit.*reme-workbench dream"):
        replan(ws, refine)
