"""Prompt files and the message layout of every brain call.

Phase 2 (integrate) is laid out for provider prefix caches (docs/spec.md §4.10). Each call of
one material sends four messages:

    [system: integrate_common]   the rules every bucket shares + the reply's JSON Schema
    [user:   <material>]         rendered from the material alone
    [system: integrate_<bucket>] the unit's bucket: body form, decision bias, restated rules
    [user:   candidates, <unit>, feedback]

Why two system messages and this order: a prefix cache serves the longest byte-identical
prefix of the previous request. With one system prompt per bucket in front, every bucket
change and every new material restarted the prefix at the first character that named
the bucket (~250 characters in), so only same-bucket calls of one material shared more
than a few tokens. Now nothing before the bucket prompt depends on the bucket or the
unit: all K calls of one material share common prompt + material, consecutive calls of
one bucket (the pipeline orders units by bucket) also the bucket prompt, and calls of
the next material still the common prompt. The bucket prompts stay three separate,
specialised prompts; each restates the provenance, no-anchor and never-drop-a-link rules.

A second system message mid-conversation is accepted by OpenAI-compatible chat APIs
(OpenAI, vLLM, DashScope's compatible mode, ...). litellm (1.110) adapts it for providers
that want a single system string: Gemini folds every system message into one system
instruction (still correct — the bucket prompt just moves before the material, so less
is cacheable), Anthropic keeps the leading system run as `system` and places the later
one in the conversation. A local server whose chat template insists on a single leading
system message (some Mistral or Gemma templates) rejects the request; use a template
that renders every role.

The validation retry (`structured.complete_structured`) appends an assistant and a user
message at the end, so it extends the same prefix.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources

from ..errors import RemeError
from ..vault.layout import BUCKETS
from .base import IntegrateRequest, Material
from .schema import ExtractedUnits, IntegrateDecision, reply_schema

__all__ = [
    "LANGUAGES",
    "PROMPT_NAMES",
    "INTEGRATE_COMMON",
    "SCHEMA_PLACEHOLDER",
    "system_prompt",
    "detect_language",
    "resolve_language",
    "material_block",
    "extract_messages",
    "integrate_messages",
    "retry_message",
    "approx_tokens",
    "shared_prefix_tokens",
]

LANGUAGES = ("en", "zh")
INTEGRATE_COMMON = "integrate_common"
PROMPT_NAMES = ("extract", INTEGRATE_COMMON, *(f"integrate_{b}" for b in BUCKETS))
SCHEMA_PLACEHOLDER = "{{json_schema}}"
CJK_SHARE_FOR_ZH = 0.30  # "auto": Chinese prompts when >= 30 % of the letters are CJK

# The prompts that end with their reply's JSON Schema; a bucket prompt has none (the
# schema is the same for every bucket, so it sits in the shared common prompt).
_SCHEMAS = {"extract": ExtractedUnits, INTEGRATE_COMMON: IntegrateDecision}

# The few words of the user message around the data, per language.
_LABELS = {
    "en": {
        "extract": "Extract the units worth remembering from the material above. "
        "Reply with one JSON object only.",
        "candidates": "Candidate notes recalled from the vault",
        "no_candidates": "No candidate notes were recalled: the action must be CREATE.",
        "unit": "Integrate this unit. Reply with one JSON object only.",
        "feedback": "Your previous decision for this unit was refused. Fix this and keep "
        "everything else:",
        "retry": "Your previous reply could not be used: {error}\nReply again with one JSON "
        "object only, matching the JSON Schema in the system prompt: no prose, no code fences.",
    },
    "zh": {
        "extract": "请从上面的材料中提取值得记住的 unit。只输出一个 JSON 对象。",
        "candidates": "从库中召回的候选笔记",
        "no_candidates": "没有召回任何候选笔记:action 必须是 CREATE。",
        "unit": "请整合这个 unit。只输出一个 JSON 对象。",
        "feedback": "你上一次对这个 unit 的决定被拒绝了。请修正下面的问题,其余保持不变:",
        "retry": "你上一次的回复无法使用:{error}\n请重新回复,只输出一个符合系统提示中 JSON Schema "
        "的 JSON 对象:不要任何说明文字,不要代码块围栏。",
    },
}


@cache
def system_prompt(name: str, language: str) -> str:
    """The system prompt `name` ("extract", "integrate_common", "integrate_wiki", ...) in
    `language`, with the JSON Schema of its reply filled in where it has one."""
    if name not in PROMPT_NAMES or language not in LANGUAGES:
        raise RemeError(
            f"No prompt {name!r} in language {language!r}; prompts are {', '.join(PROMPT_NAMES)} "
            f"in {', '.join(LANGUAGES)}."
        )
    try:
        text = (
            resources.files("reme_workbench.prompts")
            .joinpath(language, f"{name}.md")
            .read_text(encoding="utf-8")
        )
    except (FileNotFoundError, OSError) as exc:
        raise RemeError(
            f"Prompt file prompts/{language}/{name}.md is missing ({exc}); reinstall "
            "reme-workbench."
        ) from None
    if name not in _SCHEMAS:
        return text
    schema = json.dumps(reply_schema(_SCHEMAS[name]), indent=2, ensure_ascii=False)
    return text.replace(SCHEMA_PLACEHOLDER, schema)


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # unified ideographs
        or 0x3400 <= cp <= 0x4DBF  # extension A
        or 0xF900 <= cp <= 0xFAFF  # compatibility ideographs
        or 0x20000 <= cp <= 0x2FFFF  # extensions B and later
        or 0x3040 <= cp <= 0x30FF  # kana: Japanese text is closer to zh than to en here
    )


def detect_language(text: str) -> str:
    """ "zh" when at least 30 % of the letters in `text` are CJK, else "en"."""
    letters = cjk = 0
    for ch in text:
        if ch.isalpha():
            letters += 1
            cjk += _is_cjk(ch)
    return "zh" if letters and cjk / letters >= CJK_SHARE_FOR_ZH else "en"


def resolve_language(setting: str, material: Material) -> str:
    """The prompt language for one call: the brain's setting, else the material's
    hint, else detection from the material's text."""
    if setting in LANGUAGES:
        return setting
    if material.language in LANGUAGES:
        return material.language
    return detect_language(material.text)


