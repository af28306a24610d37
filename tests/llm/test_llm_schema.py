"""The reply models reject what an untrusted model may send, and accept the real shapes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reme_workbench.llm.schema import (
    MAX_UNITS,
    ExtractedUnits,
    IntegrateDecision,
    MemoryUnit,
    format_validation_error,
    parse_reply,
)

UNIT = {"name": "Bullet summaries", "bucket": "personal", "summary": "Mei reads on her phone."}
CREATE = {
    "action": "CREATE",
    "name": "Canary before promote",
    "description": "Watch a 10 % canary for 10 minutes before promoting.",
    "body": "Steps...\n\nderived_from:: [[daily/2026-10-05/deploy.md]]",
}
UPDATE = {
    **CREATE,
    "action": "UPDATE",
    "flavor": "CORROBORATE",
    "target_path": "digest/procedure/canary.md",
    "name": None,
}
CANDIDATES = {"candidate_paths": {"digest/procedure/canary.md"}}


def test_memory_unit_accepts_the_three_buckets_and_folds_case():
    for bucket in ("procedure", "personal", "wiki", " Wiki "):
        assert (
            MemoryUnit.model_validate({**UNIT, "bucket": bucket}).bucket == bucket.strip().lower()
        )


@pytest.mark.parametrize(
    "change",
    [
        {"bucket": "knowledge"},  # LLMs cannot invent buckets (docs/spec.md §1.2)
        {"bucket": 3},
        {"name": ""},
        {"name": "   "},  # whitespace is stripped first
        {"name": "x" * 121},
        {"summary": "x" * 2001},
        {"summary": 42},  # strict: no coercion to str
    ],
)
def test_memory_unit_rejects(change):
    with pytest.raises(ValidationError):
        MemoryUnit.model_validate({**UNIT, **change})


def test_extracted_units_is_bounded():
    ExtractedUnits.model_validate({"units": [UNIT] * MAX_UNITS})
    with pytest.raises(ValidationError):
        ExtractedUnits.model_validate({"units": [UNIT] * (MAX_UNITS + 1)})


def test_create_and_update_validate():
    decision = IntegrateDecision.model_validate(CREATE)
    assert decision.action == "CREATE" and decision.flavor is None and decision.rationale == ""
    update = IntegrateDecision.model_validate({**UPDATE, "action": "update"}, context=CANDIDATES)
    assert (update.action, update.flavor) == ("UPDATE", "CORROBORATE")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"flavor": None}, "UPDATE needs a flavor"),
        ({"target_path": None}, "UPDATE needs target_path"),
        ({"flavor": "MERGE"}, "CORROBORATE"),
        ({"target_path": "digest/../secrets.md"}, "'..'"),
        ({"target_path": "/digest/wiki/x.md"}, "leading '/'"),
        ({"target_path": "daily/2026-10-05/deploy.md"}, "start"),
        ({"target_path": "digest/procedure/canary.md#steps"}, "anchor"),
        ({"target_path": "digest/wiki/other.md"}, "not one of the candidates"),
        ({"action": "DELETE"}, "CREATE"),
        ({"body": ""}, "body"),
        ({"description": "x" * 301}, "description"),
        ({"rationale": "x" * 1001}, "rationale"),
    ],
)
def test_update_rejects(change, message):
    with pytest.raises(ValidationError, match=message):
        IntegrateDecision.model_validate({**UPDATE, **change}, context=CANDIDATES)


def test_create_rejects_update_fields_and_needs_a_name():
    with pytest.raises(ValidationError, match="CREATE takes no flavor"):
        IntegrateDecision.model_validate({**CREATE, "flavor": "REFINE"})
    with pytest.raises(ValidationError, match="CREATE takes no flavor"):
        IntegrateDecision.model_validate({**CREATE, "target_path": "digest/wiki/x.md"})
    with pytest.raises(ValidationError, match="CREATE needs name"):
        IntegrateDecision.model_validate({**CREATE, "name": None})


def test_target_path_membership_needs_the_context():
    # without a caller context only the path's shape is checked
    IntegrateDecision.model_validate({**UPDATE, "target_path": "digest/wiki/other.md"})
    with pytest.raises(ValidationError, match="none were given"):
        IntegrateDecision.model_validate(UPDATE, context={"candidate_paths": set()})


def test_target_path_written_as_a_wikilink_is_unwrapped():
    decision = IntegrateDecision.model_validate(
        {**UPDATE, "target_path": "[[digest/procedure/canary.md|Canary]]"}, context=CANDIDATES
    )
    assert decision.target_path == "digest/procedure/canary.md"


def test_parse_reply_accepts_the_shapes_models_send():
    assert parse_reply("[]", ExtractedUnits).units == []
    bare = '[{"name": "a", "bucket": "wiki", "summary": "s"}, {"name": "b", "bucket": "wiki", "summary": "t"}]'
    assert [u.name for u in parse_reply(bare, ExtractedUnits).units] == ["a", "b"]
    one = '```json\n{"name": "a", "bucket": "wiki", "summary": "s"}\n```'
    assert [u.name for u in parse_reply(one, ExtractedUnits).units] == ["a"]


def test_parse_reply_errors_are_value_errors():
    with pytest.raises(ValueError):
        parse_reply("no json here", ExtractedUnits)
    with pytest.raises(ValueError):
        parse_reply('{"units": [{"name": "a", "bucket": "tools", "summary": "s"}]}', ExtractedUnits)


def test_format_validation_error_names_field_and_value():
    try:
        ExtractedUnits.model_validate({"units": [{**UNIT, "bucket": "tools"}]})
    except ValidationError as exc:
        text = format_validation_error(exc)
    assert "units.0.bucket" in text and '"tools"' in text
    assert len(format_validation_error(ValueError("x" * 5000), limit=100)) == 100
