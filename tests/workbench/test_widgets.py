"""The workbench's review screens, driven from Python as a person drives them: pick,
click, then look at the vault."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from reme_workbench.brains.scripted import ScriptedBrain  # noqa: E402
from reme_workbench.config import ArchiveSettings, CommunitySettings  # noqa: E402
from reme_workbench.consolidate.archive import recency_score, update_archive  # noqa: E402
from reme_workbench.consolidate.communities import update_communities  # noqa: E402
from reme_workbench.index.embeddings import HashingEmbedder  # noqa: E402
from reme_workbench.ops import Workspace  # noqa: E402
from reme_workbench.proposals import ProposalQueue  # noqa: E402
from reme_workbench.vault.meta import log_access  # noqa: E402
from reme_workbench.vault.vault import Vault  # noqa: E402
from reme_workbench.widgets import (  # noqa: E402
    ArchiveView,
    CommunitiesView,
    MergeVotesView,
    ProposalQueueView,
    UncertainView,
)
from tests.conftest import FIXED_NOW  # noqa: E402
from tests.proposals.test_review import EXISTING, EXISTING_TEXT, NEW, pending, vault  # noqa: E402,F401
from tests.proposals.test_review_consolidate import A, B, clusters, pair_vault  # noqa: E402


def test_the_queue_filters_shows_the_story_and_the_diff(vault, pending):  # noqa: F811
    create, refine = pending
    view = ProposalQueueView(vault)
    assert set(view.shown) == {create, refine} and "<b>2</b> of 2" in view.count.value
    view.action.value = "dream.refine"
    assert view.shown == [refine] and view.selected == refine
    html = view.detail.value
    assert "Recall evidence" in html and "The brain&#x27;s decision" in html and "Checks" in html
    assert "reme-link-added" in html and "error-budget.md" in html  # the link it adds, marked
    view.action.value = ""
    view.bucket.value = "personal"
    assert view.shown == [create]
    view.bucket.value = ""
    view.material.value = "daily/2026-10-13/deploy-again.md"
    assert view.shown == [refine]


def test_accept_and_reject_buttons_change_the_vault(vault, pending):  # noqa: F811
    create, refine = pending
    view = ProposalQueueView(vault)
    view.select(create)
    view.accept_button.click()
    assert (vault.root / NEW).is_file() and "applied" in view.status.value
    assert view.shown == [refine]  # the pending list no longer holds it
    view.reason.value = "not yet"
    view.reject_button.click()
    assert ProposalQueue(vault).load(refine).state == "rejected"
    assert (vault.root / EXISTING).read_text() == EXISTING_TEXT and view.shown == []


def test_choosing_another_proposal_clears_what_was_said_and_typed(vault, pending):  # noqa: F811
    create, refine = pending
    view = ProposalQueueView(vault, state="")
    view.select(create)
    view.reason.value = "not this one"
    view.reject_button.click()
    assert "rejected" in view.status.value and view.reason.value == ""  # said about the reject
    view.reason.value = "half-typed"
    view.select(refine)
    assert view.status.value == "" and view.reason.value == ""  # nothing about the last one


def test_the_editors_are_labelled_by_the_whole_path(vault, pending):  # noqa: F811
    view = ProposalQueueView(vault)
    view.select(pending[1])
    view.edit_button.click()
    labels = [box.children[0].value for box in view.edit_box.children[1:-1]]
    assert labels == [f"<code>{EXISTING}</code>"]


def test_edit_then_accept_is_judged_by_the_same_checks(vault, pending):  # noqa: F811
    refine = pending[1]
    view = ProposalQueueView(vault)
    view.select(refine)
    view.edit_button.click()
    box = view.editors[EXISTING]
    box.value = box.value.replace("See [[digest/wiki/canary.md]].\n", "")  # drops an old link
    view.accept_edited_button.click()
    assert "keeps_outbound" in view.status.value
    assert (vault.root / EXISTING).read_text() == EXISTING_TEXT
    view.state.value = "rejected"
    assert view.shown == [refine]


def test_batch_accept_asks_first_and_says_how_many(vault, pending):  # noqa: F811
    view = ProposalQueueView(vault)
    view.batch_button.click()
    assert view.confirm_box.layout.display == "flex" and view.confirm_button.description == "Accept 2"
    assert ProposalQueue(vault).list("applied") == []  # nothing yet
    view.cancel_button.click()
    assert "cancelled" in view.status.value and len(view.shown) == 2
    view.batch_button.click()
    view.confirm_button.click()
    assert "2 of 2 applied" in view.status.value
    assert len(ProposalQueue(vault).list("applied")) == 2 and view.shown == []


def test_a_stale_proposal_says_so_and_replans(vault, pending):  # noqa: F811
    refine = pending[1]
    (vault.root / EXISTING).write_text(EXISTING_TEXT + "A person's line.\n")
    brain = ScriptedBrain().enqueue_integrate({
        "action": "UPDATE", "flavor": "CORROBORATE", "target_path": EXISTING,
        "description": "How to deploy payments-api with a canary.",
        "body": EXISTING_TEXT.split("---\n", 2)[2] + "A person's line.\n"
                + "derived_from:: [[daily/2026-10-13/deploy-again.md]]\n"})
    view = ProposalQueueView(Workspace(vault.root, vault=vault, embedder=HashingEmbedder(),
                                       dream_brain=brain))
    view.select(refine)
    view.accept_button.click()
    assert "stale" in view.status.value and "Re-plan" in view.status.value
    view.state.value = "stale"
    view.select(refine)
    assert not view.replan_button.disabled
    view.replan_button.click()
    assert "planned again as" in view.status.value
    fresh = view.selected
    assert fresh != refine and ProposalQueue(vault).load(fresh).state == "pending"
    view.accept_button.click()
    assert (vault.root / EXISTING).read_text().count("A person's line.") == 1


def test_communities_view_plots_gates_and_a_drawing(make_vault):
    v = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    empty = CommunitiesView(v)
    assert "No communities yet" in empty.status.value and empty.community.options == ()
    assert empty.plots.children == ()
    update_communities(v, CommunitySettings(), now=FIXED_NOW - timedelta(days=7))
    update_communities(v, CommunitySettings(), now=FIXED_NOW)
    view = CommunitiesView(v)
    assert len(view.community.options) == 2
    assert len(view.plots.children) == 2  # sizes and stability
    assert "Abstract gates" in view.detail.value and "min_nodes" in view.detail.value
    assert len(view.drawing.children) == 1
    # each gate says the comparison it makes: a share under the cut means "no hub yet"
    assert ">no_hub</td>" in view.detail.value and ">&lt; 0.6</td>" in view.detail.value
    assert ">≥ 5</td>" in view.detail.value
    view.community.value = view.community.options[1][1]
    assert "✗" in view.detail.value  # the small community fails min_nodes


def test_a_community_whose_hub_waits_says_so(make_vault):
    v = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    update_communities(v, CommunitySettings(), now=FIXED_NOW - timedelta(days=7))
    update_communities(v, CommunitySettings(), now=FIXED_NOW)
    view = CommunitiesView(v)
    big = view.overview.communities[0]
    queue = ProposalQueue(v)
    waiting = queue.new("consolidate.abstract", "hub", [], story={"members": list(big.members)})
    queue.save(waiting)
    view.refresh()
    view.community.value = big.id
    # nobody used its notes lately, so a gate stops it: the proposal is named, not offered
    # (tests/workbench/test_hub_screens.py has the community whose gates pass)
    assert waiting.id in view.detail.value and "waits for you" not in view.detail.value
    assert "a hub is proposed at the next weekly run" not in view.detail.value
    assert view.overview.get(big.id).waiting_hub == waiting.id


def test_archive_view_thaws_by_hand(make_vault):
    later = FIXED_NOW + timedelta(days=400)
    v = Vault.open(make_vault(clusters()), clock=lambda: later)
    for path in v.scan.records:  # dreamt at FIXED_NOW (else adopted by the first batch)
        if path.startswith("digest/"):
            log_access(v.root, path, FIXED_NOW, "dream.create")
    update_archive(v, ArchiveSettings(max_share_per_run=1.0), now=later)  # nine: no cap
    view = ArchiveView(v)
    assert len(view.archived.options) == 9 and len(view.plot.children) == 1
    first = view.archived.value
    view.thaw_button.click()
    assert "Thawed" in view.status.value and first not in [v for _, v in view.archived.options]
    assert first not in (v.root / "meta/archived.json").read_text()


def test_uncertain_view_routes_each_pair(make_vault):
    v = pair_vault(make_vault)
    view = UncertainView(v)
    assert len(view.list.options) == 1 and "Suggestion" in view.detail.value
    view.keep_button.click()
    assert "Kept both" in view.status.value and view.list.options == ()
    # a second v: merge anyway, then accept the merge right there
    vault2 = pair_vault(make_vault, name="vault2")
    brain = ScriptedBrain()
    for judge, same in ((0, False), (1, True), (2, False)):
        brain.enqueue_vote({"is_same": same, "confidence": 0.9, "reason": f"judge {judge}"}, judge=judge)
    brain.enqueue_merge({"description": "How to deploy the payments API",
                         "body": (vault2.root / A).read_text().split("---\n", 2)[2]
                         + "Watch the dashboard.\n\nderived_from:: [[daily/2026-10-12/payments.md]]\n"})
    view2 = UncertainView(Workspace(vault2.root, vault=vault2, consolidate_brain=brain))
    view2.merge_button.click()
    assert "Merge proposal" in view2.status.value and view2.made_id
    assert view2.accept_made_button.layout.display == ""
    merges = MergeVotesView(vault2)
    assert merges.list.value == view2.made_id and "Votes: 1 of 3 agree" in merges.detail.value
    assert "A person decided to merge" in merges.detail.value
    view2.accept_made_button.click()
    assert not (vault2.root / B).exists() and "applied" in view2.status.value


def test_merge_votes_view_rejects(make_vault):
    v = pair_vault(make_vault)
    brain = ScriptedBrain()
    for judge in range(3):
        brain.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": "same"}, judge=judge)
    brain.enqueue_merge({"description": "d", "body": (v.root / A).read_text().split("---\n", 2)[2]
                         + "Watch the dashboard.\n\nderived_from:: [[daily/2026-10-12/payments.md]]\n"})
    from reme_workbench.config import MergeSettings
    from reme_workbench.consolidate.candidates import MergeCandidate
    from reme_workbench.consolidate.merge import MergeContext, plan_merges

    plan_merges(v, brain, [MergeCandidate(A, B, "c_00", 0.8, 0.7)], MergeSettings(),
                MergeContext(now=FIXED_NOW, audit=False))
    view = MergeVotesView(v)
    assert "Votes: 3 of 3 agree" in view.detail.value and "loser (deleted)" in view.detail.value
    view.reject_button.click()
    assert view.list.options == () and (v.root / B).exists()


def test_a_screen_works_from_a_replayed_cassette_with_no_model(make_vault, monkeypatch):
    """Record "merge anyway" once against a local model server, then replay it in a second
    vault with no server and no litellm: the screen makes the same proposal."""
    import json as _json

    from reme_workbench.brains import model as litellm_brain
    from reme_workbench.brains.model import LLMBrain
    from reme_workbench.llm.cassette import Cassette
    from tests.llm.test_llm_consolidate import KEY, MODEL, FakeModel, judge_of

    server = FakeModel()
    body = (pair_vault(make_vault, name="rec").root / A).read_text().split("---\n", 2)[2]
    merged = {"description": "How to deploy the payments API",
              "body": body + "Watch the dashboard.\n\nderived_from:: [[daily/2026-10-12/payments.md]]\n"}
    server.answer = lambda req: _json.dumps(
        {"is_same": judge_of(req) == 1, "confidence": 0.9, "reason": f"judge {judge_of(req)}"}
        if "judge" in req["messages"][-1]["content"] else merged)
    tape = make_vault({}, name="tapes") / "merge.jsonl"
    recorder = LLMBrain(MODEL, api_base=server.api_base, api_key=KEY, max_retries=0,
                        cassette=Cassette(tape, mode="record"))
    first = pair_vault(make_vault, name="recorded")
    recorded = UncertainView(Workspace(first.root, vault=first, consolidate_brain=recorder))
    recorded.merge_button.click()
    server.stop()
    assert recorded.made_id, recorded.status.value

    def no_litellm():
        raise AssertionError("a replay must not import litellm")

    monkeypatch.setattr(litellm_brain, "import_litellm", no_litellm)
    player = LLMBrain(MODEL, api_base="http://127.0.0.1:9/v1", cassette=Cassette(tape))
    v = pair_vault(make_vault, name="replayed")
    view = UncertainView(Workspace(v.root, vault=v, consolidate_brain=player))
    view.merge_button.click()
    proposal = ProposalQueue(v).load(view.made_id)
    assert [vote["reason"] for vote in proposal.story["votes"]] == ["judge 0", "judge 1", "judge 2"]
    view.accept_made_button.click()
    assert "Watch the dashboard." in (v.root / A).read_text() and not (v.root / B).exists()


def test_the_archive_screen_of_a_fresh_vault_says_when_the_first_note_goes(make_vault):
    """On the demo every note scores 1.000: the screen said nothing. It says how long an
    untouched note has (τ · ln(score / cut)), from its raw score: the stored one is
    clipped at 1 and gave only a lower bound ("at least 114 days")."""
    v = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    update_archive(v, ArchiveSettings(), now=FIXED_NOW)
    view = ArchiveView(v)
    ov = view.overview
    assert view.archived.options == ()
    coldest = min(ov.scores, key=lambda p: (ov.score(p), p))
    inbound = sum(1 for s, t in v.graph.graph.edges() if t == coldest and s != coldest)
    # adopted by this batch (one use, now), linked by `inbound` notes: §7.3.1 unclipped
    assert ov.raw[coldest] == pytest.approx(recency_score(0, 1, inbound), abs=1e-6)
    assert ov.raw[coldest] > 1 and ov.scores[coldest] == 1.0
    days = f"{ov.tau_days * math.log(ov.raw[coldest] / ov.threshold):.0f} days"
    assert "No note is archived" in view.status.value and f"in {days}." in view.status.value
    assert days in view.lowest.value and "at least" not in view.lowest.value
