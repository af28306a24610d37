"""Every tunable in one typed place, read once at the edge and passed down.

Defaults are the seeds' values; each field names the seed section it comes from.
A vault may override any of them in `<vault>/reme.toml`, e.g.::

    [abstract]
    min_nodes = 6

    [llm]
    brain = "litellm:openai/gpt-4o-mini"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import RemeError

__all__ = ["Settings", "load_settings", "CONFIG_FILE"]

CONFIG_FILE = "reme.toml"


class _Section(BaseModel):
    # A typo in reme.toml must fail loudly, not be silently ignored.
    model_config = ConfigDict(extra="forbid", frozen=True)


class VaultSettings(_Section):
    max_note_bytes: int = Field(5 * 1024 * 1024, gt=0)  # bad-input guard: bigger notes are refused
    lock_timeout_s: float = Field(30.0, gt=0)  # how long apply waits for another process
    max_replans: int = Field(3, ge=1)  # seed 004 §9.1 step 5: CAS re-plan limit


class SplitSettings(_Section):
    token_threshold: int = Field(2000, gt=0)  # seed 004 §5.1 T_token


class CommunitySettings(_Section):
    resolution: float = Field(1.0, gt=0)  # seed 004 §1.2 Leiden resolution
    seed: int = 42  # Leiden is randomised; a fixed seed keeps weekly runs comparable


class AbstractSettings(_Section):
    min_nodes: int = Field(5, ge=1)  # seed 004 §2.2
    min_stability: float = Field(0.7, ge=0, le=1)  # seed 004 §2.2
    min_active_nodes: int = Field(3, ge=0)  # seed 004 §2.2 (hits in the window below)
    active_window_days: int = Field(30, ge=1)  # seed 004 §2.2
    min_name_diversity: float = Field(0.5, ge=0, le=1)  # seed 004 §2.2
    hub_coverage: float = Field(0.6, ge=0, le=1)  # seed 004 §2.5 community_has_hub
    max_summary_tokens: int = Field(1500, gt=0)  # seed 004 §2.4
    min_source_grounding: float = Field(0.6, ge=0, le=1)  # seed 004 §2.3


class MergeSettings(_Section):
    min_description_similarity: float = Field(0.6, ge=0, le=1)  # seed 004 §3.1
    min_body_overlap: float = Field(0.5, ge=0, le=1)  # seed 004 §3.1
    votes: int = Field(3, ge=1)  # seed 004 §3.2
    min_agree: int = Field(2, ge=1)  # seed 004 §3.2
    min_vote_confidence: float = Field(0.8, ge=0, le=1)  # seed 004 §3.2


class ArchiveSettings(_Section):
    tau_update_days: float = Field(60.0, gt=0)  # seed 004 §6.1 τ_update
    centrality_scale: float = Field(10.0, gt=0)  # seed 004 §6.1 SCALE
    threshold: float = Field(0.15, ge=0, le=1)  # seed 004 §6.2


class CooldownSettings(_Section):
    split_to_merge_days: int = 14  # seed 004 §8
    merge_to_split_days: int = 14  # seed 004 §8
    merge_to_merge_days: int = 84  # seed 004 §8 (12 weeks)
    abstract_to_merge_days: int = 28  # seed 004 §8


class RecallSettings(_Section):
    rrf_k: int = Field(60, gt=0)  # recall issue: RRF constant
    traverse_depth: int = Field(2, ge=0)  # seed 000 §4.2.2
    embedder: str = "minilm"  # "minilm", "e5", "hashing" (tests only) or "litellm:<model>"
    # recall issue: weighted RRF; "relative" (score fusion) measures better on LoCoMo
    fusion: Literal["rrf", "relative"] = "rrf"


class ProposalSettings(_Section):
    # dream issue: CREATE and CORROBORATE apply at once; REFINE / CORRECT wait for a person
    auto_apply: tuple[str, ...] = ("dream.create", "dream.corroborate")


class LLMSettings(_Section):
    brain: str = "offline"  # "offline" or "litellm:<model>"
    api_base: str | None = None
    language: str = "auto"  # "en", "zh" or "auto" (by the material)
    # one leading system message, for local servers whose chat template rejects a second
    single_system: bool = False


class Settings(_Section):
    vault: VaultSettings = VaultSettings()
    split: SplitSettings = SplitSettings()
    communities: CommunitySettings = CommunitySettings()
    abstract: AbstractSettings = AbstractSettings()
    merge: MergeSettings = MergeSettings()
    archive: ArchiveSettings = ArchiveSettings()
    cooldowns: CooldownSettings = CooldownSettings()
    recall: RecallSettings = RecallSettings()
    llm: LLMSettings = LLMSettings()
    proposals: ProposalSettings = ProposalSettings()


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
