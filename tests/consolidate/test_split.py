"""Split (docs/spec.md §7.8): the queue, one changeset per split, the checks, the edges.

A tiny fake ConsolidateBrain answers `plan_split` from a script; its replies go through
the same validation and retry as a model's (`complete_structured`), so a hostile reply
meets the schema first and the checks second.
"""

from __future__ import annotations

import json
from collections import deque
from datetime import timedelta

import pytest

from reme_workbench.consolidate.cooldowns import CooldownEntry, Cooldowns
from reme_workbench.consolidate.split import body_tokens, queue_overloaded, run_split_queue
from reme_workbench.llm.base import Usage
from reme_workbench.llm.cassette import Exchange
from reme_workbench.llm.schema import SplitPlan
from reme_workbench.llm.structured import complete_structured
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.vault.links import outbound_keys, parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.split_queue import (
    enqueue_splits,
    read_split_queue,
    settle_split_queue,
)
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW, snapshot
from tests.consolidate_fakes import OneTaskBrain

LOG = "daily/2026-10-05/ops-review.md"
HANDBOOK = "resource/2026-10-01/handbook.md"
PARENT = "digest/wiki/payments-platform.md"
INBOUND = "digest/wiki/incident-review.md"
CANARY = "digest/wiki/canary.md"
RUNBOOK = "digest/wiki/runbook.md"
ROLLBACK = "digest/procedure/rollback.md"
THRESHOLD = 150

PARENT_FM = (
    "---\nname: payments-platform\ndescription: Everything about the payments platform.\n"
    "tags:\n- ops\n- payments\n---\n"
)
PARENT_BODY = f"""# Payments platform

## Deploys

payments-api is deployed with a canary: ten minutes at five percent of the traffic,
then the whole fleet. See [[{CANARY}|canary releases]]; the steps are
is_a:: [[{RUNBOOK}]]

1. Tag the release and build the image.
2. Start the canary and watch the error rate and the p99 latency.
3. Promote when both stay flat for ten minutes.

## Incidents

> [!warning] Paging
> A failed deploy pages the on-call engineer; roll back first, debug later.

When the error rate doubles, follow [[{ROLLBACK}]] and write the review the same day.
Reviews name the trigger, the detection delay and the follow-up tasks.

## 数据库迁移

迁移脚本在发布之前单独运行，先在预发环境验证，再在生产环境执行。每次迁移都要可以回滚，
并且在变更窗口内完成。大表的迁移分批进行，避免锁表。

derived_from:: [[{LOG}]]
derived_from:: [[{HANDBOOK}]]
"""
PARENT_TEXT = PARENT_FM + PARENT_BODY


def files() -> dict[str, str]:
    return {
        LOG: "---\nname: ops-review\ndescription: d\n---\nReviewed [[payments-platform]] deploys.\n"
             f"See [[{PARENT}]].\n",
        HANDBOOK: "# Handbook\nThe payments handbook.\n",
        PARENT: PARENT_TEXT,
        INBOUND: f"---\nname: incident-review\ndescription: How reviews run.\n---\nReviews of "
                 f"[[{PARENT}|the payments platform]].\n\nderived_from:: [[{LOG}]]\n",
        CANARY: f"---\nname: canary\ndescription: Canary releases.\n---\nA small release first.\n"
                f"derived_from:: [[{LOG}]]\n",
        RUNBOOK: f"---\nname: runbook\ndescription: Runbooks.\n---\nA runbook.\nderived_from:: [[{LOG}]]\n",
        ROLLBACK: f"---\nname: rollback\ndescription: Roll back.\n---\nRoll back.\nderived_from:: [[{LOG}]]\n",
    }


@pytest.fixture
def vault(make_vault, clock):
    return Vault.open(make_vault(files()), clock=clock)


def queue(vault, path=PARENT):
    text = (vault.root / path).read_text(encoding="utf-8")
    enqueue_splits(vault.root, [(path, body_tokens(text, path))], by="dream", now=FIXED_NOW)


