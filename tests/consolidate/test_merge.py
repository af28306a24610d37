"""The merge action (docs/spec.md §7.7): votes, winner, one changeset, checks, the uncertain
report, and the edges — notes linking each other, 50 inbound files, stale stamps, a brain
dropping a link, hostile bodies."""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from datetime import timedelta
from pathlib import Path

from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.cooldowns import Cooldowns
from reme_workbench.consolidate.merge import (
    ACTION,
    MergeContext,
    UncertainPair,
    Vote,
    pick_winner,
    plan_merges,
    render_uncertain,
)
from reme_workbench.llm.base import BrainError, BrainReply, Usage
from reme_workbench.llm.consolidate import MergeRequest, PairRequest
from reme_workbench.llm.schema import MergedNote, PairVote
from reme_workbench.proposals.queue import Policy, ProposalQueue
from reme_workbench.vault.links import outbound_keys, parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.split_queue import read_split_queue
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW, snapshot
from tests.consolidate_fakes import OneTaskBrain

DATA = Path(__file__).resolve().parents[1] / "data"
A = "digest/procedure/deploy-payments-api.md"
B = "digest/procedure/payments-api-deploy.md"
C = "digest/wiki/canary-rollout.md"
D1 = "daily/2026-10-05/deploy.md"
D2 = "daily/2026-10-12/payments.md"
AUTO = Policy(frozenset({ACTION}))
DEFAULTS = MergeSettings()


def ctx(**how) -> MergeContext:
    """The run's context at the tests' fixed time."""
    return MergeContext(now=FIXED_NOW, **how)


# -- a tiny scripted consolidate brain ---------------------------------------------------------

class FakeBrain(OneTaskBrain):
    """Votes per pair (three PairVotes, judge order) and a queue of merge answers: a
    MergedNote, a callable(request) -> MergedNote, or a BrainError."""

    model = "fake"

    def __init__(self, votes=None, merges=(), default_vote=None):
        self.votes = {frozenset(k): list(v) for k, v in (votes or {}).items()}
        self.default_vote = default_vote
        self.merges = deque(merges)
        self.vote_requests: list[PairRequest] = []
        self.merge_requests: list[MergeRequest] = []
        self._lock = threading.Lock()

    def vote(self, request):
        with self._lock:
            self.vote_requests.append(request)
        found = self.votes.get(frozenset({request.a.path, request.b.path}))
        value = found[request.judge] if found else self.default_vote
        if value is None:
            raise AssertionError(f"no vote scripted for {request.a.path} / {request.b.path}")
        return BrainReply(value, value.model_dump_json(), Usage(10, 5), self.model)

    def merge(self, request):
        with self._lock:
            self.merge_requests.append(request)
            answer = self.merges.popleft()
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            answer = answer(request)
        return BrainReply(answer, json.dumps({"body": answer.body[:200]}), Usage(100, 50),
                          self.model)


YES = PairVote(is_same=True, confidence=0.93, reason="Both describe deploying the payments API.")
YES_WEAK = PairVote(is_same=True, confidence=0.7, reason="Similar steps, not sure.")
NO = PairVote(is_same=False, confidence=0.8, reason="Different topics.")


def union_body(request: MergeRequest) -> MergedNote:
    """"Merge, do not refine": the winner's body plus every line of the loser's it lacks."""
    have = request.winner.body.splitlines()
    extra = [line for line in request.loser.body.splitlines() if line and line not in have]
    return MergedNote(description=request.winner.description + " (merged)",
                      body="\n".join(have + [""] + extra) + "\n")


def note(name, description, body, extra=""):
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"


BODY_A = (
    "# Deploy the payments API\n\n"
    "1. Run the database migrations.\n"
    "2. Roll out with the [[digest/wiki/canary-rollout.md|canary script]].\n\n"
    "> [!warning] Never deploy on Friday evening.\n\n"
    f"derived_from:: [[{D1}]]\n"
)
BODY_B = (
    "Before rolling out the payments API run the database migrations.\n"
    "Watch the error rate dashboard for ten minutes.\n\n"
    "related_to:: [[digest/wiki/canary-rollout.md]]\n"
    "部署后检查错误率面板。\n\n"
    f"derived_from:: [[{D2}]]\n"
)


