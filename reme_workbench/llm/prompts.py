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

Consolidate (docs/spec.md §7.6–§7.8) sends `[system: consolidate_<task>, user: notes,
the links the checks will require, the task, feedback]`. The three votes on one pair
differ only in their last line (the judge's number), so they share the whole prefix
and a cassette keys each judge apart.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources

from ..errors import RemeError
from ..textrules.cjk import is_cjk_or_kana, language_of
from ..vault.layout import BUCKETS
from ..vault.links import PROVENANCE_PREDICATE, outbound_keys
from .base import IntegrateRequest, Material
from .consolidate import JUDGES, HubRequest, MergeRequest, NoteView, PairRequest, SplitRequest
from .schema import (
    ExtractedUnits,
    HubNote,
    IntegrateDecision,
    MergedNote,
    PairVote,
    SplitPlan,
    reply_schema,
)

__all__ = [
    "LANGUAGES",
    "PROMPT_NAMES",
    "CONSOLIDATE_PROMPTS",
    "INTEGRATE_COMMON",
    "SCHEMA_PLACEHOLDER",
    "system_prompt",
    "detect_language",
    "resolve_language",
    "resolve_notes_language",
    "material_block",
    "extract_messages",
    "integrate_messages",
    "vote_messages",
    "merge_messages",
    "split_messages",
    "hub_messages",
    "link_lines",
    "retry_message",
    "approx_tokens",
    "shared_prefix_tokens",
]

LANGUAGES = ("en", "zh")
INTEGRATE_COMMON = "integrate_common"
CONSOLIDATE_PROMPTS = (
    "consolidate_vote",
    "consolidate_merge",
    "consolidate_split",
    "consolidate_hub",
)
PROMPT_NAMES = (
    "extract",
    INTEGRATE_COMMON,
    *(f"integrate_{b}" for b in BUCKETS),
    *CONSOLIDATE_PROMPTS,
)
SCHEMA_PLACEHOLDER = "{{json_schema}}"

# The prompts that end with their reply's JSON Schema; a bucket prompt has none (the
# schema is the same for every bucket, so it sits in the shared common prompt).
_SCHEMAS = {
    "extract": ExtractedUnits,
    INTEGRATE_COMMON: IntegrateDecision,
    "consolidate_vote": PairVote,
    "consolidate_merge": MergedNote,
    "consolidate_split": SplitPlan,
    "consolidate_hub": HubNote,
}
# A hub sees its members' openings, not their every detail: the hub links them.
HUB_MEMBER_BODY_CHARS = 1500

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
        "links_of": "Links of note {which} (outbound links and provenance)",
        "judge": "You are judge {judge} of {judges}; vote on your own. Are A and B the same "
        "concept? Reply with one JSON object only.",
        "merge_links": "Links your body must contain (every link of both notes; checked):",
        "no_links": "(none)",
        "merge": "Merge the loser into the winner: the winner's body plus every statement and "
        "link of the loser's it lacks, nothing reworded. Reply with one JSON object only.",
        "refused": "Your previous answer was refused. Fix this and keep everything else:",
        "split_bucket": "Children are created in the bucket `{bucket}`: `digest/{bucket}/<slug>.md`. "
        "The parent is `{parent}`.",
        "split_links": "Links the parent and the children must keep between them (every link "
        "of the old body; checked):",
        "split_provenance": "Provenance lines every child carries (the parent keeps them too):",
        "split": "The note has {tokens} estimated tokens; the split threshold is {threshold}. "
        "Is it overloaded? If so, plan the split. Reply with one JSON object only.",
        "community": "Community {community}: {count} members.",
        "central": "The most central members (pillar candidates, most central first):",
        "members": "Members",
        "member_paths": "Pillars must be chosen from these member paths:",
        "hub_provenance": "Provenance lines the hub carries (the members' derived_from links):",
        "hub": "Write the hub note: overview, 3 to 5 pillars, what stays in the members; "
        "under 1,500 tokens. Reply with one JSON object only.",
    },
    "zh": {
        "extract": "请从上面的材料中提取值得记住的 unit。只输出一个 JSON 对象。",
        "candidates": "从库中召回的候选笔记",
        "no_candidates": "没有召回任何候选笔记:action 必须是 CREATE。",
        "unit": "请整合这个 unit。只输出一个 JSON 对象。",
        "feedback": "你上一次对这个 unit 的决定被拒绝了。请修正下面的问题,其余保持不变:",
        "retry": "你上一次的回复无法使用:{error}\n请重新回复,只输出一个符合系统提示中 JSON Schema "
        "的 JSON 对象:不要任何说明文字,不要代码块围栏。",
        "links_of": "笔记 {which} 的链接(出链和溯源)",
        "judge": "你是第 {judge} 位评审(共 {judges} 位);请独立投票。A 和 B 是同一个概念吗?"
        "只输出一个 JSON 对象。",
        "merge_links": "你的正文必须包含的链接(两篇笔记的每一个链接;会被检查):",
        "no_links": "(无)",
        "merge": "把落选者合并进胜出者:胜出者的正文,加上落选者中它还没有的每一条陈述和每一个链接,"
        "一字不改。只输出一个 JSON 对象。",
        "refused": "你上一次的回答被拒绝了。请修正下面的问题,其余保持不变:",
        "split_bucket": "子笔记建在桶 `{bucket}` 中:`digest/{bucket}/<slug>.md`。父笔记是 `{parent}`。",
        "split_links": "父笔记和子笔记必须共同保留的链接(旧正文的每一个链接;会被检查):",
        "split_provenance": "每篇子笔记都要带上的溯源行(父笔记中也保留):",
        "split": "这篇笔记估算有 {tokens} 个 token;拆分阈值是 {threshold}。它过载了吗?"
        "如果过载,请规划拆分。只输出一个 JSON 对象。",
        "community": "社区 {community}:{count} 个成员。",
        "central": "最核心的成员(支柱候选,最核心的在前):",
        "members": "成员",
        "member_paths": "支柱必须从这些成员路径中选择:",
        "hub_provenance": "枢纽笔记要带上的溯源行(成员的 derived_from 链接):",
        "hub": "请写出枢纽笔记:概览、3 到 5 个支柱、细节留在哪些成员中;少于 1,500 个 token。"
        "只输出一个 JSON 对象。",
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


# "auto" picks the prompts of the material's language: "zh" when at least
# `CHINESE_SHARE` (30 %) of its letters are CJK, kana counted (Japanese text is closer
# to the Chinese prompts than to the English), else "en" — textrules' one reading of a
# text's language, which the offline brains read by too.
detect_language = language_of


def resolve_language(setting: str, material: Material) -> str:
    """The prompt language for one call: the brain's setting, else the material's
    hint, else detection from the material's text."""
    if setting in LANGUAGES:
        return setting
    if material.language in LANGUAGES:
        return material.language
    return detect_language(material.text)


def resolve_notes_language(setting: str, hint: str, notes: tuple[NoteView, ...]) -> str:
    """A consolidate call's language: the brain's setting, else the request's hint, else
    detection from the notes' names, descriptions and bodies."""
    if setting in LANGUAGES:
        return setting
    if hint in LANGUAGES:
        return hint
    return detect_language("\n".join(f"{n.name}\n{n.description}\n{n.body}" for n in notes))


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


# -- consolidate (docs/spec.md §7.6–§7.8) ----------------------------------------------------


def note_block(note: NoteView, *, attrs: str = "", max_body: int | None = None) -> str:
    """One note as the consolidate prompts show it (the `<candidate>` form of dream)."""
    body = note.body.strip()
    if max_body is not None and len(body) > max_body:
        # cut at a line end, so no link is shown half (the model would copy it)
        cut = body[:max_body]
        body = (cut.rsplit("\n", 1)[0] if "\n" in cut else cut).rstrip() + "\n…"
    return (
        f'<note path="{note.path}"{attrs}>\nname: {note.name}\ndescription: {note.description}\n'
        f"<body>\n{body}\n</body>\n</note>"
    )


def link_lines(keys, *, exclude: frozenset[str] = frozenset()) -> list[str]:
    """Edge keys `(target, predicate)` written as the body must write them, sorted."""
    kept = {(t, p) for t, p in keys if t not in exclude}
    return [
        f"{p}:: [[{t}]]" if p else f"[[{t}]]"
        for t, p in sorted(kept, key=lambda k: (k[0], k[1] or ""))
    ]


def _provenance_lines(*bodies: str) -> list[str]:
    keys = set()
    for body in bodies:
        keys |= {(t, p) for t, p in outbound_keys(body) if p == PROVENANCE_PREDICATE}
    return link_lines(keys)


def _listed(lines: list[str], empty: str) -> str:
    return "\n".join(f"- {line}" for line in lines) if lines else empty


def _feedback(labels: dict, feedback: str | None) -> list[str]:
    if not feedback:
        return []
    return [f"<feedback>\n{labels['refused']}\n{feedback.strip()}\n</feedback>"]


def _messages(prompt: str, language: str, parts: list[str]) -> list[dict]:
    return [
        {"role": "system", "content": system_prompt(prompt, language)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def vote_messages(request: PairRequest, language: str) -> list[dict]:
    """Both notes (and their links) first, the judge's number last: the judges' requests
    share everything but that line."""
    labels = _LABELS[language]
    parts = [note_block(request.a, attrs=' id="A"'), note_block(request.b, attrs=' id="B"')]
    for which, links in (("A", request.a_links), ("B", request.b_links)):
        if links:
            listed = "\n".join(f"- {link}" for link in links)
            parts.append(
                f'<links of="{which}">\n{labels["links_of"].format(which=which)}:\n'
                f"{listed}\n</links>"
            )
    parts.append(labels["judge"].format(judge=request.judge + 1, judges=JUDGES))
    return _messages("consolidate_vote", language, parts)


def merge_messages(request: MergeRequest, language: str) -> list[dict]:
    """Winner, loser, then every link the merged body must keep: A.out ∪ B.out less the
    links between the two (they would point at the merged note itself)."""
    labels = _LABELS[language]
    winner, loser = request.winner, request.loser
    keys = outbound_keys(winner.body) | outbound_keys(loser.body)
    required = link_lines(keys, exclude=frozenset({winner.path, loser.path}))
    parts = [
        note_block(winner, attrs=' role="winner"'),
        note_block(loser, attrs=' role="loser"'),
        f"{labels['merge_links']}\n{_listed(required, labels['no_links'])}",
        labels["merge"],
        *_feedback(labels, request.feedback),
    ]
    return _messages("consolidate_merge", language, parts)


def split_messages(request: SplitRequest, language: str) -> list[dict]:
    """The note, where its children go, the links E-2 requires and the provenance every
    child carries, then the question."""
    labels = _LABELS[language]
    note = request.note
    attrs = f' tokens="{request.tokens}" threshold="{request.threshold}"'
    parts = [
        note_block(note, attrs=attrs),
        labels["split_bucket"].format(bucket=request.bucket, parent=note.path),
        f"{labels['split_links']}\n"
        f"{_listed(link_lines(outbound_keys(note.body)), labels['no_links'])}",
        f"{labels['split_provenance']}\n"
        f"{_listed(_provenance_lines(note.body), labels['no_links'])}",
        labels["split"].format(tokens=request.tokens, threshold=request.threshold),
        *_feedback(labels, request.feedback),
    ]
    return _messages("consolidate_split", language, parts)


def hub_messages(request: HubRequest, language: str) -> list[dict]:
    """The community, its pillar candidates, the members (openings only), the paths the
    pillars must come from and the provenance the hub carries."""
    labels = _LABELS[language]
    members = request.members
    central = [p for p in request.central if p in request.member_paths]
    parts = [labels["community"].format(community=request.community, count=len(members))]
    if central:
        parts.append(f"{labels['central']}\n{_listed(central, labels['no_links'])}")
    blocks = [f"## {labels['members']}"]
    blocks += [note_block(m, max_body=HUB_MEMBER_BODY_CHARS) for m in members]
    parts.append("\n\n".join(blocks))
    parts.append(f"{labels['member_paths']}\n{_listed(sorted(request.member_paths), '')}")
    provenance = _provenance_lines(*(m.body for m in members))
    parts.append(f"{labels['hub_provenance']}\n{_listed(provenance, labels['no_links'])}")
    parts.append(labels["hub"])
    parts.extend(_feedback(labels, request.feedback))
    return _messages("consolidate_hub", language, parts)


def retry_message(language: str, error: str) -> dict:
    return {"role": "user", "content": _LABELS[language]["retry"].format(error=error)}


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per CJK character, one per 4 other characters."""
    cjk = sum(1 for ch in text if is_cjk_or_kana(ch))
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
