"""What a brain may answer: strict, bounded pydantic models for untrusted LLM output.

These are the only pydantic models of the brain (pydantic only at trust
boundaries). Each reply is parsed by `parse_reply`, which repairs the JSON text first
(`repair.extract_json`) and then validates; a `ValueError` (pydantic's ValidationError
is one) means "ask the model again".

`IntegrateDecision.target_path` must name one of the candidates the caller showed the
model; that set comes in through pydantic's validation *context*
(`{"candidate_paths": {...}}`), so the model stays a plain schema for its JSON Schema.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..errors import UnsafePathError
from ..vault.layout import Bucket, normalize_rel
from .repair import extract_json

__all__ = [
    "MemoryUnit",
    "ExtractedUnits",
    "IntegrateDecision",
    "PredicateChange",
    "MAX_UNITS",
    "MAX_PREDICATE_CHANGES",
    "PairVote",
    "MergedNote",
    "SplitChild",
    "SplitPlan",
    "HubNote",
    "parse_reply",
    "format_validation_error",
    "reply_schema",
]

MAX_UNITS = 20  # Phase 1 wants few, dense units; more than this is a runaway reply
MAX_PREDICATE_CHANGES = 10  # links one UPDATE may retype; more is a rewrite, not an upgrade


class _Reply(BaseModel):
    # strict: no silent coercion (123 -> "123"); extra keys are ignored rather than
    # forbidden, because a model adding "confidence" is harmless and a retry is not free.
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore", str_strip_whitespace=True)


class MemoryUnit(_Reply):
    """One abstraction Phase 1 found in the material, with the bucket it belongs to."""

    name: str = Field(min_length=1, max_length=120, description="Short title of the abstraction.")
    bucket: Bucket = Field(description="procedure | personal | wiki (wiki is the fallback).")
    summary: str = Field(
        min_length=1, max_length=2000, description="The abstraction in a few dense sentences."
    )

    @field_validator("bucket", mode="before")
    @classmethod
    def _fold_bucket(cls, value: Any) -> Any:
        # "Wiki " is unambiguous; an unknown bucket is still rejected by the Literal.
        return value.strip().lower() if isinstance(value, str) else value


class ExtractedUnits(_Reply):
    """Phase 1's answer; an empty list means "nothing here is worth remembering"."""

    units: list[MemoryUnit] = Field(default_factory=list, max_length=MAX_UNITS)


Action = Literal["CREATE", "UPDATE"]
Flavor = Literal["CORROBORATE", "REFINE", "CORRECT"]


_PREDICATE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")  # vault/links.py PREDICATE_PATTERN


def _unquoted_link(value: str) -> str:
    """A path or target a model may have quoted as a wikilink (`[[x|alias]]`), bare."""
    value = value.strip()
    if value.startswith("[[") and value.endswith("]]"):
        value = value[2:-2].split("|", 1)[0]
    return value