def base_files(**over):
    files = {
        A: note("deploy-payments-api", "How to deploy the payments API", BODY_A,
                extra="tags: [deploy]\n"),
        B: note("payments-api-deploy", "Deploying the payments API", BODY_B),
        C: note("canary-rollout", "The canary rollout script", f"Shifts traffic.\n\nderived_from:: [[{D1}]]\n"),
        D1: "deploy log\n",
        D2: "payments log\n",
    }
    files.update(over)
    return files


def open_vault(root):
    return Vault.open(root, clock=lambda: FIXED_NOW)


def cand(a=A, b=B, sim=0.8, overlap=0.7, community="c_00", skipped=None):
    a, b = sorted((a, b))
    return MergeCandidate(a, b, community, sim, overlap, skipped)


def read(root, rel):
    return (root / rel).read_text(encoding="utf-8")


# -- the winner rule ---------------------------------------------------------------------------

def test_winner_more_inbound_then_shorter_path_then_path_order():
    a, b = "digest/wiki/aa.md", "digest/wiki/b.md"
    assert pick_winner(a, b, inbound={a: 3, b: 1}, source_linked={}).winner == a
    assert pick_winner(a, b, inbound={a: 1, b: 3}, source_linked={}).winner == b
    tie = pick_winner(a, b, inbound={a: 2, b: 2}, source_linked={})
    assert (tie.winner, tie.loser) == (b, a) and "shorter path" in tie.rule
    same = pick_winner("digest/wiki/x.md", "digest/wiki/w.md", inbound={}, source_linked={})
    assert same.winner == "digest/wiki/w.md" and "first path in order" in same.rule


def test_a_note_sources_link_to_is_never_the_loser():
    a, b = "digest/wiki/a.md", "digest/wiki/b.md"
    choice = pick_winner(a, b, inbound={a: 9, b: 0}, source_linked={b: ["daily/d/x.md"]})
    assert (choice.winner, choice.loser) == (b, a)
    assert "never rewritten" in choice.rule and "daily/d/x.md" in choice.rule
    assert pick_winner(a, b, inbound={}, source_linked={a: ["daily/1.md"], b: ["resource/r.md"]}) is None


# -- votes -> proposal, uncertain, dropped ----------------------------------------------------

def test_two_agreeing_votes_make_one_pending_proposal_with_its_story(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    before = snapshot(root)
    brain = FakeBrain({(A, B): [YES, YES, NO]}, [union_body])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(audit=False))
    assert [p.state for p in run.proposals] == ["pending"]
    assert not run.uncertain and not run.dropped and not run.rejected
    # nothing in the notes changed: the proposal waits (default policy holds everything)
    after = snapshot(root)
    assert {k: v for k, v in after.items() if k.startswith(("digest/", "daily/"))} == \
        {k: v for k, v in before.items() if k.startswith(("digest/", "daily/"))}
    p = ProposalQueue(vault).load(run.proposals[0].id)
    s = p.story
    assert s["winner"] == A and s["loser"] == B  # equal inbound (0) and length: path order
    assert "first path in order" in s["winner_rule"]
    assert [v["is_same"] for v in s["votes"]] == [True, True, False] and s["agree"] == 2
    assert all(v["raw"] and v["reason"] for v in s["votes"])
    assert s["candidate"]["description_similarity"] == 0.8
    assert s["cooldowns"] == [{"path": A, "action": "merge"}]
    assert s["tokens"] == {"prompt_tokens": 130, "completion_tokens": 65, "cached_tokens": 0}
    assert all(not c["failures"] for c in s["checks"])
    assert {c["name"] for c in s["checks"]} >= {
        "keeps_outbound", "carries_provenance", "links_resolve", "only_paths", "no_sources_written"}
    assert s["over_split_threshold"] is False and s["body_tokens"] > 0
    # one changeset: the winner edited, the loser deleted
    assert [(type(op).__name__, op.path) for op in p.ops] == [("Edit", A), ("Delete", B)]
    merged = parse(p.ops[0].content.decode(), A)
    assert merged.frontmatter["tags"] == ["deploy"]  # frontmatter kept
    assert merged.description == "How to deploy the payments API (merged)"
    assert f"derived_from:: [[{D2}]]" in merged.body and "部署后检查错误率面板" in merged.body
    # accepting applies it under the same checks
    done = ProposalQueue(vault).accept(p.id)
    assert done.state == "applied", done.error
    assert not (root / B).exists()