class FakeSplitBrain(OneTaskBrain):
    """Answers plan_split with the next scripted reply (a dict, a raw string, or a
    callable of the request); the other tasks are not this test's."""

    model = "fake-split"

    def __init__(self, *replies) -> None:
        self.replies = deque(replies)
        self.requests = []

    def plan_split(self, request):
        self.requests.append(request)
        reply = self.replies.popleft()
        reply = reply(request) if callable(reply) else reply
        raw = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        return complete_structured(
            send=lambda _m: Exchange(raw=raw, usage=Usage(120, 80), model=self.model),
            messages=[], reply_model=SplitPlan, model=self.model, language="en",
            what="plan_split reply")


def plan(*, drop_rollback=False, link_children=True, names=("Deploys", "Incidents", "数据库迁移"),
         extra=None):
    """An overloaded plan: the three sections become three children."""
    deploys, incidents, migrations = names
    links = f"[[{deploys}]], [[{incidents}]] and [[{migrations}]]" if link_children else "three notes"
    rollback = "follow the rollback runbook" if drop_rollback else f"follow [[{ROLLBACK}]]"
    children = [
        {"name": deploys, "description": "How payments-api is deployed with a canary.",
         "body": f"## Deploys\n\nA canary first, see [[{CANARY}|canary releases]]; the steps are\n"
                 f"is_a:: [[{RUNBOOK}]]\n\n1. Tag the release.\n2. Start the canary.\n"
                 f"3. Promote.\n\nPart of [[payments-platform]].\n"},
        {"name": incidents, "description": "What happens when a payments deploy fails.",
         "body": f"## Incidents\n\n> [!warning] Paging\n> Roll back first, debug later.\n\n"
                 f"When the error rate doubles, {rollback}.\n"},
        {"name": migrations, "description": "支付平台的数据库迁移规则。",
         "body": "## 数据库迁移\n\n迁移脚本在发布之前单独运行，先在预发环境验证。大表分批迁移。\n"},
    ]
    for child, more in zip(children, extra or [], strict=False):
        child.update(more)
    return {"overloaded": True, "reason": "deploys, incidents and migrations are three topics",
            "parent_body": f"# Payments platform\n\nAn overview: {links}.\n\n"
                           f"derived_from:: [[{LOG}]]\n",
            "children": children}


def run(vault, brain, **kw):
    kw.setdefault("threshold", THRESHOLD)
    kw.setdefault("now", FIXED_NOW)
    return run_split_queue(vault, brain, **kw)


def split_by_a_person(vault, brain):
    """A split `[proposals] auto_apply` trusts still waits — it rewrites its parent, and
    only a change that adds applies without a person (docs/spec.md §3.7.3) — until a
    person accepts it."""
    (o,) = run(vault, brain, policy=Policy(frozenset({"consolidate.split"}))).outcomes
    proposals = ProposalQueue(vault)
    assert o.state == "pending", o
    assert f"of {PARENT}: held for a person" in proposals.load(o.proposal_id).story["held"]
    assert proposals.accept(o.proposal_id).state == "applied"
    return o


def outside_meta(root):
    return {k: v for k, v in snapshot(root).items() if not k.startswith(("meta/", "audit/"))}


def test_the_fixture_is_over_the_threshold_and_its_overview_is_not():
    assert body_tokens(PARENT_TEXT, PARENT) > THRESHOLD
    assert body_tokens(PARENT_TEXT, PARENT) == body_tokens(PARENT_BODY, PARENT)  # body only