class PredicateChange(_Reply):
    """One link of the old body whose predicate an UPDATE changes (docs/spec.md §4.5.5):
    `[[x]]` → `is_a:: [[x]]` (old null, new "is_a"), or back, or one predicate for another.
    The target stays linked; `keeps_outbound` checks that only the predicate changed."""

    target: str = Field(min_length=1, max_length=1000,
                        description="The link's target exactly as the old body writes it.")
    old: str | None = Field(None, max_length=64,
                            description="Its predicate in the old body; null for a plain link.")
    new: str | None = Field(None, max_length=64,
                            description="Its predicate in the new body; null for a plain link.")

    @field_validator("target", mode="before")
    @classmethod
    def _check_target(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = _unquoted_link(value)
        if any(ch in value for ch in "[]|#\n"):
            raise ValueError("target is the link's target only: no [[ ]], alias or #anchor")
        return value

    @field_validator("old", "new", mode="before")
    @classmethod
    def _check_predicate(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().removesuffix("::").strip() or None
        if value is not None and isinstance(value, str) and not _PREDICATE.match(value):
            raise ValueError("a predicate is a letter, then letters, digits or _ (or null)")
        if value == "derived_from":
            raise ValueError("derived_from:: is provenance and is never retyped")
        return value

    @model_validator(mode="after")
    def _changes(self) -> PredicateChange:
        if self.old == self.new:
            raise ValueError("old and new are the same predicate; leave the link out of "
                             "predicate_changes")
        return self


class IntegrateDecision(_Reply):
    """Phase 2's answer for one unit: CREATE a note, or UPDATE a candidate with a flavor."""

    action: Action = Field(description="CREATE a new note or UPDATE one of the candidates.")
    flavor: Flavor | None = Field(
        None, description="Required for UPDATE (CORROBORATE, REFINE or CORRECT); null for CREATE."
    )
    target_path: str | None = Field(
        None, description="Required for UPDATE: the path of one candidate; null for CREATE."
    )
    name: str | None = Field(
        None, min_length=1, max_length=120, description="Required for CREATE: the note's name."
    )
    description: str = Field(min_length=1, max_length=300, description="One-line description.")
    body: str = Field(min_length=1, max_length=20000, description="The full markdown body.")
    rationale: str = Field("", max_length=1000, description="Why this action (one or two lines).")
    predicate_changes: list[PredicateChange] = Field(
        default_factory=list, max_length=MAX_PREDICATE_CHANGES,
        description="UPDATE only: links of the old body whose predicate the new body changes "
                    "(e.g. [[x]] written as is_a:: [[x]]); empty otherwise.")

    @field_validator("action", "flavor", mode="before")
    @classmethod
    def _fold_upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("target_path", mode="before")
    @classmethod
    def _check_path(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = _unquoted_link(value)
        if ".." in value:
            raise ValueError("target_path may not contain '..'")
        if value.startswith("/"):
            raise ValueError("target_path must be vault-relative, without a leading '/'")
        if not value.startswith("digest/"):
            raise ValueError("target_path must be a digest note path starting with 'digest/'")
        if "#" in value:
            raise ValueError("target_path may not carry a #section anchor")
        try:
            return normalize_rel(value)
        except UnsafePathError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> IntegrateDecision:
        if self.action == "UPDATE":
            if self.flavor is None:
                raise ValueError("UPDATE needs a flavor: CORROBORATE, REFINE or CORRECT")
            if self.target_path is None:
                raise ValueError("UPDATE needs target_path, the path of one candidate note")
            allowed = (info.context or {}).get("candidate_paths")
            if allowed is not None and self.target_path not in allowed:
                shown = (
                    ", ".join(sorted(allowed)) or "none were given, so the action must be CREATE"
                )
                raise ValueError(
                    f"target_path {self.target_path!r} is not one of the candidates ({shown})"
                )
            edges = [(c.target, c.old) for c in self.predicate_changes]
            if len(set(edges)) < len(edges):
                raise ValueError("predicate_changes names one link twice; name each once")
        else:
            if self.predicate_changes:
                raise ValueError("CREATE has no old links to retype; send predicate_changes: []")
            if self.flavor is not None or self.target_path is not None:
                raise ValueError("CREATE takes no flavor and no target_path; set both to null")
            if self.name is None:
                raise ValueError("CREATE needs name, the new note's name")
        return self


def reply_schema(model: type[BaseModel]) -> dict:
    """The JSON Schema the prompts embed and `response_format` sends."""
    return model.model_json_schema()


def parse_reply(text: str, model: type[_Reply], *, context: dict | None = None) -> Any:
    """Repair `text` into JSON and validate it as `model`; ValueError when unusable."""
    data = extract_json(text)
    if model is ExtractedUnits:
        # Shapes local models like to send instead of {"units": [...]}.
        if isinstance(data, list):
            data = {"units": data}
        elif isinstance(data, dict) and "units" not in data and {"name", "bucket"} <= data.keys():
            data = {"units": [data]}
    return model.model_validate(data, context=context)


def format_validation_error(exc: Exception, *, limit: int = 1500) -> str:
    """A compact, model-readable explanation of why a reply was refused."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors(include_url=False):
            where = ".".join(str(p) for p in err["loc"]) or "(reply)"
            got = json.dumps(err.get("input"), ensure_ascii=False, default=str)
            if len(got) > 80:
                got = got[:77] + "..."
            parts.append(f"{where}: {err['msg']} (got {got})")
        text = "; ".join(parts)
    else:
        text = str(exc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- consolidate (docs/spec.md §7.6–§7.8) -----------------------------------------------------

MAX_BODY = 20000  # characters of a body a brain may send back (a 1 MB body is refused)
MAX_SPLIT_CHILDREN = 6
MAX_PILLARS = 5


def _digest_path(value: Any, what: str) -> Any:
    """The checks every path a consolidate reply names must pass: vault-relative, in
    digest/, no `..`, no anchor; a wikilink-quoted path is unwrapped."""
    if not isinstance(value, str):
        return value
    value = value.strip()
    if value.startswith("[[") and value.endswith("]]"):
        value = value[2:-2].split("|", 1)[0]
    if ".." in value or value.startswith("/"):
        raise ValueError(f"{what} must be a vault-relative digest path without '..'")
    if not value.startswith("digest/") or "#" in value:
        raise ValueError(f"{what} must be a digest note path starting with 'digest/', no #anchor")
    try:
        return normalize_rel(value)
    except UnsafePathError as exc:
        raise ValueError(str(exc)) from None


class PairVote(_Reply):
    """One judge's vote on whether two notes are the same concept (docs/spec.md §7.7)."""

    is_same: bool = Field(description="true when both notes describe the same concept.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure, from 0 to 1.")
    reason: str = Field(min_length=1, max_length=600, description="One or two lines a person can check.")

    @field_validator("confidence", mode="before")
    @classmethod
    def _int_is_float(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class MergedNote(_Reply):
    """The body of the winner after a merge: its own text plus what only the loser had."""

    description: str = Field(min_length=1, max_length=300, description="One-line description.")
    body: str = Field(min_length=1, max_length=MAX_BODY, description="The full merged markdown body.")


class SplitChild(_Reply):
    name: str = Field(min_length=1, max_length=120, description="The child note's name.")
    description: str = Field(min_length=1, max_length=300, description="One-line description.")
    body: str = Field(min_length=1, max_length=MAX_BODY, description="The child's markdown body.")


class SplitPlan(_Reply):
    """Whether a long note mixes topics (is dispersed), and if so how to split it."""

    overloaded: bool = Field(description="true when the note covers several separable topics.")
    reason: str = Field(min_length=1, max_length=600, description="Why (one or two lines).")
    parent_body: str | None = Field(
        None, max_length=MAX_BODY,
        description="Required when overloaded: the parent's new body, an overview linking each child.")
    children: list[SplitChild] = Field(default_factory=list, max_length=MAX_SPLIT_CHILDREN)

    @model_validator(mode="after")
    def _consistent(self) -> SplitPlan:
        if self.overloaded:
            if not self.parent_body or len(self.children) < 2:
                raise ValueError("an overloaded note needs parent_body and at least 2 children")
        elif self.children:
            raise ValueError("a note that is not overloaded has no children; send children: []")
        return self


class HubNote(_Reply):
    """A community's hub: overview, 3–5 pillars with links, what stays in the sources."""

    name: str = Field(min_length=1, max_length=120, description="The hub note's name.")
    bucket: Bucket = Field(description="procedure | personal | wiki.")
    description: str = Field(min_length=1, max_length=300, description="One-line description.")
    body: str = Field(min_length=1, max_length=MAX_BODY, description="The hub's markdown body.")
    pillars: list[str] = Field(min_length=3, max_length=MAX_PILLARS,
                               description="3 to 5 member paths the body links as pillars.")

    @field_validator("bucket", mode="before")
    @classmethod
    def _fold_bucket(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("pillars", mode="before")
    @classmethod
    def _check_pillars(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [_digest_path(v, "each pillar") for v in value]

    @model_validator(mode="after")
    def _pillars_are_members(self, info: ValidationInfo) -> HubNote:
        members = (info.context or {}).get("member_paths")
        if members is not None:
            strangers = [p for p in self.pillars if p not in members]
            if strangers:
                raise ValueError(f"pillars {strangers} are not members of the community")
        return self
