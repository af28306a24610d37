"""The review layer over consolidate: communities with their gates and a drawing, the
archive with thaw by hand, uncertain duplicates with their three routes, merge reviews."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.config import ArchiveSettings, CommunitySettings, MergeSettings, Settings
from reme_workbench.consolidate.archive import update_archive
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.communities import update_communities
from reme_workbench.consolidate.decisions import read_decisions
from reme_workbench.consolidate.merge import MergeContext, plan_merges
from reme_workbench.errors import RemeError
from reme_workbench.ops import Workspace, decide, hand_to_dream, keep_both, merge_anyway, thaw
from reme_workbench.proposals import ProposalQueue
from reme_workbench.review.archive import archive_overview
from reme_workbench.review.communities import communities_overview, community_drawing
from reme_workbench.review.merges import merge_reviews
from reme_workbench.review.uncertain import INSTANCES_LABEL, parse_uncertain, uncertain_entries
from reme_workbench.vault.links import outbound_keys
from reme_workbench.vault.meta import log_access
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

DATA = Path(__file__).resolve().parents[1] / "data"
LOG = "daily/2026-10-05/deploy.md"


def note(name: str, body: str, links=()) -> str:
    see = "".join(f"\nSee [[digest/wiki/{t}.md]]." for t in links)
    return f"---\nname: {name}\ndescription: About {name}.\n---\n{body}{see}\n\nderived_from:: [[{LOG}]]\n"


def clusters() -> dict[str, str]:
    files = {LOG: "---\nname: deploy\ndescription: A log.\n---\nDeployed.\n"}
    for group, size in (("a", 6), ("b", 3)):
        names = [f"{group}{i}" for i in range(size)]
        for i, name in enumerate(names):
            links = [n for n in names if n != name][: 2 + i % 2]
            files[f"digest/wiki/{name}.md"] = note(name, f"Note {name} of group {group} about topic {name}x.", links)
    return files


def dreamt(vault: Vault) -> ArchiveSettings:
    """Every digest note was dreamt at FIXED_NOW (a note no event names is adopted by the
    first batch); the settings of a batch with no cap (nine notes: a share takes none)."""
    for path in vault.scan.records:
        if path.startswith("digest/"):
            log_access(vault.root, path, FIXED_NOW, "dream.create")
    return ArchiveSettings(max_share_per_run=1.0)


# -- communities ---------------------------------------------------------------------------

def test_communities_overview_sizes_stability_hub_and_gates(make_vault):
    vault = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    empty = communities_overview(vault, Settings())
    assert empty.communities == () and "No communities yet" in empty.warnings[0]
    update_communities(vault, CommunitySettings(), now=FIXED_NOW - timedelta(days=7))
    update_communities(vault, CommunitySettings(), now=FIXED_NOW)  # the second run has a stability
    for p in ("digest/wiki/a0.md", "digest/wiki/a1.md", "digest/wiki/a2.md"):
        log_access(vault.root, p, FIXED_NOW - timedelta(days=1), "recall")
    overview = communities_overview(vault, Settings())
    big, small = overview.communities  # largest first
    assert (big.size, small.size) == (6, 3)
    assert big.stability == 1.0 and overview.previous is not None
    assert set(big.members) == {f"digest/wiki/a{i}.md" for i in range(6)}
    assert big.buckets == {"wiki": 6}
    gates = {g.name: g for g in big.gates.gates}
    assert list(gates) == ["no_hub", "min_nodes", "stability", "active_members", "name_diversity"]
    assert (gates["min_nodes"].value, gates["min_nodes"].passed) == (6, True)
    assert (gates["active_members"].value, gates["active_members"].passed) == (3, True)
    assert not {g.name: g for g in small.gates.gates}["min_nodes"].passed
    assert overview.get(big.id) is big
    with pytest.raises(KeyError, match="no community"):
        overview.get("c_99")


def test_a_drawing_of_one_community_marks_hub_and_archived(make_vault):
    files = clusters()
    hub_links = [f"a{i}" for i in range(1, 6)]
    files["digest/wiki/a0.md"] = note("a0", "The hub of group a.", hub_links)
    vault = Vault.open(make_vault(files), clock=lambda: FIXED_NOW)
    update_communities(vault, CommunitySettings(), now=FIXED_NOW)
    update_archive(vault, dreamt(vault), now=FIXED_NOW + timedelta(days=400))  # all cold by then
    overview = communities_overview(vault, Settings())
    big = overview.communities[0]
    assert big.hub == "digest/wiki/a0.md" and big.hub_share == 1.0
    drawing = community_drawing(vault, big)
    assert set(drawing.positions) == set(big.members) and drawing.hub == big.hub
    assert ("digest/wiki/a0.md", "digest/wiki/a1.md") in drawing.edges
    assert drawing.archived == set(big.members)
    assert drawing.buckets["digest/wiki/a0.md"] == "wiki" and drawing.names["digest/wiki/a3.md"] == "a3"
    assert community_drawing(vault, big).positions == drawing.positions  # seeded: stable


# -- archive -------------------------------------------------------------------------------

def test_archive_overview_and_thaw_by_hand(make_vault):
    vault = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW + timedelta(days=400))
    assert "No recency scores yet" in archive_overview(vault).warnings[-1]
    later = FIXED_NOW + timedelta(days=400)
    uncapped = dreamt(vault)
    update_archive(vault, uncapped, now=later)
    overview = archive_overview(vault)
    assert overview.threshold == 0.15 and len(overview.scores) == 9
    assert overview.archived == tuple(sorted(overview.scores)) and overview.below() == list(overview.archived)
    target = "digest/wiki/b1.md"
    thawed = thaw(vault, target, now=later + timedelta(hours=1))
    assert target not in thawed.archived and len(thawed.archived) == 8
    assert thawed.computed_at == overview.computed_at  # the batch time stays: touches count after it
    log = (vault.root / "meta/access_log.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["path"] == target and json.loads(log[-1])["event"] == "thaw"
    # the next batch sees the touch: the note stays out of the archive
    again = update_archive(vault, uncapped, now=later + timedelta(hours=2))
    assert target not in again.archived and target in again.thawed + tuple(again.scores)
    with pytest.raises(RemeError, match="is not archived"):
        thaw(vault, target)


# -- uncertain duplicates -----------------------------------------------------------------

A = "digest/procedure/deploy-payments-api.md"
B = "digest/procedure/payments-api-deploy.md"
D2 = "daily/2026-10-12/payments.md"


def pair_vault(make_vault, name: str = "vault"):
    files = {
        A: "---\nname: deploy-payments-api\ndescription: How to deploy the payments API\n---\n"
           f"1. Run the migrations.\n2. Roll out with the canary.\n\nSee [[digest/wiki/canary.md]].\n\nderived_from:: [[{LOG}]]\n",
        B: "---\nname: payments-api-deploy\ndescription: Deploying the payments API\n---\n"
           f"Run the migrations, then roll out. Watch the dashboard.\n\nderived_from:: [[{D2}]]\n",
        "digest/wiki/canary.md": note("canary", "The canary."),
        LOG: "log\n", D2: "log\n",
    }
    root = make_vault(files, name=name)
    report = root / "audit/2026-11-02/dups_uncertain.md"
    report.parent.mkdir(parents=True)
    shutil.copy(DATA / "dups_uncertain_golden.md", report)
    return Vault.open(root, clock=lambda: FIXED_NOW)


def test_the_golden_report_parses_into_entries():
    entries = parse_uncertain((DATA / "dups_uncertain_golden.md").read_text(), "audit/x.md")
    first, second = entries
    assert (first.a, first.b, first.names) == (A, B, ("deploy-payments-api", "payments-api-deploy"))
    assert (first.community, first.description_similarity, first.body_overlap) == ("c_00", 0.8, 0.7)
    assert [(v.judge, v.is_same, v.agrees, v.confidence) for v in first.votes] == [
        (1, False, False, 0.8), (2, True, True, 0.93), (3, False, False, 0.6)]
    assert first.votes[1].reason == "Both describe deploying the payments API."
    assert first.suggestion.startswith("Looks like a duplicate to judge 2 only")
    assert first.why.startswith("1 of 3 votes agree")
    assert [v.agrees for v in second.votes] == [True, True, False]
    assert second.votes[2].is_same  # "yes ... (under 0.8, does not count)"


def test_entries_leave_out_pairs_whose_notes_are_gone(make_vault):
    vault = pair_vault(make_vault)
    entries = uncertain_entries(vault)
    assert [(e.a, e.b) for e in entries] == [(A, B)]  # the error-budget notes do not exist
    assert entries[0].report == "audit/2026-11-02/dups_uncertain.md"


def test_keep_both_is_remembered_while_both_notes_are_unchanged(make_vault):
    vault = pair_vault(make_vault)
    (entry,) = uncertain_entries(vault)
    keep_both(vault, entry)
    assert uncertain_entries(vault) == []
    assert uncertain_entries(vault, include_decided=True)[0].decision.route == "keep_both"
    # the merge phase does not vote on the pair again
    cand = MergeCandidate(A, B, "c_00", 0.8, 0.7)
    run = plan_merges(vault, ScriptedBrain(), [cand], MergeSettings(),
                      MergeContext(now=FIXED_NOW, audit=False))
    assert run.skipped and "decided on 2026-11-02 to keep both" in run.skipped[0].reason
    # a change to either note asks again
    (vault.root / B).write_text((vault.root / B).read_text() + "One more line.\n")
    assert [e.a for e in uncertain_entries(vault)] == [A]


def test_merge_anyway_proposes_the_merge_whatever_the_votes(make_vault):
    vault = pair_vault(make_vault)
    (entry,) = uncertain_entries(vault)
    brain = ScriptedBrain()
    for judge, same in ((0, False), (1, True), (2, False)):  # one of three agrees, as reported
        brain.enqueue_vote({"is_same": same, "confidence": 0.9, "reason": f"judge {judge}"}, judge=judge)
    brain.enqueue_merge({"description": "How to deploy the payments API",
                         "body": (vault.root / A).read_text().split("---\n", 2)[2]
                         + "Watch the dashboard.\n\nderived_from:: [[daily/2026-10-12/payments.md]]\n"})
    (pid,) = merge_anyway(_with_brain(vault, brain), entry)
    proposal = ProposalQueue(vault).load(pid)
    assert proposal.state == "pending" and proposal.story["decided_by_person"] is True
    assert proposal.summary.endswith("(1 of 3 votes; a person decided to merge)")
    (review,) = merge_reviews(vault)
    assert (review.winner, review.loser, review.agree) == (A, B, 1)
    assert [v["is_same"] for v in review.votes] == [False, True, False]
    assert "Watch the dashboard." in review.merged_text and "Watch the dashboard." in review.loser_text
    assert review.decided_by_person
    decisions, _ = read_decisions(vault.root)
    assert decisions[frozenset((A, B))].proposal == pid
    assert decide(vault, pid, "accept").state == "applied" and not (vault.root / B).exists()


def test_hand_to_dream_lists_the_other_note_as_an_instance(make_vault):
    vault = pair_vault(make_vault)
    (entry,) = uncertain_entries(vault)
    before = (vault.root / B).read_text()
    pid = hand_to_dream(vault, entry, into=B)
    proposal = ProposalQueue(vault).load(pid)
    assert proposal.action == "dream.refine" and proposal.state == "pending"
    assert decide(vault, pid, "accept").state == "applied"
    after = (vault.root / B).read_text()
    assert f"{INSTANCES_LABEL}\n\n- [[{A}|deploy-payments-api]] — How to deploy the payments API" in after
    assert outbound_keys(after) >= outbound_keys(before)  # E-1
    assert after.rstrip().endswith(f"derived_from:: [[{D2}]]")  # provenance stays last
    assert (vault.root / A).is_file()  # both notes stay
    assert uncertain_entries(vault, include_decided=True)[0].decision is None  # B changed since
    with pytest.raises(RemeError, match="already links"):
        hand_to_dream(vault, entry, into=B)
    with pytest.raises(RemeError, match="not one of the pair"):
        hand_to_dream(vault, entry, into="digest/wiki/canary.md")


def test_settings_thresholds_reach_the_gates(make_vault):
    vault = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    update_communities(vault, CommunitySettings(), now=FIXED_NOW)
    strict = Settings.model_validate({"abstract": {"min_nodes": 7}})
    big = communities_overview(vault, strict).communities[0]
    gate = {g.name: g for g in big.gates.gates}["min_nodes"]
    assert (gate.threshold, gate.passed) == (7, False)


def _with_brain(vault: Vault, brain) -> Workspace:
    """The vault's workspace with a scripted consolidate brain (as a test hands it in)."""
    return Workspace(vault.root, vault=vault, clock=vault.clock, consolidate_brain=brain)