def test_a_split_is_one_held_changeset_with_its_story(vault):
    queue(vault)
    before = outside_meta(vault.root)
    brain = FakeSplitBrain(plan())
    result = run(vault, brain)
    (o,) = result.outcomes
    assert o.state == "pending" and o.path == PARENT  # default policy: a person decides
    kids = ("digest/wiki/deploys.md", "digest/wiki/incidents.md", "digest/wiki/数据库迁移.md")
    assert o.children == kids
    assert outside_meta(vault.root) == before  # held: nothing written yet
    assert read_split_queue(vault.root).paths == ()  # consolidate drained the queue
    proposal = ProposalQueue(vault).load(o.proposal_id)
    assert proposal.action == "consolidate.split"
    assert [(type(op).__name__, op.path) for op in proposal.ops] == [
        ("Edit", PARENT), *(("Create", k) for k in kids)]
    story = proposal.story
    assert story["tokens"] == body_tokens(PARENT_TEXT, PARENT) and story["threshold"] == THRESHOLD
    assert json.loads(story["attempts"][0]["raw"])["reason"].startswith("deploys")
    assert [c["path"] for c in story["plan"]["children"]] == list(kids)
    assert story["tokens_used"] == Usage(120, 80).to_json()
    assert {c["name"] for c in story["checks"]} >= {
        "union_keeps_outbound", "links_to", "carries_provenance", "only_paths",
        "creates_in_bucket", "name_matches_basename", "links_resolve", "no_sources_written"}
    assert story["cooldowns"] == [{"path": p, "action": "split"} for p in (PARENT, *kids)]
    request = brain.requests[0]
    assert (request.note.path, request.tokens, request.threshold, request.bucket) == (
        PARENT, story["tokens"], THRESHOLD, "wiki")
    assert "## 数据库迁移" in request.note.body and "tags" not in request.note.body

    ProposalQueue(vault).accept(o.proposal_id)
    parent = (vault.root / PARENT).read_text(encoding="utf-8")
    assert parent.startswith(PARENT_FM)  # in place, frontmatter kept byte for byte
    assert "An overview" in parent and "## Incidents" not in parent
    old = outbound_keys(PARENT_TEXT)
    union = outbound_keys(parent)
    for kid in kids:
        text = (vault.root / kid).read_text(encoding="utf-8")
        note = parse(text, kid)
        assert note.name == kid.rsplit("/", 1)[1][:-3]
        assert PARENT in {t for t, _ in outbound_keys(text)}  # links back to the parent
        provenance = {lk.target for lk in parse_links(text) if lk.predicate == "derived_from"}
        assert provenance == {LOG, HANDBOOK}  # carries the parent's provenance
        union |= outbound_keys(text)
    assert union >= old  # E-2
    assert "> [!warning] Paging" in (vault.root / kids[1]).read_text(encoding="utf-8")
    # the short link the brain wrote to the parent by name was pointed at its path
    assert f"[[{PARENT}|payments-platform]]" in (vault.root / kids[0]).read_text(encoding="utf-8")


def test_inbound_files_are_untouched(vault):
    queue(vault)
    inbound = {p: ((vault.root / p).read_bytes(), (vault.root / p).stat().st_mtime_ns)
               for p in (INBOUND, LOG, CANARY)}
    o = split_by_a_person(vault, FakeSplitBrain(plan()))
    for path, (data, mtime) in inbound.items():
        assert (vault.root / path).read_bytes() == data
        assert (vault.root / path).stat().st_mtime_ns == mtime
    vault.refresh()  # the inbound link still names the parent, and the children joined it
    assert {s for s, _ in vault.graph.inbound(PARENT)} == {INBOUND, *o.children}


def test_a_split_parent_is_a_hub_of_its_children(vault):
    """Abstract's gate (1), docs/spec.md §7.6.5: a member whose outbound links into the
    community cover >= 60 % of it. Here the brain's overview links no child at all: the
    plan completes the links, so the parent covers every child."""
    queue(vault)
    o = split_by_a_person(vault, FakeSplitBrain(plan(link_children=False)))
    story = ProposalQueue(vault).load(o.proposal_id).story
    assert any(c["path"] == PARENT for c in story["completed"])
    vault.refresh()
    community = {PARENT, *o.children}
    covered = {t for t, _ in vault.graph.outbound(PARENT)} & community
    assert len(covered) / len(community) >= 0.6
    assert covered == set(o.children)


def test_an_e2_violation_gets_one_retry_then_is_rejected_and_kept_out(vault):
    queue(vault)
    before = outside_meta(vault.root)
    brain = FakeSplitBrain(plan(drop_rollback=True), plan(drop_rollback=True))
    (o,) = run(vault, brain).outcomes
    assert o.state == "rejected" and ROLLBACK in o.reason
    assert brain.requests[0].feedback is None
    assert ROLLBACK in brain.requests[1].feedback and "union_keeps_outbound" in brain.requests[1].feedback
    assert outside_meta(vault.root) == before
    stored = ProposalQueue(vault).load(o.proposal_id)
    assert stored.state == "rejected" and ROLLBACK in stored.error
    assert len(stored.story["attempts"]) == 2
    audit = (vault.root / f"audit/{FIXED_NOW.date()}/consolidate_actions.md").read_text()
    assert f"split rejected: [[{PARENT}]]" in audit
    # queued again without a change: not asked again
    queue(vault)
    again = FakeSplitBrain()
    (o2,) = run(vault, again).outcomes
    assert o2.state == "rejected-before" and again.requests == []
    # once the note changes it is a new question
    with open(vault.root / PARENT, "a", encoding="utf-8") as fh:
        fh.write("\nOne more line about deploys.\n")
    queue(vault)
    third = FakeSplitBrain(plan())
    assert run(vault, third).outcomes[0].state == "pending" and len(third.requests) == 1
    assert read_split_queue(vault.root).rejected == ()


