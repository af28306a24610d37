"""Proposals: held or applied by policy, then accepted, rejected, reverted — as a user would."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.errors import RemeError
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.vault.checks import CheckSpec
from reme_workbench.vault.vault import Vault
from tests.conftest import snapshot

MAT = "daily/2026-10-05/log.md"
NOTE = "digest/wiki/pool-size.md"
OLD = f"---\nname: pool-size\ndescription: DB pool size.\n---\nPool is 10.\nderived_from:: [[{MAT}]]\n"
NEW = OLD.replace("Pool is 10.", "Pool is 40 since the incident.")


@pytest.fixture
def vault(make_vault, clock):
    root = make_vault({MAT: "log\n", NOTE: OLD})
    return Vault.open(root, clock=clock)


def refine(queue: ProposalQueue, vault: Vault, text: str = NEW, checks=None):
    data, stamp = vault.store.read(NOTE)
    from reme_workbench.vault.store import Edit

    return queue.new(
        "dream.refine",
        "refine pool-size with the incident",
        [Edit(NOTE, text.encode(), stamp)],
        checks=checks
        if checks is not None
        else [
            CheckSpec("has_provenance", {"path": NOTE, "material": MAT}),
            CheckSpec("only_paths", {"paths": [NOTE]}),
        ],
        story={"material": MAT, "flavor": "REFINE"},
    )


def test_policy_holds_refine_and_applies_create_by_default():
    policy = Policy()
    assert policy.should_apply("dream.create") and policy.should_apply("dream.corroborate")
    assert not policy.should_apply("dream.refine") and not policy.should_apply("dream.correct")


def test_held_proposal_is_stored_and_changes_nothing(vault):
    queue = ProposalQueue(vault)
    before = snapshot(vault.root)
    p = queue.submit(refine(queue, vault), Policy())
    assert p.state == "pending"
    stored = json.loads((vault.root / "meta" / "proposals" / f"{p.id}.json").read_text())
    assert stored["version"] == 1 and stored["computed_at"] and stored["state"] == "pending"
    assert stored["story"]["flavor"] == "REFINE"
    after = snapshot(vault.root)
    assert {k: v for k, v in after.items() if not k.startswith("meta/")} == before
    assert "-Pool is 10.\n+Pool is 40 since the incident.\n" in queue.diff(p)


def test_accept_applies_and_revert_restores_bytes(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    done = queue.accept(p.id[:12])  # a unique prefix is enough
    assert done.state == "applied"
    assert (vault.root / NOTE).read_text() == NEW
    assert any("proposals.md" in str(x) for x in (vault.root / "audit").rglob("*.md"))
    queue.revert(p.id)
    assert (vault.root / NOTE).read_text() == OLD
    assert queue.load(p.id).state == "reverted"


def _access_events(vault):
    log = vault.root / "meta" / "access_log.jsonl"
    if not log.exists():
        return []
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]


def test_an_applied_change_logs_a_touch_of_its_digest_notes(vault, clock):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    assert _access_events(vault) == []  # held: nothing touched yet
    queue.accept(p.id)
    (event,) = _access_events(vault)
    assert event["path"] == NOTE and event["event"] == "dream.refine"
    assert event["ts"].endswith("Z")
    # a change that does not apply (stale: the note moved on) touches nothing
    stale = queue.submit(refine(queue, vault, text=NEW + "more\n"), Policy())
    (vault.root / NOTE).write_text(OLD + "edited by hand\n")
    assert queue.accept(stale.id).state == "stale"
    assert len(_access_events(vault)) == 1


def accepted(queue: ProposalQueue, vault: Vault):
    """A refine a person accepted: applied, with its inverse."""
    p = queue.accept(queue.submit(refine(queue, vault), Policy()).id)
    assert p.state == "applied" and p.inverse
    return p


def test_a_trusted_action_that_rewrites_lines_waits_for_a_person(vault):
    """docs/spec.md §3.7.3: `auto_apply` trusts an action, and still only a change that
    adds lines applies without a person; the reason is in the story."""
    queue = ProposalQueue(vault)
    trusting = Policy(frozenset({"dream.refine"}))
    p = queue.submit(refine(queue, vault), trusting)
    assert p.state == "pending" and (vault.root / NOTE).read_text() == OLD
    held = queue.load(p.id).story["held"]
    assert held.startswith(f"rewrites 1 line of {NOTE}: held for a person"), held
    added = OLD.replace("Pool is 10.\n", "Pool is 10.\nPool is 40 at peak (a new line).\n")
    q = queue.submit(refine(queue, vault, text=added), trusting)
    assert q.state == "applied" and "held" not in q.story
    assert (vault.root / NOTE).read_text() == added


def test_revert_refuses_when_the_file_changed_since(vault):
    queue = ProposalQueue(vault)
    p = accepted(queue, vault)
    (vault.root / NOTE).write_text("a person edited this\n")
    with pytest.raises(RemeError, match="changed since it was applied"):
        queue.revert(p.id)
    assert (vault.root / NOTE).read_text() == "a person edited this\n"


def test_accept_of_a_proposal_whose_note_changed_marks_it_stale(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    (vault.root / NOTE).write_text(OLD + "someone added a line\n")
    done = queue.accept(p.id)
    assert done.state == "stale" and "re-run" in done.error
    assert (vault.root / NOTE).read_text().endswith("someone added a line\n")


def test_stored_checks_run_again_on_accept(vault):
    queue = ProposalQueue(vault)
    no_provenance = NEW.replace(f"derived_from:: [[{MAT}]]\n", "")
    p = queue.submit(refine(queue, vault, no_provenance), Policy())
    done = queue.accept(p.id)
    assert done.state == "rejected" and "has_provenance" in done.error
    assert (vault.root / NOTE).read_text() == OLD


def test_accept_with_a_persons_edit_still_runs_the_checks(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    edited = NEW.replace("since the incident", "(edited by me)")
    done = queue.accept(p.id, edited={NOTE: edited})
    assert done.state == "applied" and done.story["edited_by_person"] == [NOTE]
    assert (vault.root / NOTE).read_text() == edited


def test_reject_and_listing(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    queue.reject(p.id, "not true")
    assert [x.state for x in queue.list()] == ["rejected"]
    assert queue.list("pending") == []
    with pytest.raises(RemeError, match="only pending"):
        queue.accept(p.id)
    with pytest.raises(RemeError, match="Unknown state"):
        queue.list("done")
    with pytest.raises(RemeError, match="No proposal"):
        queue.load("p-nope")


def test_a_corrupt_proposal_file_does_not_hide_the_others(vault):
    queue = ProposalQueue(vault)
    good = queue.submit(refine(queue, vault), Policy())
    (vault.root / "meta/proposals/p-00000000-000000-bad.json").write_text("{not json")
    rows = {p.id: p for p in queue.list()}
    assert rows[good.id].state == "pending"
    assert rows["p-00000000-000000-bad"].summary.startswith("unreadable")


def test_a_tampered_proposal_cannot_write_outside_the_vault(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    path = vault.root / "meta/proposals" / f"{p.id}.json"
    data = json.loads(path.read_text())
    data["ops"][0] = {"op": "create", "path": "../../escape.md", "content": "x"}
    data["checks"] = []
    path.write_text(json.dumps(data))
    done = queue.accept(p.id)
    assert done.state == "rejected" and "leave the vault" in done.error
    assert not (vault.root.parent.parent / "escape.md").exists()


def run(vault, *args):
    return CliRunner().invoke(cli, ["--vault", str(vault.root), "proposals", *args])


def test_cli_list_show_accept_reject_revert(vault):
    queue = ProposalQueue(vault)
    a = queue.submit(refine(queue, vault), Policy())
    listing = json.loads(run(vault, "list", "--json").stdout)
    assert [(r["id"], r["state"], r["action"]) for r in listing] == [
        (a.id, "pending", "dream.refine")
    ]
    shown = run(vault, "show", a.id, "--text")
    assert shown.exit_code == 0
    assert "+Pool is 40 since the incident." in shown.stdout and "refine pool-size" in shown.stdout
    assert json.loads(run(vault, "accept", a.id, "--json").stdout)["state"] == "applied"
    assert json.loads(run(vault, "revert", a.id, "--json").stdout)["state"] == "reverted"
    b = queue.submit(refine(queue, vault), Policy())
    assert (
        json.loads(run(vault, "reject", b.id, "--reason", "wrong", "--json").stdout)["state"]
        == "rejected"
    )
    bad = run(vault, "accept", b.id)
    assert bad.exit_code == 1 and "only pending" in bad.output


def _touch(path, seconds_later: int = 3600) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds_later * 10**9))


def test_revert_after_a_timestamp_only_change_compares_content(vault):
    """`touch` (or a sync tool, or git) changes only the mtime: the content is what counts."""
    queue = ProposalQueue(vault)
    p = accepted(queue, vault)
    _touch(vault.root / NOTE)
    result = run(vault, "revert", p.id, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["state"] == "reverted"
    assert (vault.root / NOTE).read_text() == OLD


def test_revert_in_a_copied_vault(vault, tmp_path, clock):
    """`cp -r` gives every file a new mtime; a proposal applied in the original reverts
    in the copy, and its content check still guards a real edit."""
    queue = ProposalQueue(vault)
    p = accepted(queue, vault)
    copy = tmp_path / "copy"
    shutil.copytree(vault.root, copy, copy_function=shutil.copy)  # like cp -r: new mtimes
    assert (copy / NOTE).stat().st_mtime_ns != (vault.root / NOTE).stat().st_mtime_ns
    copied = Vault.open(copy, clock=clock)
    assert run(copied, "revert", p.id, "--json").exit_code == 0
    assert (copy / NOTE).read_text() == OLD
    assert (vault.root / NOTE).read_text() == NEW  # the original is untouched


def test_accept_after_a_timestamp_only_change_applies(vault):
    queue = ProposalQueue(vault)
    p = queue.submit(refine(queue, vault), Policy())
    _touch(vault.root / NOTE)
    assert queue.accept(p.id).state == "applied"
    assert (vault.root / NOTE).read_text() == NEW
