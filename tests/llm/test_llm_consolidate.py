"""The consolidate brain: LLMBrain over real litellm and HTTP, ScriptedBrain, cassettes,
vote_all (docs/spec.md §7.6–§7.8).

The model is a local OpenAI-compatible server (tests/local_http.py) that answers either
from a queue or through a function of the request, and keeps every request it received,
so the tests assert what went over the wire. No network beyond the loopback.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable

import pytest

from reme_workbench.brains import model as litellm_brain
from reme_workbench.brains.model import LLMBrain
from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.errors import RemeError
from reme_workbench.llm import (
    BrainError,
    Cassette,
    TokenLedger,
    Usage,
)
from reme_workbench.llm.consolidate import (
    JUDGES,
    ConsolidateBrain,
    HubRequest,
    MergeRequest,
    NoteView,
    PairRequest,
    SplitRequest,
    vote_all,
)
from reme_workbench.llm.prompts import (
    CONSOLIDATE_PROMPTS,
    HUB_MEMBER_BODY_CHARS,
    hub_messages,
    merge_messages,
    split_messages,
    system_prompt,
    vote_messages,
)
from reme_workbench.llm.schema import (
    HubNote,
    MergedNote,
    PairVote,
    SplitPlan,
    reply_schema,
)
from tests.local_http import LocalJSONServer

KEY = "sk-test-not-real"
MODEL = "openai/test-model"

# -- notes, in English and in Chinese ---------------------------------------------------------

CANARY = NoteView(
    "digest/procedure/canary-before-promote.md",
    "Canary before promote",
    "Run a 10 % canary for 10 minutes before promoting payments-api.",
    "## Steps\n\n1. Deploy to 10 % of the pods.\n2. Watch [[digest/wiki/error-budget.md]] "
    "for 10 minutes.\n\n> [!warning] Never skip the canary on Fridays.\n\n"
    "derived_from:: [[daily/2026-10-05/deploy-payments-api.md]]",
)
CANARY_TWIN = NoteView(
    "digest/procedure/payments-canary.md",
    "Payments canary",
    "payments-api goes to a small canary first.",
    "Send 10 % of traffic to the new version and wait ten minutes.\n\n"
    "is_a:: [[digest/wiki/progressive-delivery.md]]\n"
    "See also [[digest/procedure/canary-before-promote.md]].\n\n"
    "derived_from:: [[daily/2026-10-19/deploy-payments-api.md]]",
)
REPORT = NoteView(
    "digest/personal/weekly-report.md",
    "周报格式",
    "梅希望周报用要点格式,每周一上午发出。",
    "## 规则\n\n周报用要点,每条一行;每周一上午发给梅。参见 [[digest/personal/梅的偏好.md]]。\n\n"
    "derived_from:: [[daily/2026-10-05/weekly-report-w40.md]]",
)
REPORT_TWIN = NoteView(
    "digest/personal/周报要点.md",
    "周报要点",
    "周报写成简短的要点。",
    "梅在手机上读周报,所以要写成简短的要点。\n\n"
    "derived_from:: [[daily/2026-10-12/weekly-report-w41.md]]",
)
MEMBERS_EN = tuple(
    NoteView(
        f"digest/procedure/deploy-{i}.md",
        f"Deploy step {i}",
        f"Step {i} of shipping payments-api.",
        f"Step {i} of the rollout; see [[digest/procedure/deploy-{(i + 1) % 5}.md]].\n\n"
        f"derived_from:: [[daily/2026-10-0{i + 1}/deploy.md]]",
    )
    for i in range(5)
)
MEMBERS_ZH = tuple(
    NoteView(
        f"digest/personal/周报-{i}.md",
        f"周报规则 {i}",
        f"梅对周报的第 {i} 条要求。",
        f"周报的第 {i} 条规则;参见 [[digest/personal/周报-{(i + 1) % 5}.md]]。\n\n"
        f"derived_from:: [[daily/2026-10-1{i}/weekly-report.md]]",
    )
    for i in range(5)
)
NOTES = {"en": (CANARY, CANARY_TWIN, MEMBERS_EN), "zh": (REPORT, REPORT_TWIN, MEMBERS_ZH)}


def request_for(task: str, notes_in: str, **kwargs):
    """One request of `task` on the notes written in `notes_in`; the request's language
    stays "auto" (the brain detects it) unless kwargs set it."""
    a, b, members = NOTES[notes_in]
    if task == "vote":
        return PairRequest(a, b, **kwargs)
    if task == "merge":
        return MergeRequest(a, b, **kwargs)
    if task == "split":
        return SplitRequest(a, tokens=2400, threshold=2000, bucket=a.path.split("/")[1], **kwargs)
    return HubRequest("c7", members, central=tuple(m.path for m in members[:3]), **kwargs)


def good_reply(task: str, language: str) -> dict:
    a, b, members = NOTES[language]
    if task == "vote":
        return {"is_same": True, "confidence": 0.9, "reason": "Both say: 10 % canary, 10 minutes."}
    if task == "merge":
        return {"description": a.description, "body": a.body + "\n\n" + b.body}
    if task == "split":
        return {"overloaded": False, "reason": "One procedure told at length.", "children": []}
    paths = [m.path for m in members]
    return {
        "name": "Shipping payments-api" if language == "en" else "周报规则总览",
        "bucket": "procedure" if language == "en" else "personal",
        "description": "The rollout of payments-api, step by step.",
        "body": "\n".join(f"- [[{p}]]: one step." for p in paths),
        "pillars": paths[:3],
    }


PARSED = {"vote": PairVote, "merge": MergedNote, "split": SplitPlan, "hub": HubNote}


def call(brain: ConsolidateBrain, task: str, request):
    method = {"vote": "vote", "merge": "merge", "split": "plan_split", "hub": "write_hub"}[task]
    return getattr(brain, method)(request)


# -- the local model server -------------------------------------------------------------------


def completion(content: str, *, prompt=120, completion_tokens=30, cached=0) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


class FakeModel:
    """Answers chat completions from a queue, or with `answer(body)` when set."""

    def __init__(self) -> None:
        self.replies: deque[str] = deque()
        self.requests: list[dict] = []
        self.answer: Callable[[dict], str] | None = None
        self._lock = threading.Lock()

        def respond(path, headers, body):
            with self._lock:
                self.requests.append(body)
            if self.answer is not None:
                try:
                    return 200, completion(self.answer(body))
                except Exception as exc:  # e.g. a broken barrier: the client sees a 500
                    return 500, {"error": {"message": repr(exc), "type": "server_error"}}
            with self._lock:
                queued = self.replies.popleft() if self.replies else None
            if queued is None:
                return 500, {"error": {"message": "no canned reply left", "type": "server_error"}}
            return 200, completion(queued)

        self.http = LocalJSONServer(respond)
        self.api_base = self.http.api_base

    def reply(self, content) -> None:
        self.replies.append(content if isinstance(content, str) else json.dumps(content))

    def stop(self) -> None:
        self.http.stop()


@pytest.fixture(scope="module")
def server():
    fake = FakeModel()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fresh(server):
    server.replies.clear()
    server.requests.clear()
    server.answer = None
    yield
    assert not server.replies, "a canned reply was not consumed"


def brain(server, **kwargs) -> LLMBrain:
    kwargs.setdefault("max_retries", 0)
    return LLMBrain(MODEL, api_base=server.api_base, api_key=KEY, **kwargs)


TASKS = ("vote", "merge", "split", "hub")


# -- LLMBrain: prompts, schema, parsing -------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("task", TASKS)
def test_each_method_sends_its_prompt_and_schema_and_parses_the_reply(server, task, language):
    expected = good_reply(task, language)
    server.reply(expected)
    ledger = TokenLedger()
    b = brain(server, structured_output="json_schema", ledger=ledger)
    reply = call(b, task, request_for(task, language))  # language "auto": from the notes
    assert isinstance(reply.value, PARSED[task])
    assert reply.value.model_dump(exclude_none=True) == PARSED[task].model_validate(
        expected
    ).model_dump(exclude_none=True)
    assert reply.attempts == 1 and reply.model == MODEL and reply.usage == Usage(120, 30, 0)
    [sent] = server.requests
    prompt = system_prompt(f"consolidate_{task}", language)
    assert sent["messages"][0] == {"role": "system", "content": prompt}
    schema = reply_schema(PARSED[task])
    assert json.dumps(schema, indent=2, ensure_ascii=False) in prompt  # embedded once
    fmt = sent["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == PARSED[task].__name__
    assert fmt["json_schema"]["schema"] == json.loads(json.dumps(schema))
    # votes are sampled (three independent judges); everything else as dream's calls
    assert sent["temperature"] == (0.7 if task == "vote" else 0.0)
    assert ledger.calls() == {task: 1} and ledger.by_material() == {}


@pytest.mark.parametrize("task", TASKS)
def test_the_brain_language_setting_wins_over_the_notes(server, task):
    server.reply(good_reply(task, "zh"))
    call(brain(server, language="en"), task, request_for(task, "zh"))
    assert server.requests[0]["messages"][0]["content"] == system_prompt(
        f"consolidate_{task}", "en"
    )
    server.reply(good_reply(task, "en"))
    call(brain(server), task, request_for(task, "en", language="zh"))  # the request's hint
    assert server.requests[1]["messages"][0]["content"] == system_prompt(
        f"consolidate_{task}", "zh"
    )


@pytest.mark.parametrize("task", TASKS)
def test_a_fenced_reply_with_trailing_commas_is_repaired(server, task):
    text = json.dumps(good_reply(task, "en"), ensure_ascii=False)
    server.reply("Here you go:\n```json\n" + text[:-1] + ",}\n```\nHope that helps.")
    reply = call(brain(server), task, request_for(task, "en"))
    assert reply.attempts == 1 and reply.raw.startswith("Here you go:")
    assert len(server.requests) == 1


def _hub_with(pillars):
    return {**good_reply("hub", "en"), "pillars": pillars}


INVALID = [
    ("vote", {"is_same": True, "confidence": 1.7, "reason": "sure"}, "confidence"),
    ("vote", {"is_same": "yes", "confidence": 0.9, "reason": "sure"}, "is_same"),
    (
        "hub",
        _hub_with(
            [
                "digest/procedure/deploy-0.md",
                "digest/procedure/deploy-1.md",
                "digest/wiki/not-a-member.md",
            ]
        ),
        "not members of the community",
    ),
    (
        "hub",
        _hub_with(
            [
                "digest/procedure/deploy-0.md",
                "digest/procedure/deploy-1.md",
                "digest/../../etc/passwd.md",
            ]
        ),
        "without '..'",
    ),
    ("hub", {**good_reply("hub", "en"), "bucket": "tools"}, "bucket"),
    ("merge", {"description": "d", "body": "x" * 1_000_000}, "body"),
    (
        "split",
        {
            "overloaded": True,
            "reason": "two topics",
            "parent_body": "overview",
            "children": [{"name": "only one", "description": "d", "body": "b"}],
        },
        "at least 2 children",
    ),
]


@pytest.mark.parametrize(("task", "bad", "why"), INVALID, ids=[f"{t}-{w}" for t, _, w in INVALID])
def test_an_invalid_reply_is_retried_once_with_the_error(server, task, bad, why):
    server.reply(bad)
    server.reply(good_reply(task, "en"))
    reply = call(brain(server), task, request_for(task, "en"))
    assert reply.attempts == 2 and reply.usage == Usage(240, 60, 0)
    first, second = server.requests
    assert second["messages"][: len(first["messages"])] == first["messages"]  # same prefix
    assert second["messages"][-2]["role"] == "assistant"
    assert second["messages"][-1]["role"] == "user" and why in second["messages"][-1]["content"]
    assert second["temperature"] == first["temperature"]


@pytest.mark.parametrize(("task", "bad", "why"), INVALID, ids=[f"{t}-{w}" for t, _, w in INVALID])
def test_invalid_twice_raises_brain_error_naming_the_model(server, task, bad, why):
    server.reply(bad)
    server.reply(bad)
    with pytest.raises(BrainError) as info:
        call(brain(server), task, request_for(task, "en"))
    message = str(info.value)
    assert MODEL in message and why in message and KEY not in message
    assert len(message) < 5000  # a 1 MB reply is quoted truncated
    assert info.value.model == MODEL and len(server.requests) == 2


def test_feedback_goes_last_for_the_retry_of_a_mechanical_check(server):
    for task in ("merge", "split", "hub"):
        server.reply(good_reply(task, "en"))
        call(brain(server), task, request_for(task, "en", feedback="drops [[digest/wiki/x.md]]"))
    for sent in server.requests:
        last = sent["messages"][-1]["content"]
        assert last.rstrip().endswith("drops [[digest/wiki/x.md]]\n</feedback>")


def test_votes_use_the_vote_temperature_and_refuse_zero(server):
    server.reply(good_reply("vote", "en"))
    server.reply(good_reply("merge", "en"))
    b = brain(server, temperature=0.1, vote_temperature=0.9)
    b.vote(request_for("vote", "en"))
    b.merge(request_for("merge", "en"))
    assert [r["temperature"] for r in server.requests] == [0.9, 0.1]
    with pytest.raises(RemeError, match="vote_temperature must be above 0"):
        LLMBrain(MODEL, vote_temperature=0)


# -- vote_all ---------------------------------------------------------------------------------

JUDGE_LINE = re.compile(r"judge (\d) of 3")


def judge_of(body: dict) -> int:
    return int(JUDGE_LINE.search(body["messages"][-1]["content"]).group(1)) - 1


def test_vote_all_runs_the_three_judges_at_once_and_keeps_their_order(server):
    # Each request waits at a barrier until all three are inside the server: run one
    # after another, the first would wait alone, the barrier would break (timeout) and
    # the server would answer 500.
    barrier = threading.Barrier(JUDGES, timeout=30)

    def answer(body):
        judge = judge_of(body)
        barrier.wait()
        return json.dumps(
            {"is_same": judge != 1, "confidence": 0.8 + judge / 10, "reason": f"judge {judge}"}
        )

    server.answer = answer
    votes = vote_all(brain(server), CANARY, CANARY_TWIN, a_links=("[[digest/wiki/x.md]]",))
    assert [v.value.reason for v in votes] == ["judge 0", "judge 1", "judge 2"]
    assert [v.value.is_same for v in votes] == [True, False, True]
    assert sorted(judge_of(r) for r in server.requests) == [0, 1, 2]
    assert all(r["temperature"] == 0.7 for r in server.requests)
    # the three requests differ only in the judge's line: one shared prefix
    heads = {json.dumps(r["messages"][:-1]) for r in server.requests}
    users = {r["messages"][-1]["content"].rsplit("\n\n", 1)[0] for r in server.requests}
    assert len(heads) == 1 and len(users) == 1 and "[[digest/wiki/x.md]]" in users.pop()


def test_vote_all_in_turn_and_a_failing_judge():
    scripted = ScriptedBrain()
    for judge in range(JUDGES):
        scripted.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": f"r{judge}"})
    votes = vote_all(scripted, CANARY, CANARY_TWIN, language="en", parallel=False)
    assert [v.value.reason for v in votes] == ["r0", "r1", "r2"]
    assert [r.judge for _, r in scripted.history] == [0, 1, 2]
    assert {r.language for _, r in scripted.history} == {"en"}
    # judge 1 has no reply (nor does its retry): its error surfaces, after the others ran
    scripted = ScriptedBrain()
    scripted.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": "a"}, judge=0)
    scripted.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": "c"}, judge=2)
    with pytest.raises(BrainError, match="no vote reply left"):
        vote_all(scripted, CANARY, CANARY_TWIN)
    assert scripted.pending["vote"] == 0


# -- ScriptedBrain ----------------------------------------------------------------------------


def test_scripted_brain_is_a_consolidate_brain_with_queues_and_history():
    scripted = ScriptedBrain()
    assert isinstance(scripted, ConsolidateBrain)
    scripted.enqueue_vote(PairVote(is_same=False, confidence=0.3, reason="two services"))
    scripted.enqueue_merge(good_reply("merge", "en")).enqueue_split(
        SplitPlan(overloaded=False, reason="one topic")
    ).enqueue_hub(good_reply("hub", "en"))
    assert scripted.pending == {
        "extract": 0,
        "integrate": 0,
        "vote": 1,
        "merge": 1,
        "split": 1,
        "hub": 1,
    }
    replies = [call(scripted, task, request_for(task, "en")) for task in TASKS]
    assert [type(r.value) for r in replies] == [PairVote, MergedNote, SplitPlan, HubNote]
    assert replies[0].value.confidence == 0.3 and all(r.attempts == 1 for r in replies)
    assert [m for m, _ in scripted.history] == list(TASKS)
    assert scripted.history[2][1] == request_for("split", "en")
    assert not any(scripted.pending.values())
    with pytest.raises(BrainError, match=r"no merge reply left.*enqueue_merge"):
        scripted.merge(request_for("merge", "en"))


def test_scripted_raw_replies_take_the_real_path():
    scripted = ScriptedBrain(model="my-fake")
    scripted.enqueue_vote('```json\n{"is_same": true, "confidence": 1, "reason": "same",}\n```')
    assert scripted.vote(request_for("vote", "en")).value.confidence == 1.0  # repaired
    # a pillar outside the community is refused at call time, as a model's would be
    stranger = _hub_with(
        ["digest/procedure/deploy-0.md", "digest/procedure/deploy-1.md", "digest/wiki/elsewhere.md"]
    )
    scripted.enqueue_hub(stranger).enqueue_hub(good_reply("hub", "en"))
    assert scripted.write_hub(request_for("hub", "en")).attempts == 2
    scripted.enqueue_split('{"overloaded": true, "reason": "r"}').enqueue_split("no json")
    with pytest.raises(BrainError) as info:
        scripted.plan_split(request_for("split", "en"))
    assert "'my-fake'" in str(info.value) and info.value.raw == "no json"
    with pytest.raises(ValueError):
        scripted.enqueue_vote({"is_same": True, "confidence": 2.0, "reason": "r"})
    with pytest.raises(TypeError, match="enqueue_merge takes a MergedNote"):
        scripted.enqueue_merge(42)  # type: ignore[arg-type]


def test_scripted_votes_reserved_per_judge_are_deterministic_in_parallel():
    scripted = ScriptedBrain()
    for judge in (2, 0, 1):
        scripted.enqueue_vote(
            {"is_same": judge == 0, "confidence": 0.5, "reason": f"judge {judge}"}, judge=judge
        )
    votes = vote_all(scripted, CANARY, CANARY_TWIN)  # threads
    assert [v.value.reason for v in votes] == ["judge 0", "judge 1", "judge 2"]
    assert sorted(r.judge for _, r in scripted.history) == [0, 1, 2]
    assert scripted.pending["vote"] == 0


def test_scripted_brain_is_safe_under_many_threads():
    scripted = ScriptedBrain()
    pairs = 40
    for i in range(pairs * JUDGES):
        scripted.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": f"v{i}"})
    results: list = []
    threads = [
        threading.Thread(target=lambda: results.extend(vote_all(scripted, CANARY, CANARY_TWIN)))
        for _ in range(pairs)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.value.reason for r in results) == sorted(f"v{i}" for i in range(pairs * 3))
    assert len(scripted.history) == pairs * JUDGES and scripted.pending["vote"] == 0


# -- cassettes --------------------------------------------------------------------------------


def test_record_then_replay_the_consolidate_calls(tmp_path, monkeypatch):
    local = FakeModel()  # a server of its own, so it can be stopped mid-test
    local.answer = lambda body: (
        json.dumps({"is_same": True, "confidence": 0.85, "reason": f"judge {judge_of(body)}"})
        if "judge" in body["messages"][-1]["content"]
        else local.replies.popleft()
    )
    for task in ("merge", "split", "hub"):
        local.reply(good_reply(task, "en"))
    path = tmp_path / "consolidate.jsonl"
    recorder = LLMBrain(
        MODEL,
        api_base=local.api_base,
        api_key=KEY,
        max_retries=0,
        cassette=Cassette(path, mode="record"),
    )
    recorded = [
        *vote_all(recorder, CANARY, CANARY_TWIN),
        *(call(recorder, task, request_for(task, "en")) for task in ("merge", "split", "hub")),
    ]
    local.stop()
    assert len(local.requests) == 6
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert sorted(e["action"] for e in lines) == ["hub", "merge", "split", "vote", "vote", "vote"]
    assert len({e["hash"] for e in lines}) == 6  # each judge has its own entry
    assert KEY not in path.read_text("utf-8")

    def no_litellm():
        raise AssertionError("a replay must not import litellm")

    monkeypatch.setattr(litellm_brain, "import_litellm", no_litellm)
    player = LLMBrain(MODEL, api_base="http://127.0.0.1:9/v1", cassette=Cassette(path))
    replayed = [
        *vote_all(player, CANARY, CANARY_TWIN),
        *(call(player, task, request_for(task, "en")) for task in ("merge", "split", "hub")),
    ]
    assert replayed == recorded
    assert [r.value.reason for r in replayed[:3]] == ["judge 0", "judge 1", "judge 2"]

    # a request never recorded fails loudly, naming the call: another vote temperature...
    other = LLMBrain(MODEL, cassette=Cassette(path), vote_temperature=0.5)
    with pytest.raises(RemeError, match=r"no recorded reply for request \w+ \(vote call"):
        other.vote(request_for("vote", "en"))
    # ...or a merge retried with feedback
    with pytest.raises(RemeError, match=r"merge call.*--record"):
        player.merge(request_for("merge", "en", feedback="drops a link"))


# -- what the prompts and messages say --------------------------------------------------------

RULES = {
    ("consolidate_vote", "en"): ["0.8", "When unsure", "Judge by the bodies", "JSON object only"],
    ("consolidate_vote", "zh"): ["0.8", "拿不准时", "依据正文判断", "只输出一个 JSON 对象"],
    ("consolidate_merge", "en"): [
        "Merge, do not refine",
        "Nothing reworded",
        "derived_from:: [[",
        "[[path.md#section]]",
        "Every link of both notes must be in your body",
        "Every value either note states must be in your body as written",
    ],
    ("consolidate_merge", "zh"): [
        "只合并,不改写",
        "不改写",
        "derived_from:: [[",
        "[[path.md#section]]",
        "两篇笔记的每一个链接连同它的谓词都必须出现在你的正文里",
        "两篇笔记里出现的每一个值都必须原样出现在你的正文里",
    ],
    ("consolidate_split", "en"): [
        "When unsure, it is not overloaded",
        "links each child",
        "part_of:: [[<parent path>]]",
        "carries the parent's provenance",
        "must survive in the parent or in at least one child",
        "[[path.md#section]]",
        "digest/wiki/canary-rollout-checks.md",
    ],
    ("consolidate_split", "zh"): [
        "拿不准时,就是不过载",
        "链接每一篇子笔记",
        "part_of:: [[<父笔记路径>]]",
        "都带上父笔记的溯源",
        "都必须保留在父笔记或至少一篇子笔记中",
        "[[path.md#section]]",
        "digest/wiki/灰度-发布检查.md",
    ],
    ("consolidate_hub", "en"): [
        "Overview",
        "3 to 5",
        "one sentence",
        "What stays in the members",
        "Under 1,500 tokens",
        "Pillars must be member paths",
        "60 %",
        "derived_from::",
    ],
    ("consolidate_hub", "zh"): [
        "概览",
        "3 到 5",
        "一句话",
        "细节留在成员中",
        "少于 1,500 个 token",
        "支柱必须是成员路径",
        "60 %",
        "derived_from::",
    ],
}


@pytest.mark.parametrize(("name", "language"), sorted(RULES))
def test_the_prompts_state_the_rules_the_checks_enforce(name, language):
    text = system_prompt(name, language)
    missing = [phrase for phrase in RULES[name, language] if phrase not in text]
    assert not missing, f"{language}/{name}.md lacks {missing}"
    assert name in CONSOLIDATE_PROMPTS


def test_merge_lists_every_link_of_both_notes_but_those_between_them():
    user = merge_messages(request_for("merge", "en"), "en")[1]["content"]
    assert user.index('role="winner"') < user.index('role="loser"') < user.index("must contain")
    listed = user.split("must contain", 1)[1].split("\n\nMerge the loser", 1)[0]
    assert re.findall(r"^- (.*)$", listed, re.M) == [
        "derived_from:: [[daily/2026-10-05/deploy-payments-api.md]]",
        "derived_from:: [[daily/2026-10-19/deploy-payments-api.md]]",
        "[[digest/wiki/error-budget.md]]",
        "is_a:: [[digest/wiki/progressive-delivery.md]]",
    ]  # the twin's link to the winner would be a self-link after the merge


def test_split_lists_the_links_e2_requires_and_the_provenance():
    user = split_messages(request_for("split", "en"), "en")[1]["content"]
    assert 'tokens="2400" threshold="2000"' in user
    assert "`digest/procedure/<slug>.md`" in user and CANARY.path in user
    links = user.split("must keep between them", 1)[1].split("Provenance lines", 1)[0]
    assert "[[digest/wiki/error-budget.md]]" in links and "derived_from:: [[daily/" in links
    provenance = user.split("Provenance lines", 1)[1]
    assert "derived_from:: [[daily/2026-10-05/deploy-payments-api.md]]" in provenance
    assert "error-budget" not in provenance


def test_hub_lists_candidates_members_paths_and_provenance_and_trims_long_bodies():
    long_line = "A detail that stays in the member. " * 20
    big = NoteView(
        "digest/wiki/big.md", "Big", "d", (long_line + "\n") * 10 + "[[digest/wiki/tail-link.md]]"
    )
    request = HubRequest("c9", (*MEMBERS_EN, big), central=(MEMBERS_EN[2].path, "digest/x.md"))
    user = hub_messages(request, "en")[1]["content"]
    central = user.split("pillar candidates", 1)[1].split("## Members", 1)[0]
    assert MEMBERS_EN[2].path in central and "digest/x.md" not in central  # members only
    allowed = user.split("chosen from these member paths:", 1)[1].split("\n\n", 1)[0]
    assert sorted(re.findall(r"^- (.*)$", allowed, re.M)) == sorted(request.member_paths)
    assert all(f"derived_from:: [[daily/2026-10-0{i + 1}/deploy.md]]" in user for i in range(5))
    shown = user.split('<note path="digest/wiki/big.md">', 1)[1].split("</note>", 1)[0]
    assert "tail-link" not in shown and shown.rstrip().endswith("…\n</body>")
    assert len(shown) <= HUB_MEMBER_BODY_CHARS + 200
    assert "[[digest/wiki/tail-link.md]]" not in user  # no link shown cut in half


def test_the_judges_line_is_last_and_numbered_from_one():
    for language in ("en", "zh"):
        messages = [vote_messages(PairRequest(CANARY, REPORT, j), language) for j in range(3)]
        assert messages[0][:1] == messages[2][:1]
        lasts = [m[1]["content"].rsplit("\n\n", 1)[1] for m in messages]
        assert len(set(lasts)) == 3 and all("3" in line for line in lasts)
        assert "1" in lasts[0] and "2" in lasts[1]