def test_a_violation_fixed_on_the_retry_is_proposed(vault):
    queue(vault)
    brain = FakeSplitBrain(plan(drop_rollback=True), plan())
    (o,) = run(vault, brain).outcomes
    assert o.state == "pending" and len(brain.requests) == 2


def test_children_are_created_exclusively_all_or_nothing(vault):
    taken = "digest/wiki/deploys.md"
    (vault.root / taken).write_text("---\nname: deploys\ndescription: Someone else's.\n---\nMine.\n")
    queue(vault)
    (o,) = run(vault, FakeSplitBrain(plan())).outcomes
    assert o.children[0] == "digest/wiki/deploys-2.md"  # a taken slug gets the next free one
    # a planned child's path appears before a person accepts: the create refuses it,
    # and then nothing of the split lands; the proposal is stale, to plan again (§3.2.5)
    (vault.root / "digest/wiki/incidents.md").write_text("---\nname: incidents\n---\nNew.\n")
    parent = (vault.root / PARENT).read_bytes()
    done = ProposalQueue(vault).accept(o.proposal_id)
    assert done.state == "stale" and "incidents.md" in done.error
    assert (vault.root / PARENT).read_bytes() == parent
    assert not (vault.root / "digest/wiki/deploys-2.md").exists()
    assert not (vault.root / "digest/wiki/数据库迁移.md").exists()
    assert (vault.root / taken).read_text().endswith("Mine.\n")
    assert (vault.root / "digest/wiki/incidents.md").read_text().endswith("New.\n")


def test_a_note_in_a_merge_to_split_cooldown_stays_queued(vault):
    cooldowns = Cooldowns([CooldownEntry(PARENT, "merge", FIXED_NOW - timedelta(days=3))],
                          root=vault.root)
    queue(vault)
    brain = FakeSplitBrain()
    (o,) = run(vault, brain, cooldowns=cooldowns).outcomes
    assert o.state == "cooldown" and "merge_to_split_days" in o.reason
    assert brain.requests == [] and read_split_queue(vault.root).paths == (PARENT,)
    later = FakeSplitBrain(plan())
    (o2,) = run(vault, later, cooldowns=cooldowns, now=FIXED_NOW + timedelta(days=12)).outcomes
    assert o2.state == "pending" and read_split_queue(vault.root).paths == ()


def test_a_note_nobody_queued_respects_the_merge_to_split_cooldown_too(vault):
    cooldowns = Cooldowns([CooldownEntry(PARENT, "merge", FIXED_NOW - timedelta(days=3))],
                          root=vault.root)
    brain = FakeSplitBrain()
    result = run(vault, brain, cooldowns=cooldowns)  # PARENT is over 150 tokens, not queued
    (o,) = result.outcomes
    assert (o.state, o.by) == ("cooldown", "consolidate.scan") and brain.requests == []
    assert result.remaining == (PARENT,) and "1 left for a later run" in result.summary()
    stored = read_split_queue(vault.root)
    assert stored.paths == () and stored.not_overloaded == ()  # nothing decided, nothing kept
    later = FakeSplitBrain(plan())
    (o2,) = run(vault, later, cooldowns=cooldowns, now=FIXED_NOW + timedelta(days=12)).outcomes
    assert (o2.state, o2.by) == ("pending", "consolidate.scan")


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/cron.d/evil", "digest/secret/x.md",
                                  "daily/2026-10-05/ops-review", "C:\\evil", "overview.md"])