def test_one_agreeing_vote_is_uncertain_and_none_is_dropped(make_vault):
    e = "digest/wiki/error-budget.md"
    f = "digest/wiki/error-budgets.md"
    files = base_files(**{
        e: note("error-budget", "What an error budget is", f"Allowed failures.\n\nderived_from:: [[{D1}]]\n"),
        f: note("error-budgets", "Error budgets", f"Budgets of errors.\n\nderived_from:: [[{D2}]]\n"),
    })
    root = make_vault(files)
    vault = open_vault(root)
    brain = FakeBrain({(A, B): [YES, NO, YES_WEAK], (e, f): [NO, NO, YES_WEAK]})
    run = plan_merges(vault, brain, [cand(), cand(e, f, sim=0.7, overlap=0.6)], DEFAULTS, ctx())
    assert not run.proposals and not brain.merge_requests
    assert [(u.candidate.a, u.candidate.b) for u in run.uncertain] == [(A, B)]
    assert [(c.a, c.b) for c in run.dropped] == [(e, f)]
    assert run.uncertain[0].votes[2].is_same and not run.uncertain[0].votes[2].agrees
    report = read(root, run.uncertain_report)
    assert run.uncertain_report == "audit/2026-11-02/dups_uncertain.md"
    assert "error-budget" not in report  # dropped pairs are counted, not reported
    assert ProposalQueue(vault).ids() == []
    assert run.usage.prompt_tokens == 60  # six votes, no merge


def test_a_distinct_pair_is_never_proposed(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    brain = FakeBrain({(A, B): [NO, NO, NO]})
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO))
    assert run.proposals == () and len(run.dropped) == 1
    assert ProposalQueue(vault).ids() == [] and not brain.merge_requests
    assert not list((root / "audit").rglob("*.md"))  # nothing to tell a person
    assert (root / B).exists()


def test_both_notes_linked_from_sources_goes_to_the_uncertain_report(make_vault):
    files = base_files(**{"daily/2026-10-20/log.md": f"see [[{A}]] and [[payments-api-deploy]]\n"})
    root = make_vault(files)
    vault = open_vault(root)
    brain = FakeBrain({(A, B): [YES, YES, YES]})
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO))
    assert not run.proposals and not brain.merge_requests
    assert "sources are never rewritten" in run.uncertain[0].why
    assert "fix the source links yourself" in run.uncertain[0].suggestion


def test_the_note_a_source_links_to_wins_even_with_fewer_inbound_links(make_vault):
    x = "digest/wiki/x.md"
    files = base_files(**{
        "daily/2026-10-20/log.md": "see [[payments-api-deploy|the deploy note]]\n",  # a short link
        x: note("x", "x", f"[[{A}]]\n\nderived_from:: [[{D1}]]\n"),
    })
    root = make_vault(files)
    vault = open_vault(root)
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, NO]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO))
    (p,) = run.proposals
    assert p.state == "applied" and p.story["winner"] == B
    assert "daily/2026-10-20/log.md" in p.story["winner_rule"]
    assert not (root / A).exists()
    assert f"[[{B}]]" in read(root, x)  # the digest note linking A now links B
    assert read(root, "daily/2026-10-20/log.md") == "see [[payments-api-deploy|the deploy note]]\n"


# -- the edges ---------------------------------------------------------------------------------

def test_two_notes_linking_each_other_leave_no_self_link(make_vault):
    body_a = BODY_A + f"\nSee also [[{B}|the short version]].\n"
    body_b = BODY_B + f"- related_to:: [[{A}]]\n"
    files = base_files(**{
        A: note("deploy-payments-api", "How to deploy the payments API", body_a),
        B: note("payments-api-deploy", "Deploying the payments API", body_b),
    })
    root = make_vault(files)
    vault = open_vault(root)
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO))
    (p,) = run.proposals
    assert p.state == "applied", p.error
    text = read(root, A)
    targets = {lk.target for lk in parse_links(text)}
    assert A not in targets and B not in targets  # no self-link, no link to the deleted note
    assert "See also the short version." in text  # the link became its words
    assert "- related_to::" not in text  # a line holding only the self-link went
    assert (C, None) in outbound_keys(text) and (C, "related_to") in outbound_keys(text)
    assert p.story["merge"][0]["self_links_removed"] == 2
    assert all(not c["failures"] for c in p.story["checks"])
    assert not vault.graph.graph.has_edge(A, A)