def _one_of_three(brain: ScriptedBrain, vault: Vault, extra: str) -> ScriptedBrain:
    for judge, same in ((0, False), (1, True), (2, False)):
        brain.enqueue_vote({"is_same": same, "confidence": 0.9, "reason": f"judge {judge}"}, judge=judge)
    brain.enqueue_merge({"description": "How to deploy the payments API",
                         "body": (vault.root / A).read_text().split("---\n", 2)[2]
                         + f"{extra}\n\nderived_from:: [[daily/2026-10-12/payments.md]]\n"})
    return brain


def test_a_stale_merge_a_person_decided_is_planned_again_as_theirs(make_vault):
    """The merge a person decided on ("merge anyway") goes stale; planned again, it is
    still their decision: the votes are asked again and the merge is proposed whatever
    they say (consolidate.planning reads `decided_by_person` from the story)."""
    from reme_workbench.ops import replan

    vault = pair_vault(make_vault)
    (entry,) = uncertain_entries(vault)
    (pid,) = merge_anyway(_with_brain(vault, _one_of_three(ScriptedBrain(), vault, "Watch it.")),
                          entry)
    with open(vault.root / A, "a", encoding="utf-8") as fh:
        fh.write("A person's line.\n")  # changed since planned: the merge is stale
    assert decide(vault, pid, "accept").state == "stale"
    again = replan(_with_brain(vault, _one_of_three(ScriptedBrain(), vault, "Again.")), pid)
    assert len(again.new_ids) == 1, again.message
    fresh = ProposalQueue(vault).load(again.new_ids[0])
    assert fresh.action == "consolidate.merge" and fresh.state == "pending"
    assert fresh.story["decided_by_person"] is True
    assert fresh.summary.endswith("(1 of 3 votes; a person decided to merge)")


def test_a_merge_story_without_its_pair_is_refused_with_what_to_do(make_vault):
    from reme_workbench.ops import replan

    vault = pair_vault(make_vault)
    (entry,) = uncertain_entries(vault)
    (pid,) = merge_anyway(_with_brain(vault, _one_of_three(ScriptedBrain(), vault, "Watch it.")),
                          entry)
    queue = ProposalQueue(vault)
    old = queue.load(pid)
    queue.save(replace(old, story={**old.story, "candidate": {
        "a": A, "b": B, "community": "c_00", "body_overlap": "most"}}))  # edited by hand
    with open(vault.root / A, "a", encoding="utf-8") as fh:
        fh.write("A person's line.\n")
    assert decide(vault, pid, "accept").state == "stale"
    with pytest.raises(RemeError, match="does not name its pair.*--only communities,merge"):
        replan(_with_brain(vault, ScriptedBrain()), pid)
