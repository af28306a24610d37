"""Prompt files, language choice and the cache-friendly message layout."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest

from reme_workbench.llm import (
    CandidateNote,
    IntegrateRequest,
    Material,
    MemoryUnit,
    order_units_for_cache,
    shared_prefix_tokens,
)
from reme_workbench.llm.prompts import (
    INTEGRATE_COMMON,
    LANGUAGES,
    PROMPT_NAMES,
    SCHEMA_PLACEHOLDER,
    approx_tokens,
    detect_language,
    extract_messages,
    integrate_messages,
    material_block,
    resolve_language,
    system_prompt,
)
from reme_workbench.llm.schema import (
    ExtractedUnits,
    HubNote,
    IntegrateDecision,
    MergedNote,
    PairVote,
    SplitPlan,
)
from reme_workbench.vault.layout import BUCKETS

INTEGRATE = [f"integrate_{b}" for b in BUCKETS]  # the three bucket prompts
# each prompt that embeds a schema, and whose; the bucket prompts share the common one's
WITH_SCHEMA = {
    "extract": ExtractedUnits,
    INTEGRATE_COMMON: IntegrateDecision,
    "consolidate_vote": PairVote,
    "consolidate_merge": MergedNote,
    "consolidate_split": SplitPlan,
    "consolidate_hub": HubNote,
}

# The rules of Phase 2 (docs/spec.md §2, §4.3–§4.5), by key phrase: all of them in
# the common prompt every call starts with.
INTEGRATE_PHRASES = {
    "en": [
        "derived_from:: [[",  # provenance
        "[[path.md#section]]",  # the no-anchor rule, with the form it forbids
        "full vault path with the `.md` extension",
        "Never drop a link the old body had",
        "Changing a link's predicate is allowed only when you say so",  # §4.5.5
        "When unsure, CREATE",
        "CORROBORATE",
        "REFINE",
        "CORRECT",
        "JSON object only",
    ],
    "zh": [
        "derived_from:: [[",
        "[[path.md#section]]",
        "完整库内路径",
        "绝不删除旧正文中已有的任何链接",
        "只有明确声明时才能改变链接的谓词",
        "拿不准时选择 CREATE",
        "CORROBORATE",
        "REFINE",
        "CORRECT",
        "只输出一个 JSON 对象",
    ],
}
# ...and restated by every bucket prompt (the issue: provenance, no anchors, keep links).
RESTATED_PHRASES = {
    "en": ["derived_from:: [[", "[[path.md#section]]", "never drop a link the old body had"],
    "zh": ["derived_from:: [[", "[[path.md#section]]", "绝不删除旧正文中已有的任何链接"],
}
EXTRACT_PHRASES = {
    "en": ['{"units": []}', "procedure", "personal", "`wiki` is also the fallback", "Merge facts"],
    "zh": ['{"units": []}', "procedure", "personal", "`wiki` 也是兜底桶", "合并为【一个】unit"],
}
BUCKET_SHAPES = {
    ("en", "procedure"): ["When to use", "Preconditions", "Steps", "Failure modes"],
    ("en", "personal"): ["Rule", "Why", "How to apply"],
    ("en", "wiki"): ["Definition", "Properties", "Relations"],
    ("zh", "procedure"): ["触发条件", "前置条件", "步骤", "失败模式"],
    ("zh", "personal"): ["规则", "原因", "如何应用"],
    ("zh", "wiki"): ["定义", "性质", "关系"],
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_prompt_files_exist_and_the_reply_schema_is_embedded_once(language, name):
    raw = (
        resources.files("reme_workbench.prompts")
        .joinpath(language, f"{name}.md")
        .read_text("utf-8")
    )
    text = system_prompt(name, language)
    assert SCHEMA_PLACEHOLDER not in text
    if name in WITH_SCHEMA:
        assert SCHEMA_PLACEHOLDER in raw
        model = WITH_SCHEMA[name]
        assert json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False) in text
    else:  # a bucket prompt: the schema is the same for every bucket, in the common prompt
        assert text == raw and '"properties"' not in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_common_integrate_prompt_states_every_rule_and_no_bucket_shape(language):
    text = system_prompt(INTEGRATE_COMMON, language)
    missing = [p for p in INTEGRATE_PHRASES[language] if p not in text]
    assert not missing, f"{language}/integrate_common.md lacks {missing}"
    shapes = [s for b in BUCKETS for s in BUCKET_SHAPES[language, b] if f"**{s}**" in text]
    assert not shapes, f"{language}/integrate_common.md holds a bucket's form: {shapes}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("bucket", BUCKETS)
def test_bucket_prompts_restate_the_rules_and_give_their_shape(language, bucket):
    text = system_prompt(f"integrate_{bucket}", language)
    shape = [f"**{s}**" for s in BUCKET_SHAPES[language, bucket]]
    wanted = RESTATED_PHRASES[language] + shape + [f"`{bucket}`"]
    missing = [p for p in wanted if p not in text]
    assert not missing, f"{language}/integrate_{bucket}.md lacks {missing}"
    others = [b for b in BUCKETS if b != bucket and f"`{b}`" in text]
    assert not others, f"{language}/integrate_{bucket}.md names other buckets {others}"


def test_the_three_integrate_prompts_differ():
    for language in LANGUAGES:
        prompts = {system_prompt(name, language) for name in INTEGRATE}
        assert len(prompts) == 3 and system_prompt(INTEGRATE_COMMON, language) not in prompts


@pytest.mark.parametrize("language", LANGUAGES)
def test_extract_prompt_is_a_gate_and_classifier(language):
    text = system_prompt("extract", language)
    missing = [p for p in EXTRACT_PHRASES[language] if p not in text]
    assert not missing, missing


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_chinese_prompts_are_written_in_chinese(name):
    body = system_prompt(name, "zh").split("{", 1)[0]  # the prose before the schema
    assert detect_language(body) == "zh"
    assert detect_language(system_prompt(name, "en").split("{", 1)[0]) == "en"


def test_unknown_prompt_is_a_clear_error():
    with pytest.raises(Exception, match="prompts are extract"):
        system_prompt("integrate_tools", "en")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Deployed payments-api to staging.", "en"),
        ("为梅起草第 40 周周报,确认周报每周一上午发。", "zh"),
        ("部署 payments-api v2.14.0 到 staging 和 prod,金丝雀发布没有问题", "zh"),
        ("Deployed payments-api v2.14.0 to staging and prod; 梅 asked for it.", "en"),
        ("", "en"),
        ("12345 !!!", "en"),
    ],
)
def test_detect_language(text, expected):
    assert detect_language(text) == expected


def test_detect_language_threshold_is_thirty_percent_of_letters():
    assert detect_language("中文字" + "a" * 7) == "zh"  # 3 of 10 letters
    assert detect_language("中文" + "a" * 8) == "en"  # 2 of 10


def test_resolve_language_precedence():
    zh = Material("daily/x.md", "全部是中文的材料内容", language="auto")
    assert resolve_language("auto", zh) == "zh"
    assert resolve_language("en", zh) == "en"  # the brain's setting wins
    assert resolve_language("auto", Material("daily/x.md", "全部是中文", language="en")) == "en"


def _request(bucket="wiki", candidates=(), feedback=None, name="Unit"):
    return IntegrateRequest(
        material=Material("daily/2026-10-05/deploy.md", "MATERIAL TEXT", "2026-10-05", "en"),
        unit=MemoryUnit(name=name, bucket=bucket, summary="UNIT SUMMARY"),
        candidates=tuple(candidates),
        feedback=feedback,
    )


def test_integrate_layout_common_material_bucket_then_unit_last_feedback_after():
    candidate = CandidateNote("digest/wiki/canary.md", "canary", "CANDIDATE DESC", "CANDIDATE BODY")
    request = _request(candidates=[candidate], feedback="FEEDBACK")
    messages = integrate_messages(request, "en")
    assert [m["role"] for m in messages] == ["system", "user", "system", "user"]
    assert messages[0]["content"] == system_prompt(INTEGRATE_COMMON, "en")
    assert messages[1]["content"] == material_block(request.material)
    assert messages[1]["content"].startswith(
        '<material path="daily/2026-10-05/deploy.md" date="2026-10-05">\nMATERIAL TEXT'
    )
    assert messages[2]["content"] == system_prompt("integrate_wiki", "en")
    user = messages[3]["content"]
    order = [user.index(s) for s in ("CANDIDATE BODY", "UNIT SUMMARY", "FEEDBACK")]
    assert order == sorted(order)


def test_no_candidates_says_create():
    assert "must be CREATE" in integrate_messages(_request(), "en")[-1]["content"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_prefix_depends_on_neither_bucket_nor_unit(language):
    candidate = CandidateNote("digest/wiki/x.md", "x", "d", "b")
    heads = {
        json.dumps(integrate_messages(_request(bucket, [candidate] * i, fb, n), language)[:2])
        for i, bucket in enumerate(BUCKETS)
        for fb in (None, "FEEDBACK")
        for n in ("first", "second")
    }
    assert len(heads) == 1


def test_calls_of_one_material_share_the_common_prompt_and_the_material():
    a = integrate_messages(_request(name="first"), "en")
    b = integrate_messages(
        _request(name="second", candidates=[CandidateNote("digest/wiki/x.md", "x", "d", "b")]), "en"
    )
    other_bucket = integrate_messages(_request(bucket="procedure"), "en")
    next_material = integrate_messages(
        IntegrateRequest(
            Material("daily/y.md", "OTHER"), MemoryUnit(name="u", bucket="wiki", summary="s")
        ),
        "en",
    )
    common, material, bucket = (approx_tokens(m["content"]) for m in a[:3])
    shared = shared_prefix_tokens(a, b)
    assert shared >= common + material + bucket  # same bucket: up to the candidates
    assert common + material <= shared_prefix_tokens(a, other_bucket) < shared
    assert common <= shared_prefix_tokens(a, next_material) < common + material
    assert shared_prefix_tokens(None, a) == 0
    assert shared_prefix_tokens(a, a) == approx_tokens(
        "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in a)
    )


def test_extract_messages_put_the_material_first():
    messages = extract_messages(Material("daily/x.md", "TEXT"), "zh")
    assert messages[0]["content"] == system_prompt("extract", "zh")
    assert messages[1]["content"].startswith('<material path="daily/x.md">\nTEXT\n</material>')


def test_order_units_for_cache_groups_buckets_stably():
    units = [
        MemoryUnit(name=n, bucket=b, summary="s")
        for n, b in [
            ("w1", "wiki"),
            ("p1", "procedure"),
            ("me1", "personal"),
            ("w2", "wiki"),
            ("p2", "procedure"),
        ]
    ]
    assert [u.name for u in order_units_for_cache(units)] == ["p1", "p2", "me1", "w1", "w2"]


def test_approx_tokens_counts_cjk_per_character():
    assert approx_tokens("abcdefgh") == 2
    assert approx_tokens("中文字") == 3


def test_importing_the_llm_package_does_not_import_litellm():
    code = "import sys, reme_workbench.llm; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