def test_a_loser_with_50_inbound_files_is_retargeted_in_one_changeset(make_vault):
    linkers = {
        f"digest/wiki/user-{i:02d}.md": note(
            f"user-{i:02d}", "uses the deploy",
            (f"Step: is_a:: [[{B}|deploy steps]] and [[{C}]]\n" if i % 2 else
             f"- [[{B}]]\n- [[payments-api-deploy#Before|before]]\n") + f"\nderived_from:: [[{D1}]]\n")
        for i in range(50)
    }
    files = base_files(**linkers, **{"daily/2026-10-20/log.md": f"[[{A}]]\n"})  # A must win
    root = make_vault(files)
    vault = open_vault(root)
    applied = []
    real_apply = vault.store.apply
    vault.store.apply = lambda cs: applied.append(cs) or real_apply(cs)
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO, audit=False))
    (p,) = run.proposals
    assert p.state == "applied", p.error
    merge_changesets = [cs for cs in applied if cs.ops]
    assert len(merge_changesets) == 1 and len(merge_changesets[0].ops) == 52  # winner, 50, loser
    assert p.story["retargeted"] == {path: (1 if i % 2 else 2)
                                     for i, path in enumerate(sorted(linkers))}
    for i, path in enumerate(sorted(linkers)):
        text = read(root, path)
        if i % 2:  # alias and predicate kept, the other link untouched
            assert f"is_a:: [[{A}|deploy steps]] and [[{C}]]" in text
        else:  # a short link keeps its short style and its anchor
            assert f"- [[{A}]]\n- [[deploy-payments-api#Before|before]]" in text
    assert not (root / B).exists()


def test_a_loser_with_50_inbound_files_is_all_or_nothing(make_vault):
    linkers = {f"digest/wiki/user-{i:02d}.md": note(f"user-{i:02d}", "u", f"[[{B}]]\n")
               for i in range(50)}
    root = make_vault(base_files(**linkers, **{"daily/2026-10-20/log.md": f"[[{A}]]\n"}))
    vault = open_vault(root)
    before = snapshot(root)
    plans = []
    real_apply = vault.store.apply

    def touching_apply(cs):  # something keeps editing one of the 50 files
        if cs.ops:
            plans.append(cs)
            path = root / "digest/wiki/user-37.md"
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1000))
        return real_apply(cs)

    vault.store.apply = touching_apply
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO))
    assert len(plans) == 3  # planned, then re-planned twice ([vault] max_replans)
    assert run.proposals == () and "kept changing" in run.skipped[0].reason
    after = snapshot(root)
    for rel in [A, B, *linkers]:  # not one file written
        assert after[rel][0] == before[rel][0]
    audit = read(root, "audit/2026-11-02/consolidate_actions.md")
    assert "merge skipped" in audit and "kept changing" in audit
    assert ProposalQueue(vault).ids() == []


def test_a_note_linking_the_loser_that_cannot_be_read_skips_the_pair_before_asking(make_vault):
    """Its links could not be retargeted whatever body came back: no body is asked for."""
    user = "digest/wiki/user.md"
    root = make_vault(base_files(**{user: note("user", "u", f"[[{B}]]\n"),
                                    "daily/2026-10-20/log.md": f"[[{A}]]\n"}))  # A wins
    vault = open_vault(root)
    real_read = vault.store.read

    def read_garbled(path):  # the file turned to bytes that are no UTF-8 after the scan
        found = real_read(path)
        return (b"\xff\xfe not text", found[1]) if path == user and found else found

    vault.store.read = read_garbled
    brain = FakeBrain({(A, B): [YES, YES, YES]}, [union_body])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO, audit=False))
    assert run.proposals == () and not brain.merge_requests
    assert f"a note linking {B} cannot be retargeted" in run.skipped[0].reason
    assert (root / B).exists() and ProposalQueue(vault).ids() == []


def test_a_stamp_that_changes_once_is_planned_again_from_the_fresh_file(make_vault):
    u = "digest/wiki/user.md"
    root = make_vault(base_files(**{u: note("user", "u", f"[[{B}]]\n"),
                                    "daily/2026-10-20/log.md": f"[[{A}]]\n"}))  # A wins
    vault = open_vault(root)
    calls = []
    real_apply = vault.store.apply

    def edit_once(cs):
        if cs.ops and not calls:  # a person edits the linking note between plan and apply
            (root / u).write_text(note("user", "u", f"[[{B}]] and a new line\n"), encoding="utf-8")
        calls.append(cs)
        return real_apply(cs)

    vault.store.apply = edit_once
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO))
    assert [p.state for p in run.proposals] == ["applied"]
    assert len([c for c in calls if c.ops]) == 2
    assert read(root, u).endswith(f"[[{A}]] and a new line\n")  # the person's edit kept