def test_a_child_name_that_is_a_path_is_refused(vault, name):
    queue(vault)
    before = outside_meta(vault.root)
    brain = FakeSplitBrain(plan(names=(name, "Incidents", "数据库迁移")),
                           plan(names=(name, "Incidents", "数据库迁移")))
    (o,) = run(vault, brain).outcomes
    assert o.state == "rejected" and "looks like a file path" in o.reason
    assert "looks like a file path" in brain.requests[1].feedback
    assert outside_meta(vault.root) == before


def test_extra_path_and_bucket_fields_in_a_reply_change_nothing(vault):
    queue(vault)
    hostile = [{"path": "../../outside.md", "bucket": "secret"}, {"bucket": "procedure"}]
    o = split_by_a_person(vault, FakeSplitBrain(plan(extra=hostile)))
    assert all(c.startswith("digest/wiki/") for c in o.children)  # the parent's bucket
    assert not (vault.root.parent / "outside.md").exists()


def test_a_megabyte_body_is_refused_by_the_schema(vault):
    queue(vault)
    before = outside_meta(vault.root)
    huge = plan(extra=[{"body": "x " * 500_000}])
    brain = FakeSplitBrain(huge)
    (o,) = run(vault, brain).outcomes
    assert o.state == "failed" and "no usable" in o.reason
    assert outside_meta(vault.root) == before
    assert ProposalQueue(vault).ids() == []
    assert read_split_queue(vault.root).paths == (PARENT,)  # tried again next run


def test_a_note_that_is_not_overloaded_is_dequeued_remembered_and_audited(vault):
    queue(vault)
    calm = {"overloaded": False, "reason": "one topic: the payments platform", "children": []}
    brain = FakeSplitBrain(calm)
    (o,) = run(vault, brain).outcomes
    assert o.state == "not-overloaded"
    stored = read_split_queue(vault.root)
    assert stored.paths == ()
    (judged,) = stored.not_overloaded
    assert (judged.path, judged.tokens) == (PARENT, o.tokens) and "one topic" in judged.reason
    audit = (vault.root / f"audit/{FIXED_NOW.date()}/consolidate_actions.md").read_text()
    (line,) = [x for x in audit.splitlines() if "split not needed" in x]  # one summary line
    assert line.startswith("- split not needed for 1 note(s) over 150 tokens")
    assert f"[[{PARENT}]]" in line and "one topic" in line
    assert ProposalQueue(vault).ids() == []
    # the same bytes are not asked about again, queued or not
    again = run(vault, FakeSplitBrain())
    assert again.outcomes == () and again.calls == 0
    queue(vault)
    (o,) = run(vault, FakeSplitBrain()).outcomes
    assert o.state == "judged-before" and read_split_queue(vault.root).paths == ()
    # once the note changes, it is judged again
    (vault.root / PARENT).write_text(PARENT_TEXT + "\nOne more line.\n", encoding="utf-8")
    brain = FakeSplitBrain(calm)
    (o,) = run(vault, brain).outcomes
    assert o.state == "not-overloaded" and o.by == "consolidate.scan" and len(brain.requests) == 1
    assert read_split_queue(vault.root).not_overloaded[0].sha256 != judged.sha256


def test_short_and_gone_notes_are_dropped_and_counted(vault):
    enqueue_splits(vault.root, [(CANARY, 9999), ("digest/wiki/gone.md", 9999)], by="dream",
                   now=FIXED_NOW)
    brain = FakeSplitBrain()
    result = run(vault, brain, threshold=400)  # no note of the fixture is over 400 tokens
    assert [o.state for o in result.outcomes] == ["under-threshold", "missing"]
    assert brain.requests == [] and result.remaining == ()
    assert "1 under the threshold now" in result.summary()


def test_dry_run_plans_and_writes_nothing(vault):
    queue(vault)
    before = snapshot(vault.root)
    (o,) = run(vault, FakeSplitBrain(plan()), dry_run=True).outcomes
    assert o.state == "dry-run" and len(o.children) == 3
    assert snapshot(vault.root) == before


def test_a_split_waiting_for_review_is_not_planned_again(vault):
    queue(vault)
    first = run(vault, FakeSplitBrain(plan())).outcomes[0]
    queue(vault)  # queued again, the note unchanged
    brain = FakeSplitBrain()
    (o,) = run(vault, brain).outcomes
    assert o.state == "waiting" and o.proposal_id == first.proposal_id and brain.requests == []


