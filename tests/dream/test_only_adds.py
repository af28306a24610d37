"""What dream applies without a person only adds (docs/spec.md §3.7.3, issue #29).

A model's UPDATE labelled CORROBORATE is applied at once under the default policy; one
that rewrites what the note says — "Never canary on Fridays" turned into "Always…", a
predicate retyped — waits for a person, with the reason in its story, whatever the brain
called it. A corroborate that only adds still applies, and keeps the note's own
description and blank lines where a model's reply would have rewritten them.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.dream.pipeline import Dreamer
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.proposals import ProposalQueue
from reme_workbench.vault.additions import only_adds
from reme_workbench.vault.vault import Vault

LOG = "daily/2026-10-05/release.md"
LOG2 = "daily/2026-10-16/release-again.md"
NOTE = "digest/procedure/release-canary.md"
CANARY = "digest/wiki/canary.md"
BODY = (f"\nNever canary on Fridays.\nSee [[{CANARY}]] for what a canary is.\n\n"
        f"derived_from:: [[{LOG}]]\n")
TEXT = ("---\nname: release-canary\ndescription: When we run a release canary.\n---\n" + BODY)
UNIT = {"name": "Release canary", "bucket": "procedure",
        "summary": "We run the release canary; never on a Friday."}


@pytest.fixture
def vault(make_vault, clock):
    root = make_vault({
        LOG: "Never canary on Fridays.\n",
        LOG2: "Friday again: we did not canary, as the rule says.\n",
        NOTE: TEXT,
        CANARY: f"---\nname: canary\ndescription: Canary releases.\n---\nA canary.\n\n"
                f"derived_from:: [[{LOG}]]\n",
    })
    return Vault.open(root, clock=clock)


@pytest.fixture
def index(vault):
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as idx:
        yield idx


def corroborate(body: str, *, description: str = "When we run a release canary.",
                changes=None) -> str:
    """The raw JSON a model would send (validated on the real path)."""
    reply = {"action": "UPDATE", "flavor": "CORROBORATE", "target_path": NOTE,
             "description": description, "body": body, "rationale": "one more instance"}
    if changes is not None:
        reply["predicate_changes"] = changes
    return json.dumps(reply)


def dream(vault, index, reply: str):
    brain = ScriptedBrain().enqueue_extract([UNIT]).enqueue_integrate(reply)
    (outcome,) = Dreamer(vault, brain, index).run([LOG2]).outcomes  # the default policy
    return outcome


def test_a_corroborate_that_rewrites_a_statement_waits_for_a_person(vault, index):
    always = BODY.replace("Never canary", "Always canary") + f"derived_from:: [[{LOG2}]]\n"
    outcome = dream(vault, index, corroborate(always))
    assert (vault.root / NOTE).read_text() == TEXT  # "Never" is still what the note says
    assert (outcome.flavor, outcome.state) == ("CORROBORATE", "pending"), outcome
    held = ProposalQueue(vault).load(outcome.proposal_id).story["held"]
    assert held.startswith(f"rewrites 1 line of {NOTE}: held for a person"), held
    assert outcome.message == held  # the run says why it waits
    shown = CliRunner().invoke(cli, ["--vault", str(vault.root), "proposals", "show",
                                     outcome.proposal_id, "--text"], catch_exceptions=False)
    assert "held: rewrites 1 line" in shown.output and "+Always canary" in shown.output


def test_a_corroborate_that_retypes_a_link_waits_for_a_person(vault, index):
    retyped = (BODY.replace(f"See [[{CANARY}]] for what a canary is.", f"is_a:: [[{CANARY}]]")
               + f"derived_from:: [[{LOG2}]]\n")
    outcome = dream(vault, index, corroborate(
        retyped, changes=[{"target": CANARY, "old": None, "new": "is_a"}]))
    assert outcome.state == "pending" and "rewrites 1 line" in outcome.message, outcome
    assert (vault.root / NOTE).read_text() == TEXT


def test_a_corroborate_that_only_adds_applies_and_keeps_the_note_as_written(vault, index):
    """A model sees the body stripped and may reword the description: the corroborate
    keeps the note's description and its leading blank line, and adds its line."""
    added = BODY.strip() + f"\nderived_from:: [[{LOG2}]]\n"
    outcome = dream(vault, index, corroborate(added, description="Release canaries, never Friday."))
    assert outcome.state == "applied", outcome
    after = (vault.root / NOTE).read_bytes()
    assert only_adds(TEXT.encode(), after)
    assert after.decode() == TEXT + f"derived_from:: [[{LOG2}]]\n"


def test_the_offline_brains_conversation_corroborate_keeps_every_line():
    """A person's note on Ada's ceramics ends with a blank line; one more session's
    bullet goes after it, and every line the note had stays."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import conversation_decision
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    m = "daily/2026-03-09/ada-and-ben-2.md"
    mine = ("Ada's ceramics, as I keep them.\n\n- **2026-03-02**: Ada joined a ceramics class. "
            "(derived_from:: [[daily/2026-03-02/ada-and-ben-1.md]])\n\n")
    note = CandidateNote("digest/wiki/ada-s-ceramics.md", "ada-s-ceramics", "Ada's ceramics.", mine)
    plan = UnitPlan("wiki", "Ada's ceramics", 1.0, [])
    said = "Ada's friend made her a ceramics bowl."
    plan.person, plan.topic, plan.topics, plan.said = "Ada", "ceramics", ["ceramics"], [said]
    request = IntegrateRequest(Material(m, "", "2026-03-09"), MemoryUnit(
        name=plan.name, bucket="wiki", summary=said), (note,))
    decision = conversation_decision(request, plan, date(2026, 3, 9))
    assert decision.flavor == "CORROBORATE" and said.rstrip(".") in decision.body
    assert only_adds(mine.encode(), decision.body.encode()), decision.body


def test_a_corroborate_of_a_crlf_note_writes_its_lines_with_crlf(vault, index):
    """A person's note saved with Windows line ends; the model answers with `\\n`: the
    added line takes the note's line ends, and every old line is kept."""
    crlf = TEXT.replace("\n", "\r\n").encode()
    (vault.root / NOTE).write_bytes(crlf)
    vault.refresh()
    index.refresh()
    outcome = dream(vault, index, corroborate(BODY.strip() + f"\nderived_from:: [[{LOG2}]]\n"))
    assert outcome.state == "applied", outcome
    after = (vault.root / NOTE).read_bytes()
    assert only_adds(crlf, after) and after == crlf + f"derived_from:: [[{LOG2}]]\r\n".encode()