def test_a_pair_edited_while_the_brain_merged_is_skipped(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)

    def edit_winner_then_merge(request):
        (root / A).write_text(read(root, A) + "A person adds a line.\n", encoding="utf-8")
        return union_body(request)

    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [edit_winner_then_merge]),
                      [cand()], DEFAULTS, ctx(policy=AUTO))
    assert run.proposals == ()
    assert "changed while it was merged" in run.skipped[0].reason
    assert (root / B).exists() and read(root, A).endswith("A person adds a line.\n")


def test_a_body_dropping_a_link_gets_one_retry_then_is_rejected_and_audited(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    before = snapshot(root)

    def drop_canary(request):
        merged = union_body(request)
        body = "\n".join(line for line in merged.body.splitlines() if "canary-rollout" not in line)
        return MergedNote(description=merged.description, body=body + "\n")

    brain = FakeBrain({(A, B): [YES, YES, YES]}, [drop_canary, drop_canary])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO))
    assert len(brain.merge_requests) == 2
    assert brain.merge_requests[0].feedback is None
    assert f"drops the link [[{C}]]" in brain.merge_requests[1].feedback
    assert run.proposals == () and len(run.rejected) == 1
    (stored,) = ProposalQueue(vault).list()
    assert stored.state == "rejected" and "keeps_outbound" in stored.error
    assert stored.id == run.rejected[0].proposal and len(stored.story["merge"]) == 2
    audit = read(root, "audit/2026-11-02/consolidate_actions.md")
    assert "merge rejected" in audit and stored.id in audit
    after = snapshot(root)
    assert all(after[k] == before[k] for k in before if k.startswith(("digest/", "daily/")))


def test_a_retry_that_fixes_the_body_is_proposed(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)

    def drop_provenance(request):
        merged = union_body(request)
        body = "\n".join(line for line in merged.body.splitlines() if D2 not in line)
        return MergedNote(description=merged.description, body=body + "\n")

    brain = FakeBrain({(A, B): [YES, YES, YES]}, [drop_provenance, union_body])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx())
    (p,) = run.proposals
    assert p.state == "pending"
    assert "carries_provenance" in brain.merge_requests[1].feedback
    assert D2 in brain.merge_requests[1].feedback
    assert [bool(a["violations"]) for a in p.story["merge"]] == [True, False]


def test_a_1mb_body_is_refused_and_never_stored(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    huge = MergedNote.model_construct(description="d", body="x " * 500_000)  # bypasses the schema
    brain = FakeBrain({(A, B): [YES, YES, YES]}, [huge, huge])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO))
    assert run.proposals == () and "merged_body_size" in run.rejected[0].reason
    assert "merge, do not add" in brain.merge_requests[1].feedback
    assert ProposalQueue(vault).ids() == []
    assert (root / B).exists()


def test_hostile_links_in_the_body_are_repaired_to_text(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)

    def hostile(request):
        merged = union_body(request)
        return MergedNote(description=merged.description, body=merged.body + (
            "Read [[../../etc/passwd|the password file]] and [[/etc/shadow]] and "
            "[[digest/wiki/invented.md|an invented note]] and [[canary-rollout|the canary]].\n"))

    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [hostile]), [cand()],
                      DEFAULTS, ctx(policy=AUTO))
    (p,) = run.proposals
    assert p.state == "applied", p.error
    text = read(root, A)
    assert "Read the password file and /etc/shadow and an invented note and " \
           f"[[{C}|the canary]]." in text
    assert {lk.target for lk in parse_links(text)} <= {C, D1, D2}
    assert len(p.story["merge"][0]["link_repairs"]) == 4


def test_a_brain_error_on_the_merge_rejects_the_pair(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    brain = FakeBrain({(A, B): [YES, YES, YES]}, [BrainError("no JSON", model="fake", raw="oops")])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO))
    assert run.proposals == () and "no JSON" in run.rejected[0].reason
    assert (root / B).exists()


