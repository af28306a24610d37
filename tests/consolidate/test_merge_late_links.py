"""Links written while a merge waits (docs/spec.md §7.7.5, issue #29.5): the files linking
the loser are collected again when the merge applies, under the vault lock
(`retargets_every_link`). A link to the loser that the changeset does not retarget —
written after planning, in any form Obsidian resolves — makes the proposal *stale*, not
rejected: `proposals accept` plans the merge again and says which file linked the loser;
a merge the policy applies at once is planned again from fresh reads."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import ACTION, MergeContext, plan_merges
from reme_workbench.proposals.queue import Policy, ProposalQueue
from reme_workbench.vault.store import Changeset, Create, NamedCheck
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW
from tests.consolidate.test_merge_retarget import Brain, from_section

WINNER = "digest/procedure/deploy-payments-api.md"
LOSER = "digest/procedure/payments-api-deploy.md"
D1 = "daily/2026-10-05/deploy.md"
D2 = "daily/2026-10-12/payments.md"
LATE = "digest/wiki/late.md"
AUTO = Policy(frozenset({ACTION}))

BODY = (
    "Run the database migrations before the deploy.\n"
    "Start the canary on one pod and watch the error rate for ten minutes.\n"
    "Promote the canary when the error rate stays under one percent.\n"
    "Roll back with the previous tag when it does not.\n\n"
)


def note(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: How to deploy the payments API.\n---\n{body}"


def vault_files(**extra: str) -> dict[str, str]:
    return {
        WINNER: note("deploy-payments-api", BODY + f"derived_from:: [[{D1}]]\n"),
        LOSER: note("payments-api-deploy", BODY + "Tell the team in the deploy channel.\n\n"
                    f"derived_from:: [[{D2}]]\n"),
        D1: f"deploy log, see [[{WINNER}]]\n",  # a source links the winner: it wins
        D2: "payments log\n",
        **extra,
    }


def open_vault(root) -> Vault:
    return Vault.open(root, clock=lambda: FIXED_NOW)


def merge(vault: Vault, **how):
    cand = MergeCandidate(*sorted((WINNER, LOSER)), "c_00", 0.9, 0.8, None)
    return plan_merges(vault, Brain(from_section), [cand], MergeSettings(),
                       MergeContext(now=FIXED_NOW, parallel_votes=False, audit=False, **how))


def cli_json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def late_note(link: str) -> str:
    return note("late", f"A person links the runbook: {link}.\n")


FORMS = {
    "short": "[[payments-api-deploy]]",
    "case": "[[Payments-API-Deploy]]",
    "no extension": "[[digest/procedure/payments-api-deploy]]",
    "full path": f"[[{LOSER}]]",
    "alias": "[[payments-api-deploy|the runbook]]",
    "embed": "![[payments-api-deploy]]",
    "heading": "[[payments-api-deploy#Rollback]]",
    "block": "[[payments-api-deploy#^abc]]",
    "relative": "[[../procedure/payments-api-deploy.md]]",
    "predicate": "\nrelated_to:: [[payments-api-deploy]]",
}


def test_accept_plans_a_merge_again_when_a_link_to_the_loser_was_written_meanwhile(make_vault):
    root = make_vault(vault_files())
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    (held,) = merge(open_vault(root)).proposals
    assert held.state == "pending"
    (root / LATE).write_text(late_note("[[payments-api-deploy|the runbook]]"), encoding="utf-8")

    answer = cli_json(root, "proposals", "accept", held.id)
    assert answer["state"] == "rejected" and "superseded" in answer["error"]
    assert f"{LATE} links to {LOSER}" in answer["error"]
    assert (root / LOSER).exists()  # nothing was written
    assert "[[payments-api-deploy|the runbook]]" in (root / LATE).read_text(encoding="utf-8")
    (again,) = answer["replanned_as"]
    assert again in answer["error"]
    new = cli_json(root, "proposals", "show", again)
    assert new["state"] == "pending" and LATE in new["files"]  # the late link is in it now
    assert cli_json(root, "proposals", "accept", again)["state"] == "applied"
    assert "[[deploy-payments-api|the runbook]]" in (root / LATE).read_text(encoding="utf-8")
    assert not (root / LOSER).exists()


def test_the_cli_says_why_the_merge_is_planned_again(make_vault):
    root = make_vault(vault_files())
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    (held,) = merge(open_vault(root)).proposals
    (root / LATE).write_text(late_note("[[payments-api-deploy]]"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "accept", held.id,
                                      "--text"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"{held.id} is now rejected: superseded" in result.output
    assert f"{LATE} links to {LOSER}" in result.output
    assert "waits for you: `reme-workbench proposals show p-" in result.output


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_late_link_in_any_form_makes_the_held_merge_stale(make_vault, form):
    root = make_vault(vault_files())
    vault = open_vault(root)
    (held,) = merge(vault).proposals
    (root / LATE).write_text(late_note(FORMS[form]), encoding="utf-8")
    done = ProposalQueue(vault).accept(held.id)
    assert done.state == "stale", (form, done.error)
    assert f"{LATE} links to {LOSER}" in done.error
    assert (root / LOSER).exists() and (root / WINNER).read_bytes() == held.before[WINNER]


def test_a_source_that_links_the_loser_meanwhile_makes_the_merge_stale(make_vault):
    """A source is never rewritten: the merge must be planned again (the note a source
    links may not be the loser, §7.7.3)."""
    root = make_vault(vault_files())
    vault = open_vault(root)
    (held,) = merge(vault).proposals
    log = "daily/2026-10-20/log.md"
    (root / log).parent.mkdir(parents=True)
    (root / log).write_text("read [[payments-api-deploy]] today\n", encoding="utf-8")
    done = ProposalQueue(vault).accept(held.id)
    assert done.state == "stale" and f"{log} links to {LOSER}" in done.error


def test_text_that_only_looks_like_a_link_does_not_hold_the_merge(make_vault):
    root = make_vault(vault_files())
    vault = open_vault(root)
    (held,) = merge(vault).proposals
    (root / LATE).write_text(note("late", "Write `[[payments-api-deploy]]` to link it, or "
                                          "[[another-note]].\n"), encoding="utf-8")
    done = ProposalQueue(vault).accept(held.id)
    assert done.state == "applied", done.error
    assert not (root / LOSER).exists()


def test_a_merge_applied_at_once_retargets_a_link_written_just_before_it_applies(make_vault):
    root = make_vault(vault_files())
    vault = open_vault(root)
    real_apply = vault.store.apply
    written = []

    def a_person_links_the_loser_first(changeset):
        if changeset.ops and not written:
            written.append(LATE)
            (root / LATE).write_text(late_note("[[payments-api-deploy]]"), encoding="utf-8")
        return real_apply(changeset)

    vault.store.apply = a_person_links_the_loser_first
    (done,) = merge(vault, policy=AUTO).proposals
    assert written and done.state == "applied", done.error
    assert LATE in done.paths
    assert "[[deploy-payments-api]]" in (root / LATE).read_text(encoding="utf-8")
    assert not (root / LOSER).exists()


# -- a second writer at random moments ------------------------------------------------------

def _race_round(make_vault, seed: int) -> tuple[str, bool]:
    """A held merge is accepted while another reme writer (through the store, under the
    vault lock, as dream writes) creates a note linking the loser at a random moment.
    Returns (the merge's state, whether the writer saw the loser still there)."""
    rng = random.Random(seed)
    root = make_vault(vault_files(), name=f"vault-{seed}")
    vault = open_vault(root)
    (held,) = merge(vault).proposals
    saw_loser: list[bool] = []

    def record(ctx):  # runs under the lock, as the write happens
        saw_loser.append(ctx.exists(LOSER))
        return []

    def writer():
        time.sleep(rng.uniform(0, 0.03))
        other = Vault.open(root, clock=lambda: FIXED_NOW)
        other.store.apply(Changeset(
            ops=(Create(LATE, late_note("[[payments-api-deploy]]").encode("utf-8")),),
            checks=(NamedCheck("record", record),)))

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(rng.uniform(0, 0.03))
    done = ProposalQueue(vault).accept(held.id)
    thread.join()
    if done.state == "applied":  # the writer came after: its link was never missed
        assert saw_loser == [False], (seed, done.error)
        assert (root / LATE).exists() and not (root / LOSER).exists()
    else:
        assert done.state == "stale", (seed, done.error)
        assert saw_loser == [True] and (root / LOSER).exists()
        assert f"{LATE} links to {LOSER}" in done.error
    return done.state, saw_loser[0]


def test_a_writer_racing_the_accept_never_leaves_a_link_to_a_deleted_loser(make_vault):
    states = {_race_round(make_vault, seed)[0] for seed in range(12)}
    assert states <= {"applied", "stale"}


@pytest.mark.slow
def test_a_writer_racing_the_accept_many_times(make_vault):
    states = [_race_round(make_vault, 1000 + seed)[0] for seed in range(150)]
    assert set(states) == {"applied", "stale"}  # both orders were hit
