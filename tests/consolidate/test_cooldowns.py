"""Cooldowns (docs/spec.md §7.4): which action is locked out on which note, and for how
long; pruning; the 12-week alarm; no loop defence when the file cannot be used."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from reme_workbench.config import Settings
from reme_workbench.consolidate.cooldowns import Cooldowns, CooldownWindows
from reme_workbench.consolidate.run import consolidate_vault
from reme_workbench.errors import RemeError
from reme_workbench.vault.meta import read_meta
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

NOW = FIXED_NOW
A, B, C = "digest/wiki/a.md", "digest/wiki/b.md", "digest/wiki/c.md"


def days(n: float) -> timedelta:
    return timedelta(days=n)


def test_each_action_locks_out_the_one_that_would_undo_it(tmp_path):
    cd = Cooldowns(root=tmp_path)
    cd.start(A, "split", NOW)
    cd.start(B, "merge", NOW)
    cd.start(C, "abstract", NOW)
    # split -> no merge for 14 days; a split note may be split again
    assert cd.active(A, "merge", NOW + days(13)).until == NOW + days(14)
    assert cd.active(A, "merge", NOW + days(14)) is None
    assert cd.active(A, "split", NOW + days(1)) is None
    # merge -> no split for 14 days; merging it again is not forbidden, it is an alarm
    assert cd.active(B, "split", NOW + days(13)).key == "merge_to_split_days"
    assert cd.active(B, "split", NOW + days(14)) is None
    assert cd.active(B, "merge", NOW + days(1)) is None
    assert cd.merged_recently(B, NOW + days(83)).until == NOW + days(84)
    assert cd.merged_recently(B, NOW + days(84)) is None
    assert cd.merged_recently(A, NOW) is None
    # abstract -> the hub is no merge candidate for 28 days
    assert cd.active(C, "merge", NOW + days(27)).entry.action == "abstract"
    assert cd.active(C, "merge", NOW + days(28)) is None
    # an unrelated path, and an action that has not started yet
    assert cd.active("digest/wiki/other.md", "merge", NOW) is None
    assert cd.active(A, "merge", NOW - days(1)) is None


def test_the_windows_come_from_the_settings_and_zero_turns_a_rule_off(tmp_path):
    windows = CooldownWindows.from_settings(Settings.model_validate(
        {"cooldowns": {"split_to_merge_days": 0, "merge_to_merge_days": 7}}).cooldowns)
    assert windows.split_to_merge == timedelta(0) and windows.merge_to_merge == days(7)
    cd = Cooldowns(windows=windows, root=tmp_path)
    cd.start(A, "split", NOW)
    cd.start(B, "merge", NOW)
    assert cd.active(A, "merge", NOW) is None
    assert cd.merged_recently(B, NOW + days(6)) is not None
    assert cd.merged_recently(B, NOW + days(8)) is None


def test_an_unknown_action_is_refused(tmp_path):
    with pytest.raises(RemeError, match="Unknown consolidate action 'delete'.*split, merge, abstract"):
        Cooldowns(root=tmp_path).start(A, "delete", NOW)
    with pytest.raises(RemeError, match="Unknown consolidate action"):
        Cooldowns(root=tmp_path).active(A, "archive", NOW)


def test_saved_entries_round_trip_and_expired_ones_are_pruned(make_vault):
    root = make_vault({})
    cd = Cooldowns.load(root)
    assert cd.defended and cd.entries == []  # no file yet: nothing happened, defence holds
    cd.start(A, "split", NOW - days(20))  # 14-day window: expired
    cd.start(B, "merge", NOW - days(20))  # the 84-day alarm still covers it
    cd.start(C, "abstract", NOW - days(1))
    cd.save(NOW)
    doc = read_meta(root, "cooldowns", version=1).data
    assert doc["entries"] == [
        {"path": B, "action": "merge", "started_at": "2026-10-13T09:30:00Z"},
        {"path": C, "action": "abstract", "started_at": "2026-11-01T09:30:00Z"},
    ]
    again = Cooldowns.load(root)
    assert [(e.path, e.action) for e in again.entries] == [(B, "merge"), (C, "abstract")]
    assert again.active(C, "merge", NOW).until == NOW - days(1) + days(28)


def test_an_unusable_file_means_no_loop_defence_with_a_warning(make_vault):
    root = make_vault({})
    (root / "meta/cooldowns.json").write_text(json.dumps({
        "version": 2, "entries": [{"path": A, "action": "split", "started_at": "2026-11-01T00:00:00Z"}],
    }), encoding="utf-8")
    cd = Cooldowns.load(root)
    assert not cd.defended and "version 2" in cd.warning and "no loop defence" in cd.warning
    assert cd.active(A, "merge", NOW) is None and cd.cooldowns(NOW) == []
    (root / "meta/cooldowns.json").write_text("{broken", encoding="utf-8")
    assert "not valid JSON" in Cooldowns.load(root).warning
    # bad entries inside a good file are skipped, the good ones kept
    (root / "meta/cooldowns.json").write_text(json.dumps({"version": 1, "entries": [
        {"path": A, "action": "split", "started_at": "2026-11-01T00:00:00Z"},
        {"path": B, "action": "explode", "started_at": "2026-11-01T00:00:00Z"},
        {"path": C, "action": "merge", "started_at": "soon"}, "junk"]}), encoding="utf-8")
    loaded = Cooldowns.load(root)
    assert loaded.defended and [e.path for e in loaded.entries] == [A]


def test_consolidate_prunes_and_reports_the_active_cooldowns(make_vault):
    root = make_vault({})
    cd = Cooldowns.load(root)
    cd.start(A, "split", NOW - days(15))  # 13 days old when saved, 15 (expired) at the run
    cd.start(B, "merge", NOW - days(2))
    cd.save(NOW - days(2))
    vault = Vault.open(root, clock=lambda: NOW)
    report = consolidate_vault(vault, Settings(), only="cooldowns")
    (phase,) = report.phases
    assert [c["path"] for c in phase.details["pruned"]] == [A]
    assert [(c["path"], c["forbids"]) for c in phase.details["active"]] == [
        (B, "split"), (B, "merge-without-a-person")]
    assert phase.summary.startswith(f"2 active: {B} no split until 2026-11-14")
    assert phase.changed == ("meta/cooldowns.json",)
    assert [e["path"] for e in read_meta(root, "cooldowns", version=1).data["entries"]] == [B]
    # a file of another version is left alone, and the run says there is no defence
    (root / "meta/cooldowns.json").write_text('{"version": 9}', encoding="utf-8")
    (phase,) = consolidate_vault(vault, Settings(), only="cooldowns").phases
    assert phase.details["defended"] is False and "no loop defence" in phase.summary
    assert (root / "meta/cooldowns.json").read_text() == '{"version": 9}'


def test_cooldowns_start_when_a_consolidate_proposal_applies(make_vault):
    from reme_workbench.proposals.model import Proposal

    def proposal(state, action, at, cooldowns):
        return Proposal(id="p-1", action=action, summary="s", ops=(), state=state,
                        updated_at=at.isoformat(), story={"cooldowns": cooldowns})

    root = make_vault({})
    cd = Cooldowns.load(root)
    merged = [{"path": B, "action": "merge"}]
    added = cd.sync_applied([
        proposal("applied", "consolidate.merge", NOW - days(1), merged),
        proposal("pending", "consolidate.split", NOW, [{"path": A, "action": "split"}]),
        proposal("applied", "dream.create", NOW, [{"path": C, "action": "split"}]),
        proposal("applied", "consolidate.split", NOW - days(30), [{"path": A, "action": "split"}]),
        proposal("applied", "consolidate.abstract", NOW, [{"path": C, "action": "nope"}, "junk"]),
    ], NOW)
    # only the applied consolidate proposal within its windows; the 30-day-old split expired
    assert [(e.path, e.action, e.started_at) for e in added] == [(B, "merge", NOW - days(1))]
    assert cd.active(B, "split", NOW).until == NOW - days(1) + days(14)
    again = cd.sync_applied([proposal("applied", "consolidate.merge", NOW - days(1), merged)], NOW)
    assert again == [] and len(cd.entries) == 1  # idempotent


def test_consolidate_starts_the_cooldowns_of_a_proposal_applied_through_the_queue(make_vault):
    from reme_workbench.proposals import Policy, ProposalQueue

    note = "---\nname: b\ndescription: B.\n---\nB.\n"
    root = make_vault({B: note})
    vault = Vault.open(root, clock=lambda: NOW)
    queue = ProposalQueue(vault)
    op = vault.store.plan_edit(B, note.replace("B.\n", "B, merged.\n", 1))
    held = queue.submit(queue.new("consolidate.merge", "merge a into b", [op],
                                  story={"cooldowns": [{"path": B, "action": "merge"}]}),
                        Policy.hold_everything())
    (phase,) = consolidate_vault(vault, Settings(), only="cooldowns").phases
    assert phase.details["started"] == []  # waiting for a person: no cooldown yet
    queue.accept(held.id)
    (phase,) = consolidate_vault(vault, Settings(), only="cooldowns").phases
    assert [(e["path"], e["action"]) for e in phase.details["started"]] == [(B, "merge")]
    assert "1 started by applied proposals" in phase.summary
    assert Cooldowns.load(root).active(B, "split", NOW) is not None
    (phase,) = consolidate_vault(vault, Settings(), only="cooldowns").phases
    assert phase.details["started"] == []