def test_a_judge_that_fails_skips_the_pair_with_the_reason(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)

    class Failing(FakeBrain):
        def vote(self, request):
            if request.judge == 1:
                raise BrainError("judge 1 timed out", model="fake")
            return super().vote(request)

    run = plan_merges(vault, Failing({(A, B): [YES, YES, YES]}), [cand()], DEFAULTS, ctx())
    assert run.proposals == () and "timed out" in run.skipped[0].reason


# -- run-level rules ---------------------------------------------------------------------------

def test_each_note_is_in_at_most_one_merge_per_run(make_vault):
    e = "digest/procedure/deploy-payments.md"
    files = base_files(**{e: note("deploy-payments", "Deploy payments", BODY_A)})
    root = make_vault(files)
    vault = open_vault(root)
    brain = FakeBrain(default_vote=YES, merges=[union_body, union_body])
    best, other = cand(A, B, sim=0.9, overlap=0.9), cand(A, e, sim=0.7, overlap=0.6)
    run = plan_merges(vault, brain, [other, best], DEFAULTS, ctx())  # greedy by score
    assert [(p.story["winner"], p.story["loser"]) for p in run.proposals] == [(A, B)]
    assert "already in a merge of this run" in run.skipped[0].reason
    assert len(brain.merge_requests) == 1


def test_a_candidate_under_cooldown_is_skipped_without_a_vote(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    brain = FakeBrain()
    run = plan_merges(vault, brain, [cand(skipped="split 3 days ago")], DEFAULTS, ctx())
    assert run.skipped[0].reason == "split 3 days ago" and not brain.vote_requests


def test_a_note_merged_within_12_weeks_is_held_for_a_person_with_an_alarm(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    cooldowns = Cooldowns(root=root)
    cooldowns.start(A, "merge", FIXED_NOW - timedelta(days=30))
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO, cooldowns=cooldowns))
    (p,) = run.proposals
    assert p.state == "pending" and p.story["held_for_person"] is True
    assert run.alarms and "merge_to_merge_days" in run.alarms[0]
    audit = read(root, "audit/2026-11-02/consolidate_actions.md")
    assert "alarm" in audit and "2026-10-03" in audit
    assert (root / B).exists()


def test_a_body_over_the_split_threshold_is_flagged_and_queued_when_applied(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, YES]}, [union_body]), [cand()],
                      DEFAULTS, ctx(policy=AUTO, split_threshold=20))
    (p,) = run.proposals
    assert p.story["over_split_threshold"] is True and p.story["body_tokens"] > 20
    assert read_split_queue(root).paths == (A,)


def test_dry_run_votes_and_plans_but_writes_nothing(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    before = snapshot(root)
    brain = FakeBrain({(A, B): [YES, YES, YES]}, [union_body])
    run = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(policy=AUTO, dry_run=True))
    assert [p.state for p in run.proposals] == ["pending"]
    assert snapshot(root) == before


# -- the uncertain report ----------------------------------------------------------------------

def test_the_uncertain_report_matches_the_golden_file(make_vault):
    e, f = "digest/wiki/error-budget.md", "digest/wiki/error-budgets.md"
    files = base_files(**{
        e: note("error-budget", "What an error budget is", f"Allowed failures.\n\nderived_from:: [[{D1}]]\n"),
        f: note("error-budgets", "Error budgets", f"Budgets of errors.\n\nderived_from:: [[{D2}]]\n"),
        "daily/2026-10-20/log.md": f"[[{e}]] [[{f}]]\n",
        "daily/2026-10-21/log.md": f"[[{f}]]\n",
    })
    root = make_vault(files)
    vault = open_vault(root)
    multi = PairVote(is_same=False, confidence=0.6,
                     reason="One is\nabout the\tdashboard; the other about migrations.")
    budget = PairVote(is_same=True, confidence=0.88, reason="Both define the error budget.")
    brain = FakeBrain({(A, B): [NO, YES, multi], (e, f): [budget, budget, YES_WEAK]})
    run = plan_merges(vault, brain, [cand(), cand(e, f, sim=0.71, overlap=0.55, community="c_03")],
                      DEFAULTS, ctx())
    assert len(run.uncertain) == 2
    text = read(root, "audit/2026-11-02/dups_uncertain.md")
    golden = (DATA / "dups_uncertain_golden.md").read_text(encoding="utf-8")
    assert text == golden
    # a second run the same day does not repeat the sections
    brain2 = FakeBrain({(A, B): [NO, YES, multi], (e, f): [budget, budget, YES_WEAK]})
    plan_merges(vault, brain2, [cand(), cand(e, f, sim=0.71, overlap=0.55, community="c_03")],
                DEFAULTS, ctx())
    assert read(root, "audit/2026-11-02/dups_uncertain.md") == golden


