"""ScriptedBrain: the fake users test their code with takes the real validation path."""

from __future__ import annotations

import pytest

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.errors import RemeError
from reme_workbench.llm import (
    Brain,
    BrainError,
    CandidateNote,
    ExtractedUnits,
    IntegrateDecision,
    IntegrateRequest,
    Material,
    MemoryUnit,
)

MATERIAL = Material("daily/2026-10-05/deploy.md", "Deployed payments-api.", "2026-10-05", "en")
UNIT = MemoryUnit(
    name="Canary first", bucket="procedure", summary="Watch a canary before promoting."
)
BODY = "Steps.\n\nderived_from:: [[daily/2026-10-05/deploy.md]]"
CREATE = IntegrateDecision(action="CREATE", name="Canary first", description="d", body=BODY)
CANDIDATE = CandidateNote("digest/procedure/canary.md", "canary", "d", "old body")


def _request(*candidates):
    return IntegrateRequest(MATERIAL, UNIT, tuple(candidates))


def test_is_a_brain():
    assert isinstance(ScriptedBrain(), Brain)


def test_scripted_replies_in_order_with_history():
    brain = ScriptedBrain()
    brain.enqueue_extract([UNIT]).enqueue_extract(ExtractedUnits()).enqueue_extract(
        [{"name": "n", "bucket": "wiki", "summary": "s"}]
    )
    brain.enqueue_integrate(CREATE)
    first = brain.extract(MATERIAL)
    assert first.value.units == [UNIT] and first.attempts == 1 and first.model == "scripted"
    assert brain.extract(MATERIAL).value.units == []
    assert brain.extract(MATERIAL).value.units[0].bucket == "wiki"
    reply = brain.integrate(_request())
    assert reply.value == CREATE
    assert [m for m, _ in brain.history] == ["extract", "extract", "extract", "integrate"]
    assert brain.history[-1][1].unit == UNIT
    methods = ("extract", "integrate", "vote", "merge", "split", "hub")  # every method queued
    assert brain.pending == dict.fromkeys(methods, 0)


def test_empty_queue_is_a_clear_error():
    brain = ScriptedBrain()
    with pytest.raises(BrainError, match=r"no extract reply left.*enqueue_extract"):
        brain.extract(MATERIAL)
    assert isinstance(BrainError("x", model="m"), RemeError)


def test_malformed_raw_reply_is_repaired():
    brain = ScriptedBrain().enqueue_extract(
        'Here:\n```json\n{"units": [{"name": "a", "bucket": "Wiki", "summary": "s",},],}\n```'
    )
    reply = brain.extract(MATERIAL)
    assert reply.value.units[0].bucket == "wiki" and reply.attempts == 1
    assert reply.raw.startswith("Here:")


def test_invalid_then_valid_takes_the_retry():
    brain = ScriptedBrain()
    brain.enqueue_integrate(
        '{"action": "UPDATE", "flavor": "REFINE", "target_path": '
        '"digest/wiki/not-offered.md", "description": "d", "body": "b"}'
    )
    brain.enqueue_integrate(
        {
            "action": "UPDATE",
            "flavor": "REFINE",
            "target_path": "digest/procedure/canary.md",
            "description": "d",
            "body": BODY,
        }
    )
    reply = brain.integrate(_request(CANDIDATE))
    assert reply.attempts == 2 and reply.value.target_path == "digest/procedure/canary.md"


def test_two_bad_replies_fail_loudly_with_the_raw_text():
    brain = ScriptedBrain(model="my-fake")
    brain.enqueue_extract("nothing to see").enqueue_extract(
        '{"units": [{"name": "a", "bucket": "tools", "summary": "s"}]}'
    )
    with pytest.raises(BrainError) as info:
        brain.extract(MATERIAL)
    message = str(info.value)
    assert "'my-fake'" in message and "units.0.bucket" in message and '"tools"' in message
    assert info.value.raw.startswith('{"units"')


def test_update_must_target_an_offered_candidate():
    update = {
        "action": "UPDATE",
        "flavor": "CORROBORATE",
        "target_path": "digest/procedure/canary.md",
        "description": "d",
        "body": BODY,
    }
    brain = ScriptedBrain().enqueue_integrate(update).enqueue_integrate(update)
    with pytest.raises(BrainError, match="not one of the candidates"):
        brain.integrate(_request())  # no candidates offered


def test_enqueue_rejects_invalid_objects_early():
    with pytest.raises(ValueError):
        ScriptedBrain().enqueue_extract([{"name": "a", "bucket": "tools", "summary": "s"}])
    with pytest.raises(TypeError):
        ScriptedBrain().enqueue_integrate(42)  # type: ignore[arg-type]
