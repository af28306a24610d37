"""Every tunable in one typed place, read once at the edge and passed down.

What each key means and its default: docs/spec.md §10 (tests/integration/test_docs.py keeps that
table equal to this file).
A vault may override any of them in `<vault>/reme.toml`, e.g.::

    [vault]
    lock_timeout_s = 5

    [llm]
    brain = "litellm:openai/gpt-4o-mini"

Every key here changes what a command does (tests/ops/test_settings_act.py proves it key
by key); a key no code reads is not added until the code that reads it is.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import RemeError

__all__ = ["Settings", "load_settings", "CONFIG_FILE", "litellm_model"]

CONFIG_FILE = "reme.toml"


def litellm_model(spec: str | None) -> str | None:
    """The model a `litellm:<model>` spec names — `[llm] brain` and `[recall] embedder`
    alike, e.g. "litellm:openai/gpt-4o-mini" -> "openai/gpt-4o-mini" — or None for any
    other spec and for one that names no model. The one reader of the prefix: the brain
    factory and the embedder specs both ask it."""
    kind, sep, model = (spec or "").strip().partition(":")
    if sep and kind.lower() == "litellm" and model.strip():
        return model.strip()
    return None


class _Section(BaseModel):
    # A typo in reme.toml must fail loudly, not be silently ignored.
    model_config = ConfigDict(extra="forbid", frozen=True)


class VaultSettings(_Section):
    # bad-input guard: a bigger note is not read (the scan, the index and edits refuse it)
    max_note_bytes: int = Field(5 * 1024 * 1024, gt=0)  # = vault.note.MAX_NOTE_BYTES
    lock_timeout_s: float = Field(30.0, gt=0)  # how long a write waits for another process
    # the CAS re-plan limit: how many times a vault operation (rename, health --fix, the
    # health report) is planned when the files keep changing under it
    max_replans: int = Field(3, ge=1)


class SplitSettings(_Section):
    token_threshold: int = Field(2000, gt=0)  # the split trigger T_token: dream flags longer notes
    # the offline brain splits a long note when its sections are less alike than this on
    # average (docs/spec.md §7.9.4); a model brain judges by reading
    dispersed_under: float = Field(0.16, ge=0, le=1)


class CommunitySettings(_Section):  # docs/spec.md §7.2
    resolution: float = Field(1.0, gt=0)  # Leiden (modularity) resolution
    seed: int = 42  # Leiden is randomised: a fixed first seed keeps weekly runs comparable
    trials: int = Field(5, ge=1)  # seeds tried (seed, seed+1, ...); the best modularity is kept
    # a note whose community's other notes are at least this share in one other bucket is
    # reported as maybe misfiled (meta/misfiled.json, §7.2.8) ...
    misfiled_share: float = Field(0.8, gt=0.5, le=1)
    # ... when the community has at least this many digest notes (fewer say too little)
    misfiled_min_size: int = Field(5, ge=3)


class AbstractSettings(_Section):  # docs/spec.md §7.6: the gates, then the hub's checks
    hub_coverage: float = Field(0.6, gt=0, le=1)  # a member linking this share of the rest is a hub
    min_nodes: int = Field(5, ge=2)  # members a community needs
    min_stability: float = Field(0.7, ge=0, le=1)  # Jaccard stability against last week
    min_active_nodes: int = Field(3, ge=0)  # members with access-log events in the window
    active_window_days: float = Field(30, gt=0)
    min_name_diversity: float = Field(0.5, ge=0, le=1)  # similar names are merge's business
    min_pillars: int = Field(3, ge=1)
    max_pillars: int = Field(5, ge=1)
    max_tokens: int = Field(1500, gt=0)  # the hub body stays under this (below the split trigger)
    min_member_coverage: float = Field(0.6, ge=0, le=1)  # share of members the hub links

    @model_validator(mode="after")
    def _pillars_in_order(self) -> AbstractSettings:
        if self.min_pillars > self.max_pillars:
            raise ValueError("min_pillars must not exceed max_pillars")
        return self


class MergeSettings(_Section):  # docs/spec.md §7.7
    min_description_similarity: float = Field(0.6, ge=0, le=1)  # candidate gate 1
    min_body_overlap: float = Field(0.5, ge=0, le=1)  # candidate gate 2
    min_confidence: float = Field(0.8, ge=0, le=1)  # a vote agrees from this confidence
    # agreeing votes for a merge proposal, of the 3 judges (llm.consolidate.JUDGES)
    min_agree: int = Field(2, ge=1, le=3)


class ArchiveSettings(_Section):  # docs/spec.md §7.3
    tau_update_days: float = Field(60.0, gt=0)  # τ of the recency decay
    centrality_scale: float = Field(10.0, gt=0)  # SCALE of the inbound-link cushion
    threshold: float = Field(0.15, ge=0, le=1)  # recency under this: archived
    hit_window_days: int = Field(30, ge=1)  # access-log events counted as recent hits
    # one batch archives at most this share of the live notes (rounded down, coldest
    # first) and holds the rest back: an imported vault is not emptied in one day
    max_share_per_run: float = Field(0.1, ge=0, le=1)


class CooldownSettings(_Section):  # docs/spec.md §7.4
    split_to_merge_days: int = Field(14, ge=0)  # just-split notes are no merge candidates
    merge_to_split_days: int = Field(14, ge=0)  # just-merged notes are not split
    merge_to_merge_days: int = Field(84, ge=0)  # merged again this soon: an alarm, held for a person
    abstract_to_merge_days: int = Field(28, ge=0)  # a new hub is no merge candidate


class ScheduleSettings(_Section):  # docs/spec.md §7.1: when `consolidate` runs each phase
    communities_every_days: float = Field(7.0, gt=0)  # weekly
    archive_every_days: float = Field(1.0, gt=0)  # daily; health runs every time


class RecallSettings(_Section):
    rrf_k: int = Field(60, gt=0)  # recall issue: RRF constant
    traverse_depth: int = Field(2, ge=0)  # docs/spec.md §6.4
    # "auto" (the index's own embedder; for a new index minilm, minilm-float without
    # onnxruntime: the rule is index.factory.auto_spec's alone), "minilm" (int8),
    # "minilm-float" (float32 numpy, the reference vectors), "e5", "hashing" (tests only)
    # or "litellm:<model>". e5 reads Chinese.
    embedder: str = "auto"
    # recall issue: weighted RRF; "relative" (score fusion) measures better on LoCoMo
    fusion: Literal["rrf", "relative"] = "rrf"

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        # a misspelt embedder fails when reme.toml is read, not at the first embedding
        from .index.specs import check_spec  # no model code: reading reme.toml stays cheap

        try:
            return check_spec(value)
        except RemeError as exc:
            raise ValueError(str(exc)) from None


class ProposalSettings(_Section):
    # dream issue: CREATE and CORROBORATE apply at once; REFINE / CORRECT wait for a person;
    # whatever is listed applies only when it adds lines (docs/spec.md §3.7.3)
    auto_apply: tuple[str, ...] = ("dream.create", "dream.corroborate")


class LLMSettings(_Section):
    brain: str = "offline"  # "offline" or "litellm:<model>"
    api_base: str | None = None
    language: str = "auto"  # "en", "zh" or "auto" (by the material)
    # one leading system message, for local servers whose chat template rejects a second
    single_system: bool = False


class ServerSettings(_Section):  # `reme-workbench serve`, the local HTTP API (docs/api.md)
    # a bigger request body is refused (413) before it is read: a declared Content-Length
    # at once, a chunked body when its count passes this; 16 MiB holds a few edited notes
    # of an accepted proposal or a benchmark's recall batch
    max_body_bytes: int = Field(16 * 1024 * 1024, gt=0)
    # a connection that sends nothing this long is closed: a new one, or kept alive
    # between requests
    idle_timeout_s: float = Field(5.0, gt=0)
    # a request's line and headers must have arrived this long after its first byte (a
    # trickle of bytes does not restart the clock: a slowloris client is answered 408)
    header_timeout_s: float = Field(10.0, gt=0)
    body_timeout_s: float = Field(30.0, gt=0)  # ... and its body this long after its headers
    # connections open at once; one more is answered 503 and closed (a plugin and an
    # agent or two need a handful)
    max_connections: int = Field(32, ge=1)


class Settings(_Section):
    vault: VaultSettings = VaultSettings()
    split: SplitSettings = SplitSettings()
    communities: CommunitySettings = CommunitySettings()
    abstract: AbstractSettings = AbstractSettings()
    merge: MergeSettings = MergeSettings()
    archive: ArchiveSettings = ArchiveSettings()
    cooldowns: CooldownSettings = CooldownSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    recall: RecallSettings = RecallSettings()
    llm: LLMSettings = LLMSettings()
    proposals: ProposalSettings = ProposalSettings()
    server: ServerSettings = ServerSettings()


def load_settings(vault_root: Path) -> Settings:
    """Settings for a vault: defaults overlaid with `<vault>/reme.toml` when present."""
    path = Path(vault_root) / CONFIG_FILE
    if not path.exists():
        return Settings()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RemeError(
            f"{path} is not valid TOML ({exc}); fix the syntax or delete the file to use "
            "the defaults.",
            path=str(path),
        ) from None
    if "api_key" in raw.get("llm", {}):
        raise RemeError(
            f"{path} contains llm.api_key; keys do not belong in a vault that may be synced. "
            "Set REME_LLM_API_KEY (or the provider's own variable) instead.",
            path=str(path),
        )
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise RemeError(
            f"{path} has invalid settings ({problems}); correct them or remove the lines to "
            "use the defaults.",
            path=str(path),
        ) from None