def test_render_uncertain_says_which_judge_agreed():
    c = cand()
    votes = (Vote(0, False, 0.9, "no", False), Vote(1, True, 0.95, "yes", True),
             Vote(2, True, 0.5, "maybe", False))
    text = render_uncertain([UncertainPair(c, ("a", "b"), votes, "1 of 3", "Look.")],
                            min_confidence=0.8)
    assert text.splitlines()[0] == f"## [[{A}|a]] ⟷ [[{B}|b]]"
    assert "- judge 2: **yes**, confidence 0.95 — yes" in text
    assert "- judge 3: yes, confidence 0.50 (under 0.8, does not count) — maybe" in text
    assert "- judge 1: no, confidence 0.90 — no" in text


def test_a_pair_whose_identifiers_differ_is_reported_distinct_and_never_voted_on(make_vault):
    """Mining marks such pairs; a pair given otherwise (re-planned, from another miner)
    is checked here too. Only "merge anyway", a person's decision, is voted on."""
    from dataclasses import replace

    files = base_files()
    files[A] = files[A].replace("tags: [deploy]\n", "tags: [deploy]\nrepository: acme/payments\n")
    files[B] = files[B].replace("---\nBefore", "repo: github.com/acme/payments-v2\n---\nBefore")
    root = make_vault(files)
    brain = FakeBrain(default_vote=YES, merges=[union_body])
    run = plan_merges(open_vault(root), brain, [cand()], DEFAULTS, ctx(audit=False))
    assert not run.proposals and not run.uncertain and not brain.vote_requests
    assert [c.distinct for c in run.distinct] == [
        "repository differs (github.com/acme/payments vs github.com/acme/payments-v2)"]
    data = run.to_json()
    assert data["distinct"][0]["reason"].startswith("distinct: repository differs")
    assert data["distinct_total"] == 1 and "1 distinct" in run.summary()
    marked = plan_merges(open_vault(root), brain, [replace(cand(), distinct="id differs (1 vs 2)")],
                         DEFAULTS, ctx(audit=False))
    assert [c.distinct for c in marked.distinct] == ["id differs (1 vs 2)"]
    assert not brain.vote_requests
    person = plan_merges(open_vault(root), brain, [cand()],
                         DEFAULTS, ctx(audit=False, decided_by_person=True))
    assert len(person.proposals) == 1 and brain.vote_requests  # a person decided to merge


def test_an_uncertain_pair_of_two_communities_names_both_for_the_reviewer():
    from dataclasses import replace

    from reme_workbench.review.uncertain import parse_uncertain

    c = replace(cand(), community_b="c_05")
    votes = (Vote(0, True, 0.9, "alike", True), Vote(1, False, 0.9, "no", False),
             Vote(2, False, 0.5, "cannot tell", False))
    text = render_uncertain([UncertainPair(c, ("a", "b"), votes, "1 of 3", "Look.")],
                            min_confidence=0.8)
    assert f"- community `{c.community} / c_05` · description similarity" in text
    entry = parse_uncertain(text)[0]  # the workbench's uncertain screen reads it back
    assert (entry.a, entry.b, entry.community) == (A, B, f"{c.community} / c_05")


