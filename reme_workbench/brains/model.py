"""`LLMBrain`: the brain implemented with prompt files and `litellm.completion`.

litellm is imported on the first real call (its import takes seconds and would try
the network without LITELLM_LOCAL_MODEL_COST_MAP). Replaying a cassette never imports
it: with structured_output "auto" the cassette's recorded requests tell which
`response_format` to send (it is imported only when they do not say).

It is dream's `Brain` and consolidate's `ConsolidateBrain` at once. Every call takes the
brain's temperature (0 by default) except a vote: the three judges of a pair are three
calls at `vote_temperature` (> 0), so they are independent samples, not one answer
three times (docs/spec.md §7.7).
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

from ..errors import RemeError
from ..llm.base import Brain, BrainError, BrainReply, IntegrateRequest, Material, Usage
from ..llm.cassette import Cassette, Exchange
from ..llm.consolidate import ConsolidateBrain, HubRequest, MergeRequest, PairRequest, SplitRequest
from ..llm.ledger import TokenLedger
from ..llm.prompts import (
    extract_messages,
    hub_messages,
    integrate_messages,
    merge_messages,
    resolve_language,
    resolve_notes_language,
    split_messages,
    vote_messages,
)
from ..llm.schema import (
    ExtractedUnits,
    HubNote,
    IntegrateDecision,
    MergedNote,
    PairVote,
    SplitPlan,
    reply_schema,
)
from ..llm.structured import complete_structured

__all__ = ["LLMBrain", "STRUCTURED_OUTPUT_MODES", "VOTE_TEMPERATURE", "import_litellm"]

VOTE_TEMPERATURE = 0.7  # > 0: three votes on one pair must be able to differ

LANGUAGE_SETTINGS = ("auto", "en", "zh")
# "auto" asks litellm what the model supports; the others force a choice (useful for
# local servers litellm knows nothing about, e.g. a vLLM or llama.cpp endpoint).
STRUCTURED_OUTPUT_MODES = ("auto", "json_schema", "json_object", "none")


def import_litellm() -> Any:
    """Import litellm the safe way: local cost map (no network), no feedback banner."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # litellm's response types trip a harmless pydantic warning on every first call
    warnings.filterwarnings(
        "ignore",
        message=r"Item '.*' on TypedDict class .* `ReadOnly` qualifier",
        category=UserWarning,
    )
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LLMBrain(Brain, ConsolidateBrain):
    """The dream and consolidate brain over any litellm model (`openai/gpt-4o-mini`,
    `ollama/qwen2.5`, `dashscope/qwen-plus`, ...). The key is held privately and never
    shown."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        language: str = "auto",
        ledger: TokenLedger | None = None,
        cassette: Cassette | None = None,
        temperature: float = 0.0,
        vote_temperature: float = VOTE_TEMPERATURE,
        timeout: float = 120,
        structured_output: str = "auto",
        max_retries: int = 2,
        single_system: bool = False,
    ) -> None:
        if not model or not model.strip():
            raise RemeError("LLMBrain needs a model name such as 'openai/gpt-4o-mini'.")
        if language not in LANGUAGE_SETTINGS:
            raise RemeError(f"Language {language!r} is not supported; use auto, en or zh.")
        if structured_output not in STRUCTURED_OUTPUT_MODES:
            raise RemeError(
                f"structured_output {structured_output!r} is unknown; use one of "
                f"{', '.join(STRUCTURED_OUTPUT_MODES)}."
            )
        if not vote_temperature > 0:
            raise RemeError(
                f"vote_temperature must be above 0 (got {vote_temperature!r}): at 0 the three "
                "votes on a pair would be one answer three times. Use e.g. 0.7."
            )
        self.model = model.strip()
        self.api_base = api_base
        self.language = language
        self.ledger = ledger
        self.cassette = cassette
        self.temperature = temperature
        self.vote_temperature = vote_temperature
        self.timeout = timeout
        self.structured_output = structured_output
        self.max_retries = max_retries  # transport retries (429 / 5xx), done by litellm
        self.single_system = single_system  # one system message, for strict chat templates
        self.__api_key = api_key or None  # name-mangled: not in vars() dumps by accident
        self._capability: str | None = None
        self._capability_lock = threading.Lock()

    def __repr__(self) -> str:
        base = f", api_base={self.api_base!r}" if self.api_base else ""
        return f"LLMBrain({self.model!r}{base}, language={self.language!r})"

    # -- the capabilities ---------------------------------------------------------

    def extract(self, material: Material) -> BrainReply[ExtractedUnits]:
        language = resolve_language(self.language, material)
        return self._ask(
            "extract",
            material.path,
            extract_messages(material, language),
            ExtractedUnits,
            language,
            context=None,
        )

    def integrate(self, request: IntegrateRequest) -> BrainReply[IntegrateDecision]:
        language = resolve_language(self.language, request.material)
        return self._ask(
            "integrate",
            request.material.path,
            integrate_messages(request, language, single_system=self.single_system),
            IntegrateDecision,
            language,
            context={"candidate_paths": request.candidate_paths},
        )

    # -- consolidate (docs/spec.md §7.6–§7.8) ---------------------------------------
    # The ledger's "material" is a source file; these calls read digest notes, so they
    # are counted by action only (the caller keeps each reply's usage in its story).

    def vote(self, request: PairRequest) -> BrainReply[PairVote]:
        language = resolve_notes_language(self.language, request.language, (request.a, request.b))
        return self._ask(
            "vote",
            None,
            vote_messages(request, language),
            PairVote,
            language,
            context=None,
            temperature=self.vote_temperature,
        )

    def merge(self, request: MergeRequest) -> BrainReply[MergedNote]:
        notes = (request.winner, request.loser)
        language = resolve_notes_language(self.language, request.language, notes)
        return self._ask(
            "merge", None, merge_messages(request, language), MergedNote, language, context=None
        )

    def plan_split(self, request: SplitRequest) -> BrainReply[SplitPlan]:
        language = resolve_notes_language(self.language, request.language, (request.note,))
        return self._ask(
            "split", None, split_messages(request, language), SplitPlan, language, context=None
        )

    def write_hub(self, request: HubRequest) -> BrainReply[HubNote]:
        language = resolve_notes_language(self.language, request.language, request.members)
        return self._ask(
            "hub",
            None,
            hub_messages(request, language),
            HubNote,
            language,
            context={"member_paths": request.member_paths},
        )

    # -- plumbing -------------------------------------------------------------------

    def _ask(
        self,
        action: str,
        material_path: str | None,
        messages: list[dict],
        reply_model: type,
        language: str,
        *,
        context: dict | None,
        temperature: float | None = None,
    ) -> BrainReply[Any]:
        response_format = self.response_format(reply_model)
        temperature = self.temperature if temperature is None else temperature

        def send(msgs: list[dict]) -> Exchange:
            return self._send(action, material_path, msgs, response_format, temperature)

        return complete_structured(
            send=send,
            messages=messages,
            reply_model=reply_model,
            model=self.model,
            language=language,
            context=context,
            what=f"{action} reply",
        )

    def response_format(self, reply_model: type) -> dict | None:
        """What `response_format` to send for `reply_model`, by the model's support."""
        mode = self.structured_output
        if mode == "auto":
            mode = self._detect_capability()
        if mode == "json_schema":
            return {
                "type": "json_schema",
                # strict=False: strict mode rejects maxLength / optional fields on OpenAI;
                # the bounds are enforced by pydantic after the reply anyway.
                "json_schema": {
                    "name": reply_model.__name__,
                    "schema": reply_schema(reply_model),
                    "strict": False,
                },
            }
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    def _detect_capability(self) -> str:
        with self._capability_lock:
            if (
                self._capability is None
                and self.cassette is not None
                and self.cassette.mode == "replay"
            ):
                # a replay sends what was recorded; the cassette knows, litellm need not load
                self._capability = self.cassette.structured_output(self.model)
            if self._capability is None:
                litellm = import_litellm()
                try:
                    if litellm.supports_response_schema(model=self.model):
                        self._capability = "json_schema"
                except Exception:  # unknown model: litellm raises instead of answering
                    pass
                if self._capability is None:
                    try:
                        params = litellm.get_supported_openai_params(model=self.model) or []
                    except Exception:
                        params = []
                    self._capability = "json_object" if "response_format" in params else "none"
            return self._capability

    def _send(
        self,
        action: str,
        material_path: str | None,
        messages: list[dict],
        response_format: dict | None,
        temperature: float,
    ) -> Exchange:
        request = {
            "model": self.model,
            "messages": messages,
            "response_format": response_format,
            "temperature": temperature,
        }
        if self.cassette is not None and self.cassette.mode == "replay":
            exchange = self.cassette.lookup(request, action=action)
        else:
            exchange = self._complete(request)
            if self.cassette is not None:
                self.cassette.record(request, exchange, action=action)
        if self.ledger is not None:
            self.ledger.record(action, material_path, exchange.usage)
        return exchange

    def _complete(self, request: dict) -> Exchange:
        litellm = import_litellm()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request["messages"],
            "temperature": request["temperature"],
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "drop_params": True,  # e.g. reasoning models that refuse `temperature`
        }
        if request["response_format"] is not None:
            kwargs["response_format"] = request["response_format"]
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.__api_key:
            kwargs["api_key"] = self.__api_key
        failure = None
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:
            failure = f"{type(exc).__name__}: {self._scrub(str(exc))[:600]}"
        if failure is not None:
            # raised outside the except block: the original exception (whose text may
            # carry the key) is not even attached as __context__
            where = f" at {self.api_base}" if self.api_base else ""
            raise BrainError(
                f"Calling model {self.model!r}{where} failed: {failure}. Check that the server "
                "is running, the model name is right and the key is set (REME_LLM_API_KEY or "
                "the provider's own variable).",
                model=self.model,
            )
        return Exchange(
            raw=_content(response), usage=_usage(response), model=_model(response, self.model)
        )

    def _scrub(self, text: str) -> str:
        key = self.__api_key
        return text.replace(key, "***") if key and len(key) >= 4 else text


def _content(response: Any) -> str:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached is None and isinstance(details, dict):
        cached = details.get("cached_tokens")
    return Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
        int(cached or 0),
    )


def _model(response: Any, fallback: str) -> str:
    model = getattr(response, "model", None)
    return model if isinstance(model, str) and model else fallback