def test_a_child_still_over_the_threshold_is_found_by_the_next_run(vault):
    long_child = {"body": "## Deploys\n\n" + "Canary steps and checks for payments-api. " * 60
                  + f"\nSee [[{CANARY}]].\nis_a:: [[{RUNBOOK}]]\n"}
    queue(vault)
    o = split_by_a_person(vault, FakeSplitBrain(plan(extra=[long_child])))
    # accepted by a person, not in the run: the next run's look finds the long child
    calm = {"overloaded": False, "reason": "one topic: deploys", "children": []}
    (again,) = run(vault, FakeSplitBrain(calm)).outcomes
    assert (again.path, again.by) == (o.children[0], "consolidate.scan")


def test_queue_overloaded_counts_the_body_not_the_frontmatter(vault):
    heavy = "digest/wiki/heavy-frontmatter.md"
    (vault.root / heavy).write_text("---\nname: heavy-frontmatter\ndescription: d\nnotes: "
                                    + "word " * 3000 + "\n---\nShort body.\n", encoding="utf-8")
    assert queue_overloaded(vault, [heavy, PARENT], by="consolidate.merge",
                            threshold=THRESHOLD) == (PARENT,)


# -- the queue file ------------------------------------------------------------------------

def test_the_queue_dedups_by_path_and_settles_only_what_it_saw(tmp_path):
    enqueue_splits(tmp_path, [(PARENT, 300)], by="dream", now=FIXED_NOW)
    seen = read_split_queue(tmp_path).entries
    later = FIXED_NOW + timedelta(minutes=5)
    enqueue_splits(tmp_path, [(PARENT, 320), (CANARY, 400)], by="dream", now=later)
    q = read_split_queue(tmp_path)
    assert [(e.path, e.tokens) for e in q.entries] == [(PARENT, 320), (CANARY, 400)]
    # a run that saw the first entry does not remove the one queued while it ran
    settle_split_queue(tmp_path, seen, now=later)
    assert read_split_queue(tmp_path).paths == (PARENT, CANARY)
    settle_split_queue(tmp_path, read_split_queue(tmp_path).entries, now=later)
    assert read_split_queue(tmp_path).paths == ()
    doc = json.loads((tmp_path / "meta/split_queue.json").read_text())
    assert list(doc)[:3] == ["version", "computed_at", "queue"] and doc["version"] == 1


def test_the_queue_file_is_a_trust_boundary(tmp_path):
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta/split_queue.json").write_text(json.dumps({
        "version": 1, "computed_at": "2026-11-02T09:30:00Z",
        "queue": [{"path": "../../etc/passwd", "tokens": 1, "queued_at": "x", "by": "me"},
                  {"path": "daily/2026-10-05/ops-review.md", "tokens": 1, "queued_at": "x", "by": "me"},
                  {"path": PARENT, "tokens": "many", "queued_at": "x", "by": "me"},
                  {"path": CANARY, "tokens": 2500, "queued_at": "x", "by": "dream"}]}))
    assert read_split_queue(tmp_path).paths == (CANARY,)
    (tmp_path / "meta/split_queue.json").write_text('{"version": 2, "queue": []}')
    q = read_split_queue(tmp_path)
    assert q.paths == () and "version 2" in q.warning
    with pytest.raises(Exception, match="not a digest note"):
        enqueue_splits(tmp_path, [("../x.md", 3000)], by="dream", now=FIXED_NOW)


def test_a_link_to_the_path_a_brain_guessed_follows_the_free_slug(vault):
    """A brain links a child by the path its name would get; that slug is taken, so the
    child lands at -2 and the link follows it instead of naming someone else's note."""
    taken = "digest/wiki/deploys.md"
    (vault.root / taken).write_text("---\nname: deploys\ndescription: Someone else's.\n---\nMine.\n")
    queue(vault)
    guessed = plan(link_children=False)
    guessed["parent_body"] = guessed["parent_body"].replace(
        "three notes", f"[[{taken}|deploys]] and two more")
    (o,) = run(vault, FakeSplitBrain(guessed)).outcomes
    parent = next(op for op in ProposalQueue(vault).load(o.proposal_id).ops if op.path == PARENT)
    links = {t for t, _ in outbound_keys(parent.content.decode())}
    assert "digest/wiki/deploys-2.md" in links and taken not in links