def test_short_links_of_the_loser_are_kept_as_the_notes_they_meant(make_vault):
    body_b = BODY_B.replace("related_to:: [[digest/wiki/canary-rollout.md]]",
                            "related_to:: [[canary-rollout|the canary]] and [[Old Broken Note]]")
    root = make_vault(base_files(**{B: note("payments-api-deploy", "Deploying", body_b)}))
    vault = open_vault(root)

    def full_path_instead(request):  # a brain that writes the short link out in full
        merged = union_body(request)
        return MergedNote(description="d", body=merged.body.replace(
            "[[canary-rollout|the canary]]", f"[[{C}|the canary]]"))

    brain = FakeBrain({(A, B): [YES, YES, YES]}, [union_body])
    (p,) = plan_merges(vault, brain, [cand()], DEFAULTS, ctx()).proposals
    text = p.ops[0].content.decode()
    assert f"related_to:: [[{C}|the canary]] and [[Old Broken Note]]" in text  # repaired, kept
    assert p.story["merge"][0]["violations"] == []
    ProposalQueue(vault).reject(p.id)  # else the pair waits for review and is not asked again
    brain = FakeBrain({(A, B): [YES, YES, YES]}, [full_path_instead])
    (p,) = plan_merges(vault, brain, [cand()], DEFAULTS, ctx()).proposals
    assert p.story["merge"][0]["violations"] == []
    assert ["Old Broken Note", "related_to"] in p.checks[2].params["keys"]  # kept as written


def test_a_link_an_applied_merge_moved_is_retargeted_by_the_next_merge(make_vault):
    e, f = "digest/wiki/error-budget.md", "digest/wiki/error-budgets.md"
    body_b = BODY_B + f"See [[{f}|the budgets]].\n"
    files = base_files(**{
        B: note("payments-api-deploy", "Deploying the payments API", body_b),
        e: note("error-budget", "What an error budget is", f"Allowed failures.\n\nderived_from:: [[{D1}]]\n"),
        f: note("error-budgets", "Error budgets", f"Budgets of errors.\n\nderived_from:: [[{D2}]]\n"),
        "daily/2026-10-20/log.md": f"[[{A}]] [[{e}]]\n",  # A and E win
    })
    root = make_vault(files)
    vault = open_vault(root)
    brain = FakeBrain(default_vote=YES, merges=[union_body, union_body])
    run = plan_merges(vault, brain, [cand(sim=0.9, overlap=0.9), cand(e, f)],
                      DEFAULTS, ctx(policy=AUTO))
    assert [p.state for p in run.proposals] == ["applied", "applied"]
    assert run.proposals[1].story["retargeted"] == {A: 1}  # the link B's body brought to A
    assert f"See [[{e}|the budgets]]." in read(root, A)
    assert not (root / B).exists() and not (root / f).exists()
    vault.refresh()
    report = vault.health()  # no link left dangling, broken or never written
    assert not report.broken_links and not report.unwritten_links


def test_a_pair_whose_merge_waits_for_review_is_not_proposed_again(make_vault):
    root = make_vault(base_files())
    vault = open_vault(root)
    brain = FakeBrain({(A, B): [YES, YES, NO]}, [union_body, union_body])
    first = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(audit=False))
    (pending,) = first.proposals
    again = plan_merges(vault, brain, [cand()], DEFAULTS, ctx(audit=False))
    assert again.proposals == () and len(brain.merge_requests) == 1  # not even voted on
    (skip,) = again.skipped
    assert pending.id in skip.reason and "this pair" in skip.reason
    ProposalQueue(vault).reject(pending.id)  # decided: the pair may come up again
    assert plan_merges(vault, brain, [cand()], DEFAULTS, ctx(audit=False)).proposals


def test_a_note_listing_both_as_related_keeps_both_items_after_the_retarget(make_vault):
    """The list is the person's: the retarget points `- [[B]]` at A and removes nothing,
    so A is listed twice until a person removes one (docs/spec.md §7.7.5)."""
    related = note("rollouts", "Rollout notes", (
        "Rollouts.\n\n**Related:**\n\n"
        f"- [[{A}]]\n- [[{B}]]\n- [[{C}]]\n\n"
        "```\n- [[digest/procedure/deploy-payments-api.md]]\n- [[digest/procedure/deploy-payments-api.md]]\n```\n\n"
        f"derived_from:: [[{D1}]]\n"))
    root = make_vault(base_files(**{"digest/wiki/rollouts.md": related}))
    vault = open_vault(root)
    run = plan_merges(vault, FakeBrain({(A, B): [YES, YES, NO]}, [union_body]), [cand()],
                      DEFAULTS, ctx(audit=False, policy=AUTO))
    assert [p.state for p in run.proposals] == ["applied"]
    text = read(root, "digest/wiki/rollouts.md")
    assert text == related.replace(f"- [[{B}]]", f"- [[{A}]]")
    assert f"- [[{A}]]\n- [[{A}]]\n- [[{C}]]" in text
    assert outbound_keys(text) == {(A, None), (C, None), (D1, "derived_from")}
