"""A proposal: one changeset plus its story, stored as JSON under `meta/proposals/`.

The files are a trust boundary (a person may edit them, an old version may have
written them), so loading goes through a pydantic model; in memory a proposal is a
frozen dataclass.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import RemeError
from ..vault.checks import CheckSpec, build_checks
from ..vault.store import AuditEntry, Changeset, Create, Delete, Edit, FileOp, Stamp

__all__ = ["Proposal", "EdgeRetype", "ProposalState", "STATES", "FORMAT_VERSION", "ops_to_json", "ops_from_json"]

FORMAT_VERSION = 1
# `applying` / `reverting`: saved before its changeset (or inverse) is written, settled
# from the files after a stop (docs/spec.md §3.7.7)
ProposalState = Literal["pending", "applying", "applied", "rejected", "stale", "reverting",
                        "reverted"]
STATES: tuple[str, ...] = ("pending", "applying", "applied", "rejected", "stale", "reverting",
                           "reverted")


def _encode(data: bytes | None) -> dict:
    if data is None:
        return {"content": None}
    try:
        return {"content": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"content": base64.b64encode(data).decode("ascii"), "encoding": "base64"}


def _decode(row: Mapping[str, Any]) -> bytes | None:
    value = row.get("content")
    if value is None:
        return None
    if row.get("encoding") == "base64":
        return base64.b64decode(value)
    return str(value).encode("utf-8")


def ops_to_json(ops: tuple[FileOp, ...]) -> list[dict]:
    rows = []
    for op in ops:
        if isinstance(op, Create):
            rows.append({"op": "create", "path": op.path, **_encode(op.content)})
        elif isinstance(op, Edit):
            rows.append(
                {
                    "op": "edit",
                    "path": op.path,
                    **_encode(op.content),
                    "expected": vars_of(op.expected),
                }
            )
        else:
            rows.append({"op": "delete", "path": op.path, "expected": vars_of(op.expected)})
    return rows


def vars_of(stamp: Stamp) -> dict:
    return {"sha256": stamp.sha256, "mtime_ns": stamp.mtime_ns}


def ops_from_json(rows: list[Mapping[str, Any]]) -> tuple[FileOp, ...]:
    ops: list[FileOp] = []
    for row in rows:
        kind = row["op"]
        if kind == "create":
            ops.append(Create(row["path"], _decode(row) or b""))
        elif kind == "edit":
            ops.append(Edit(row["path"], _decode(row) or b"", Stamp(**row["expected"])))
        elif kind == "delete":
            ops.append(Delete(row["path"], Stamp(**row["expected"])))
        else:
            raise RemeError(f"Unknown file operation {kind!r} in a proposal.")
    return tuple(ops)


# --------------------------------------------------------------------------- on disk


class _StampModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    mtime_ns: int


class _OpModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["create", "edit", "delete"]
    path: str = Field(min_length=1, max_length=1000)
    content: str | None = None
    encoding: Literal["base64"] | None = None
    expected: _StampModel | None = None


class _CheckModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    params: dict[str, Any] = {}


class _ProposalModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int
    computed_at: str
    id: str
    action: str
    summary: str
    state: ProposalState
    created_at: str
    updated_at: str
    ops: list[_OpModel]
    checks: list[_CheckModel] = []
    before: dict[str, str | None] = {}
    story: dict[str, Any] = {}
    inverse: list[_OpModel] = []
    error: str | None = None


# --------------------------------------------------------------------------- in memory


@dataclass(frozen=True)
class EdgeRetype:
    """One link of `path` whose predicate a proposal changes: `(target, old)` becomes
    `(target, new)`; a predicate None is a plain link."""

    path: str
    target: str
    old: str | None
    new: str | None

    def describe(self) -> str:
        """For the audit line: code spans, so the audit file draws no edge."""
        def edge(p: str | None) -> str:
            return f"`{'' if p is None else p + ':: '}[[{self.target}]]`"
        return f"retypes {edge(self.old)} → {edge(self.new)} in [[{self.path}]]"


@dataclass(frozen=True)
class Proposal:
    id: str
    action: str  # e.g. "dream.create", "dream.refine", "health.fix"
    summary: str  # one line a person can scan
    ops: tuple[FileOp, ...]
    checks: tuple[CheckSpec, ...] = ()
    before: Mapping[str, bytes | None] = field(default_factory=dict)  # what the plan saw
    story: Mapping[str, Any] = field(default_factory=dict)  # inputs, votes, raw output, tokens
    state: str = "pending"
    created_at: str = ""
    updated_at: str = ""
    inverse: tuple[FileOp, ...] = ()  # set once applied, so `revert` can undo it
    error: str | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(op.path for op in self.ops)

    def changeset(self) -> Changeset:
        """The changeset to apply, checks rebuilt from their stored specs."""
        return Changeset(
            ops=self.ops,
            checks=build_checks(self.checks),
            description=f"proposal {self.id}: {self.summary}",
            audit=AuditEntry(kind="proposals", markdown=self._audit_line()),
        )

    @property
    def retypes(self) -> tuple[EdgeRetype, ...]:
        """The links whose predicate this proposal changes (docs/spec.md §4.5.5), read from
        its `keeps_outbound` checks: what they allow is what the audit names."""
        found = []
        for check in self.checks:
            if check.name != "keeps_outbound":
                continue
            for row in check.params.get("retypes") or ():
                target, old, new = row
                found.append(EdgeRetype(str(check.params.get("path", "")), target, old, new))
        return tuple(found)

    def _audit_line(self) -> str:
        # live files as wikilinks (clickable in Obsidian), deleted ones as plain text
        files = ", ".join(
            f"{op_kind(op)} [[{op.path}]]" if not isinstance(op, Delete) else f"delete `{op.path}`"
            for op in self.ops
        )
        retyped = "".join(f"; {r.describe()}" for r in self.retypes)
        return f"- {self.id} `{self.action}`: {self.summary} ({files}){retyped}\n"

    def with_state(self, state: str, *, now: str, error: str | None = None, **changes) -> Proposal:
        return replace(self, state=state, updated_at=now, error=error, **changes)

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "action": self.action,
            "summary": self.summary,
            "state": self.state,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "ops": ops_to_json(self.ops),
            "checks": [c.to_json() for c in self.checks],
            "before": {p: _encode(b)["content"] for p, b in self.before.items()},
            "story": dict(self.story),
            "inverse": ops_to_json(self.inverse),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, source: str = "a proposal file") -> Proposal:
        try:
            model = _ProposalModel.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise RemeError(
                f"{source} is not a valid proposal ({where}: {first['msg']}); fix or delete it."
            ) from None
        if model.version != FORMAT_VERSION:
            raise RemeError(
                f"{source} has format version {model.version}, this reme-workbench reads "
                f"{FORMAT_VERSION}; re-run the pipeline that made it."
            )
        return cls(
            id=model.id,
            action=model.action,
            summary=model.summary,
            ops=ops_from_json([o.model_dump() for o in model.ops]),
            checks=tuple(CheckSpec(c.name, c.params) for c in model.checks),
            before={p: (None if t is None else t.encode("utf-8")) for p, t in model.before.items()},
            story=model.story,
            state=model.state,
            created_at=model.created_at,
            updated_at=model.updated_at,
            inverse=ops_from_json([o.model_dump() for o in model.inverse]),
            error=model.error,
        )


def op_kind(op: FileOp) -> str:
    return "create" if isinstance(op, Create) else "edit" if isinstance(op, Edit) else "delete"
