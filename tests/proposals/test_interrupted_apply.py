"""A Ctrl-C or a crash between writing a proposal's files and saving its record: the record
and the files never disagree after it (docs/spec.md §3.7.7). The process that opens the
queue next finds the change it can see and revert, or a proposal that waits as before."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.errors import RemeError
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.vault.checks import CheckSpec
from reme_workbench.vault.lock import RunLock
from reme_workbench.vault.store import Create, Edit, Store
from reme_workbench.vault.vault import Vault

MAT = "daily/2026-10-05/log.md"
NOTE = "digest/wiki/pool-size.md"
FRESH = "digest/wiki/pool-owner.md"
OLD = f"---\nname: pool-size\ndescription: DB pool size.\n---\nPool is 10.\nderived_from:: [[{MAT}]]\n"
NEW = OLD.replace("Pool is 10.", "Pool is 40 since the incident.")
OWNER = (f"---\nname: pool-owner\ndescription: Who owns the pool.\n---\nDana owns the pool.\n"
         f"derived_from:: [[{MAT}]]\n")


class Crash(BaseException):
    """Stands for the process dying: nothing after the raise runs, like SIGKILL."""


@pytest.fixture
def root(make_vault):
    return make_vault({MAT: "log\n", NOTE: OLD})


def _refine(queue: ProposalQueue, vault: Vault):
    _, stamp = vault.store.read(NOTE)
    return queue.new(
        "dream.refine", "refine pool-size with the incident", [Edit(NOTE, NEW.encode(), stamp)],
        checks=[CheckSpec("has_provenance", {"path": NOTE, "material": MAT})],
    )


def _create(queue: ProposalQueue):
    return queue.new("dream.create", "who owns the pool", [Create(FRESH, OWNER.encode())])


def _die_after_write(monkeypatch, vault: Vault, error: type[BaseException]) -> None:
    """`vault.apply` writes the files, then the process stops before anything else runs."""
    real = vault.apply

    def apply_then_die(changeset):
        real(changeset)
        raise error()

    monkeypatch.setattr(vault, "apply", apply_then_die)


def _die_before_write(monkeypatch, vault: Vault) -> None:
    def die(changeset):
        raise Crash()

    monkeypatch.setattr(vault, "apply", die)


def _stored(root, pid: str) -> dict:
    return json.loads((root / "meta" / "proposals" / f"{pid}.json").read_text())


def _cli(root, *args):
    return CliRunner().invoke(cli, ["--vault", str(root), "proposals", *args])


def _naming(root, path: str) -> list[dict]:
    """What a new process lists: every proposal that writes `path`."""
    result = _cli(root, "list", "--json")
    assert result.exit_code == 0, result.output
    return [row for row in json.loads(result.output) if path in row["files"]]


@pytest.mark.parametrize("error", [KeyboardInterrupt, Crash])
def test_auto_applied_create_interrupted_after_the_write_is_recorded(root, clock, monkeypatch,
                                                                     error):
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    _die_after_write(monkeypatch, vault, error)
    with pytest.raises(error):
        made = _create(queue)
        queue.submit(made, Policy())

    assert (root / FRESH).read_text() == OWNER  # the note landed
    # Ctrl-C settles the record in the process; a kill leaves it `applying`, with the undo
    assert _stored(root, made.id)["state"] == ("applied" if error is KeyboardInterrupt
                                               else "applying")
    rows = _naming(root, FRESH)
    assert [r["state"] for r in rows] == ["applied"], rows
    # and it can be reverted, as any applied proposal
    result = _cli(root, "revert", rows[0]["id"])
    assert result.exit_code == 0, result.output
    assert not (root / FRESH).exists()


@pytest.mark.parametrize("error", [KeyboardInterrupt, Crash])
def test_accept_interrupted_after_the_write_is_recorded_and_reverts(root, clock, monkeypatch,
                                                                    error):
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    held = queue.submit(_refine(queue, vault), Policy())
    assert held.state == "pending"
    _die_after_write(monkeypatch, vault, error)
    with pytest.raises(error):
        queue.accept(held.id)

    assert (root / NOTE).read_text() == NEW
    assert _stored(root, held.id)["state"] == ("applied" if error is KeyboardInterrupt
                                               else "applying")
    assert [r["state"] for r in _naming(root, NOTE)] == ["applied"]
    result = _cli(root, "revert", held.id)
    assert result.exit_code == 0, result.output
    assert (root / NOTE).read_text() == OLD
    assert json.loads(_cli(root, "show", held.id, "--json").output)["state"] == "reverted"


def test_submit_stopped_before_the_write_keeps_no_record_in_the_process(root, clock,
                                                                        monkeypatch):
    """Ctrl-C before anything is written: as before the fix, no note and no proposal."""
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)

    def interrupted(changeset):
        raise KeyboardInterrupt()

    monkeypatch.setattr(vault, "apply", interrupted)
    with pytest.raises(KeyboardInterrupt):
        queue.submit(_create(queue), Policy())
    assert not (root / FRESH).exists()
    assert queue.ids() == []


def test_submit_killed_before_the_write_waits_for_a_person(root, clock, monkeypatch):
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    _die_before_write(monkeypatch, vault)
    with pytest.raises(Crash):
        queue.submit(_create(queue), Policy())

    assert not (root / FRESH).exists()
    rows = _naming(root, FRESH)
    assert [r["state"] for r in rows] == ["pending"], rows
    shown = _cli(root, "show", rows[0]["id"], "--text")
    assert "interrupted: an apply was stopped before it wrote anything" in shown.output
    result = _cli(root, "accept", rows[0]["id"], "--text")
    assert result.exit_code == 0 and "is now applied" in result.output, result.output
    assert (root / FRESH).read_text() == OWNER


@pytest.mark.parametrize("error", [KeyboardInterrupt, Crash])
def test_accept_stopped_before_the_write_is_pending_again(root, clock, monkeypatch, error):
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    held = queue.submit(_refine(queue, vault), Policy())

    def stopped(changeset):
        raise error()

    monkeypatch.setattr(vault, "apply", stopped)
    with pytest.raises(error):
        queue.accept(held.id)

    assert (root / NOTE).read_text() == OLD
    assert [r["state"] for r in _naming(root, NOTE)] == ["pending"]
    result = _cli(root, "accept", held.id, "--text")
    assert result.exit_code == 0 and "is now applied" in result.output, result.output
    assert (root / NOTE).read_text() == NEW


def test_killed_apply_whose_note_was_edited_since_is_stale(root, clock, monkeypatch):
    """The files hold neither what it was planned on nor what it writes: stale, saying so."""
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    held = queue.submit(_refine(queue, vault), Policy())
    _die_after_write(monkeypatch, vault, Crash)
    with pytest.raises(Crash):
        queue.accept(held.id)
    (root / NOTE).write_text(NEW + "A line a person added.\n")

    shown = _cli(root, "show", held.id, "--text")
    assert shown.output.startswith(f"{held.id}  [stale]"), shown.output
    assert f"{NOTE} now holds neither what it was planned on nor what it writes" in shown.output
    refused = _cli(root, "revert", held.id, "--text")
    assert refused.exit_code != 0 and "only applied proposals can be reverted" in refused.output
    assert (root / NOTE).read_text() == NEW + "A line a person added.\n"


def test_killed_apply_with_one_file_edited_since_is_applied_and_revert_names_it(
        root, clock, monkeypatch):
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    _, stamp = vault.store.read(NOTE)
    both = queue.new("dream.refine", "refine and add an owner",
                     [Edit(NOTE, NEW.encode(), stamp), Create(FRESH, OWNER.encode())])
    held = queue.submit(both, Policy())
    _die_after_write(monkeypatch, vault, Crash)
    with pytest.raises(Crash):
        queue.accept(held.id)
    (root / NOTE).write_text(NEW + "A line a person added.\n")

    shown = json.loads(_cli(root, "show", held.id, "--json").output)
    assert shown["state"] == "applied"
    assert f"({NOTE} edited since: revert refuses those)" in shown["story"]["interrupted"]
    refused = _cli(root, "revert", held.id, "--text")
    assert refused.exit_code != 0 and f"{NOTE} changed since it was applied" in refused.output
    assert (root / FRESH).read_text() == OWNER


def test_an_applying_record_is_listed_in_its_state_while_its_apply_runs(root, clock,
                                                                       monkeypatch):
    """Another process applying it holds the decision lock: a reader waits for its end
    instead of judging the files half-way."""
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    seen = []

    def look_while_writing(changeset, real=vault.apply):
        fresh = ProposalQueue(Vault.open(root, clock=clock))
        lock = fresh.deciding()
        seen.append(lock.acquire(blocking=False))  # held by the applying process
        seen.append(fresh._read(made.id).state)
        return real(changeset)

    monkeypatch.setattr(vault, "apply", look_while_writing)
    made = _create(queue)
    done = queue.submit(made, Policy())
    assert seen == [False, "applying"]
    assert done.state == "applied" and _stored(root, made.id)["state"] == "applied"


# -- revert ---------------------------------------------------------------------------------


def _applied(root, clock) -> tuple[Vault, ProposalQueue, str]:
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    held = queue.submit(_refine(queue, vault), Policy())
    assert queue.accept(held.id).state == "applied"
    return vault, queue, held.id


@pytest.mark.parametrize("error", [KeyboardInterrupt, Crash])
def test_revert_stopped_after_the_write_is_recorded_as_reverted(root, clock, monkeypatch,
                                                               error):
    vault, queue, pid = _applied(root, clock)
    _die_after_write(monkeypatch, vault, error)
    with pytest.raises(error):
        queue.revert(pid)

    assert (root / NOTE).read_text() == OLD  # the revert landed
    assert [r["state"] for r in _naming(root, NOTE)] == ["reverted"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, Crash])
def test_revert_stopped_before_the_write_is_applied_and_revertible(root, clock, monkeypatch,
                                                                  error):
    vault, queue, pid = _applied(root, clock)

    def stopped(changeset):
        raise error()

    monkeypatch.setattr(vault, "apply", stopped)
    with pytest.raises(error):
        queue.revert(pid)

    assert (root / NOTE).read_text() == NEW
    assert [r["state"] for r in _naming(root, NOTE)] == ["applied"]
    result = _cli(root, "revert", pid, "--text")
    assert result.exit_code == 0 and "is now reverted" in result.output, result.output
    assert (root / NOTE).read_text() == OLD


# -- what a person meets when it cannot be settled yet --------------------------------------


def _killed_accept(root, clock, monkeypatch) -> str:
    vault = Vault.open(root, clock=clock)
    queue = ProposalQueue(vault)
    held = queue.submit(_refine(queue, vault), Policy())
    with monkeypatch.context() as patch:
        _die_after_write(patch, vault, Crash)
        with pytest.raises(Crash):
            queue.accept(held.id)
    return held.id


def test_a_journal_that_cannot_be_settled_keeps_it_applying_and_names_recover(
        root, clock, monkeypatch):
    pid = _killed_accept(root, clock, monkeypatch)

    def stuck(self, *, set_aside=False):
        raise RemeError("change 1 could not be finished: .reme/journal is read-only")

    monkeypatch.setattr(Store, "recover", stuck)
    listed = _cli(root, "list", "--text")
    assert f"{pid}  applying" in listed.output, listed.output
    shown = _cli(root, "show", pid, "--text")
    assert "note: stopped while being applied, and its change is not settled yet" in shown.output
    assert "Run `reme-workbench recover`" in shown.output
    refused = _cli(root, "accept", pid, "--text")
    assert refused.exit_code != 0 and f"{pid} is applying" in refused.output
    assert _stored(root, pid)["state"] == "applying"  # nothing decided on a guess

    monkeypatch.undo()  # the cause fixed: the next command settles it
    assert json.loads(_cli(root, "show", pid, "--json").output)["state"] == "applied"


def test_a_reader_that_cannot_take_the_decision_lock_shows_the_files_verdict_and_writes_nothing(
        root, clock, monkeypatch):
    """A read-only vault (docs/spec.md §3.8): `proposals list` still says what landed."""
    pid = _killed_accept(root, clock, monkeypatch)
    record = (root / "meta" / "proposals" / f"{pid}.json").read_bytes()

    def refused(self, *, blocking=True):
        raise RemeError("this vault is read-only")

    monkeypatch.setattr(RunLock, "acquire", refused)
    assert [r["state"] for r in _naming(root, NOTE)] == ["applied"]
    assert (root / "meta" / "proposals" / f"{pid}.json").read_bytes() == record


def test_a_settled_apply_logs_the_notes_it_touched_once(root, clock, monkeypatch):
    pid = _killed_accept(root, clock, monkeypatch)
    log = root / "meta" / "access_log.jsonl"
    assert not log.exists()  # the kill came before the log line
    ProposalQueue(Vault.open(root, clock=clock)).list()
    ProposalQueue(Vault.open(root, clock=clock)).list()
    events = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert [(e["path"], e["event"]) for e in events] == [(NOTE, "dream.refine")], events
    assert ProposalQueue(Vault.open(root, clock=clock)).load(pid).state == "applied"