def material_block(material: Material) -> str:
    """The material as the model sees it; depends on nothing else (prefix caching)."""
    date = f' date="{material.date}"' if material.date else ""
    return f'<material path="{material.path}"{date}>\n{material.text.strip()}\n</material>'


def extract_messages(material: Material, language: str) -> list[dict]:
    labels = _LABELS[language]
    user = f"{material_block(material)}\n\n{labels['extract']}"
    return [
        {"role": "system", "content": system_prompt("extract", language)},
        {"role": "user", "content": user},
    ]


def integrate_messages(
    request: IntegrateRequest, language: str, *, single_system: bool = False
) -> list[dict]:
    """`[system(common), user(material), system(unit's bucket), user(candidates, unit
    LAST, feedback)]`: the first two messages are byte-identical for every unit of one
    material, whatever its bucket (see the module docstring).

    `single_system=True` is for servers whose chat template takes one leading system
    message and strictly alternating turns (some local Mistral / Gemma templates):
    `[system(common + bucket), user(material, candidates, unit, feedback)]`. Still
    material first and unit last, so same-bucket calls share a prefix; less is cached.
    """
    labels = _LABELS[language]
    parts = []
    if request.candidates:
        blocks = [f"## {labels['candidates']}"]
        for c in request.candidates:
            blocks.append(
                f'<candidate path="{c.path}">\nname: {c.name}\ndescription: {c.description}\n'
                f"<body>\n{c.body.strip()}\n</body>\n</candidate>"
            )
        parts.append("\n\n".join(blocks))
    else:
        parts.append(labels["no_candidates"])
    unit = request.unit
    parts.append(
        f'<unit bucket="{unit.bucket}">\nname: {unit.name}\nsummary: {unit.summary}\n</unit>\n'
        f"{labels['unit']}"
    )
    if request.feedback:
        parts.append(f"<feedback>\n{labels['feedback']}\n{request.feedback.strip()}\n</feedback>")
    common = system_prompt(INTEGRATE_COMMON, language)
    bucket = system_prompt(f"integrate_{unit.bucket}", language)
    if single_system:
        return [
            {"role": "system", "content": f"{common}\n\n{bucket}"},
            {"role": "user", "content": "\n\n".join([material_block(request.material), *parts])},
        ]
    return [
        {"role": "system", "content": common},
        {"role": "user", "content": material_block(request.material)},
        {"role": "system", "content": bucket},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def retry_message(language: str, error: str) -> dict:
    return {"role": "user", "content": _LABELS[language]["retry"].format(error=error)}


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per CJK character, one per 4 other characters."""
    cjk = sum(1 for ch in text if _is_cjk(ch))
    return cjk + -(-(len(text) - cjk) // 4)


def _serialize(messages: list[dict]) -> str:
    # Roughly how a chat template lays messages out; enough to compare two requests.
    return "".join(f"<|{m.get('role', '')}|>\n{m.get('content') or ''}\n" for m in messages)


def shared_prefix_tokens(prev_messages: list[dict] | None, messages: list[dict]) -> int:
    """Approximate tokens of the prefix `messages` shares with `prev_messages`: what a
    provider prefix cache could serve if the previous request had warmed it."""
    if not prev_messages:
        return 0
    return approx_tokens(os.path.commonprefix([_serialize(prev_messages), _serialize(messages)]))
