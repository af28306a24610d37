"""LLMBrain end to end: real litellm, real HTTP, a local OpenAI-compatible server.

The server (http.server in a thread on 127.0.0.1) answers POST /v1/chat/completions
with canned replies in order and keeps every request it received, so the tests can
assert what actually went over the wire. No network beyond the loopback.
"""

from __future__ import annotations

import json
from collections import deque

import pytest

from reme_workbench.brains import model as litellm_brain
from reme_workbench.brains.factory import brain_from_spec
from reme_workbench.brains.model import LLMBrain
from reme_workbench.errors import RemeError
from reme_workbench.llm import (
    BrainError,
    CandidateNote,
    Cassette,
    IntegrateDecision,
    IntegrateRequest,
    Material,
    MemoryUnit,
    TokenLedger,
    Usage,
    shared_prefix_tokens,
)
from reme_workbench.llm.prompts import system_prompt
from tests.local_http import LocalJSONServer

KEY = "sk-test-not-real"
MODEL = "openai/test-model"
MATERIAL = Material(
    "daily/2026-10-05/deploy-payments-api.md",
    "Shipped payments-api v2.14.0. Canary at 10 % for 10 minutes, then promoted.\n"
    "Mei wants end-of-task summaries as short bullets.",
    "2026-10-05",
    "auto",
)
BODY = "Watch the canary.\n\nderived_from:: [[daily/2026-10-05/deploy-payments-api.md]]"
CREATE = {
    "action": "CREATE",
    "name": "Canary first",
    "description": "Canary before promote.",
    "body": BODY,
    "rationale": "new",
}
UNITS = {
    "units": [
        {
            "name": "Canary before promote",
            "bucket": "procedure",
            "summary": "10 % canary, 10 minutes.",
        },
        {"name": "Bullet summaries", "bucket": "personal", "summary": "Mei reads on her phone."},
    ]
}


class FakeOpenAI:
    """Canned chat completions, served in order; remembers every request."""

    def __init__(self) -> None:
        self.replies: deque[tuple[int, dict]] = deque()
        self.requests: list[dict] = []

        def respond(path, headers, body):
            self.requests.append({"path": path, "auth": headers.get("Authorization"), "body": body})
            if path in ("/v1/chat/completions", "/chat/completions") and self.replies:
                return self.replies.popleft()
            return 500, {"error": {"message": "no canned reply left", "type": "server_error"}}

        self.http = LocalJSONServer(respond)
        self.api_base = self.http.api_base

    def reply(self, content, *, prompt=120, completion=30, cached=0) -> None:
        if not isinstance(content, str):
            content = json.dumps(content)
        self.replies.append(
            (
                200,
                {
                    "id": f"chatcmpl-{len(self.replies)}",
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
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                        "prompt_tokens_details": {"cached_tokens": cached},
                    },
                },
            )
        )

    def error(self, status, message) -> None:
        self.replies.append(
            (status, {"error": {"message": message, "type": "invalid_request_error"}})
        )

    def stop(self) -> None:
        self.http.stop()


@pytest.fixture(scope="module")
def server():
    fake = FakeOpenAI()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fresh(server):
    server.replies.clear()
    server.requests.clear()
    yield
    assert not server.replies, "a canned reply was not consumed"


def brain(server, **kwargs) -> LLMBrain:
    kwargs.setdefault("max_retries", 0)
    return LLMBrain(MODEL, api_base=server.api_base, api_key=KEY, **kwargs)


def integrate_request(bucket, name="Canary first", candidates=()):
    return IntegrateRequest(
        MATERIAL, MemoryUnit(name=name, bucket=bucket, summary="s"), tuple(candidates)
    )


def test_extract_repairs_fenced_json_and_counts_tokens(server):
    server.reply(
        "Sure!\n```json\n" + json.dumps(UNITS)[:-2] + "],}\n```\nAnything else?",
        prompt=400,
        completion=50,
        cached=256,
    )
    ledger = TokenLedger()
    reply = brain(server, ledger=ledger).extract(MATERIAL)
    assert [u.bucket for u in reply.value.units] == ["procedure", "personal"]
    assert reply.attempts == 1 and reply.model == MODEL and reply.raw.startswith("Sure!")
    assert reply.usage == Usage(400, 50, 256)
    [sent] = server.requests
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == f"Bearer {KEY}"
    body = sent["body"]
    assert body["model"] == "test-model" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}  # litellm: no schema support known
    assert body["messages"][0] == {"role": "system", "content": system_prompt("extract", "en")}
    assert body["messages"][1]["content"].startswith(f'<material path="{MATERIAL.path}"')
    assert ledger.by_action() == {"extract": Usage(400, 50, 256)}
    assert ledger.by_material() == {MATERIAL.path: Usage(400, 50, 256)}


def test_integrate_sends_common_prompt_material_then_bucket_prompt(server):
    ledger = TokenLedger()
    b = brain(server, ledger=ledger)
    candidate = CandidateNote(
        "digest/wiki/canary.md", "canary", "What a canary is.", "CANDIDATE BODY"
    )
    buckets = ["procedure", "procedure", "personal", "wiki"]
    for i, bucket in enumerate(buckets):
        server.reply(
            {**CREATE, "name": f"note {i}"}, prompt=1000, completion=100, cached=500 * (i % 2)
        )
        reply = b.integrate(integrate_request(bucket, name=f"UNIT-{i}", candidates=[candidate]))
        assert reply.value.action == "CREATE" and reply.value.name == f"note {i}"
    sent = [r["body"]["messages"] for r in server.requests]
    for messages, bucket in zip(sent, buckets, strict=True):
        # the second system message really reaches an OpenAI-compatible server
        assert [m["role"] for m in messages] == ["system", "user", "system", "user"]
        assert messages[0]["content"] == system_prompt("integrate_common", "en")
        assert messages[1]["content"].startswith(f'<material path="{MATERIAL.path}"')
        assert "Canary at 10 %" in messages[1]["content"]
        assert messages[2]["content"] == system_prompt(f"integrate_{bucket}", "en")
        last = messages[3]["content"]
        assert last.index("CANDIDATE BODY") < last.index("UNIT-")
    # common prompt + material are byte-identical across buckets; the bucket prompt too
    # when the bucket stays
    assert all(m[:2] == sent[0][:2] for m in sent) and sent[0][:3] == sent[1][:3]
    assert shared_prefix_tokens(sent[0], sent[1]) > shared_prefix_tokens(sent[1], sent[2])
    assert shared_prefix_tokens(sent[1], sent[2]) > shared_prefix_tokens(sent[0][:1], sent[0])
    assert ledger.totals() == Usage(4000, 400, 1000)
    assert ledger.calls() == {"integrate": 4}


def test_single_system_layout_for_strict_chat_templates(server):
    """[llm] single_system = true: one leading system message (common + bucket) and one
    user turn with the material first and the unit last."""
    b = brain(server, single_system=True)
    for bucket in ("procedure", "procedure", "wiki"):
        server.reply(CREATE)
        b.integrate(integrate_request(bucket, name=f"UNIT-{bucket}"))
    sent = [r["body"]["messages"] for r in server.requests]
    for messages, bucket in zip(sent, ("procedure", "procedure", "wiki"), strict=True):
        assert [m["role"] for m in messages] == ["system", "user"]
        system = messages[0]["content"]
        assert system.startswith(system_prompt("integrate_common", "en"))
        assert system.endswith(system_prompt(f"integrate_{bucket}", "en"))
        user = messages[1]["content"]
        assert user.startswith(f'<material path="{MATERIAL.path}"') and user.index("Canary at 10 %") < user.index("UNIT-")
    assert sent[0][0] == sent[1][0] != sent[2][0]  # same bucket: the same prefix


def test_chinese_material_gets_chinese_prompts(server):
    server.reply({"units": []})
    zh = Material(
        "daily/2026-10-05/weekly-report-w40.md",
        "为梅起草第 40 周周报,确认周报每周一上午发、用要点格式。",
    )
    assert brain(server).extract(zh).value.units == []
    assert server.requests[0]["body"]["messages"][0]["content"] == system_prompt("extract", "zh")


def test_invalid_reply_is_retried_once_with_the_validation_error(server):
    bad = {
        **CREATE,
        "action": "UPDATE",
        "flavor": "REFINE",
        "target_path": "digest/wiki/invented.md",
    }
    server.reply(bad, prompt=100, completion=40)
    server.reply(CREATE, prompt=180, completion=40, cached=100)
    ledger = TokenLedger()
    reply = brain(server, ledger=ledger).integrate(
        integrate_request(
            "wiki", candidates=[CandidateNote("digest/wiki/canary.md", "c", "d", "b")]
        )
    )
    assert reply.attempts == 2 and reply.value.action == "CREATE"
    assert reply.usage == Usage(280, 80, 100) and ledger.calls() == {"integrate": 2}
    first, second = (r["body"]["messages"] for r in server.requests)
    assert second[: len(first)] == first  # the retry extends the same conversation
    assert second[-2] == {"role": "assistant", "content": json.dumps(bad)}
    assert second[-1]["role"] == "user"
    assert "not one of the candidates" in second[-1]["content"]
    assert "digest/wiki/invented.md" in second[-1]["content"]


def test_broken_twice_fails_naming_the_model_and_quoting_the_reply(server):
    server.reply("I think you should create a note about canaries {")
    server.reply("Sorry! " + "blah " * 1000)
    with pytest.raises(BrainError) as info:
        brain(server).extract(MATERIAL)
    message = str(info.value)
    assert MODEL in message and "Sorry! blah" in message and "[truncated]" in message
    assert len(message) < 3000 and KEY not in message
    assert info.value.model == MODEL and info.value.raw.startswith("Sorry!")
    assert len(server.requests) == 2


def test_http_errors_are_wrapped_and_the_key_is_scrubbed(server):
    server.error(401, f"Incorrect API key provided: {KEY}. Find your key at ...")
    with pytest.raises(BrainError) as info:
        brain(server).extract(MATERIAL)
    message = str(info.value)
    assert MODEL in message and server.api_base in message and "REME_LLM_API_KEY" in message
    assert KEY not in message
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_json_schema_is_sent_when_chosen(server):
    server.reply(UNITS)
    brain(server, structured_output="json_schema").extract(MATERIAL)
    fmt = server.requests[0]["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "ExtractedUnits"
    assert "MemoryUnit" in json.dumps(fmt["json_schema"]["schema"])
    # litellm knows gpt-4o-mini supports schemas (local cost map, no network)
    assert (
        LLMBrain("openai/gpt-4o-mini").response_format(IntegrateDecision)["type"] == "json_schema"
    )
    assert brain(server, structured_output="none").response_format(IntegrateDecision) is None


def test_record_then_replay_without_the_server(tmp_path, monkeypatch):
    local = FakeOpenAI()  # a server of its own, so it can be stopped mid-test
    path = tmp_path / "cassettes" / "dream.jsonl"
    local.reply(UNITS, prompt=300, completion=60, cached=128)
    local.reply("```json\n" + json.dumps(CREATE) + "\n```", prompt=500, completion=90)
    recorder = brain_from_spec(
        f"litellm:{MODEL}",
        api_base=local.api_base,
        api_key=KEY,
        cassette=Cassette(path, mode="record"),
    )
    recorded = [recorder.extract(MATERIAL), recorder.integrate(integrate_request("procedure"))]
    local.stop()
    assert len(local.requests) == 2
    text = path.read_text("utf-8")
    assert KEY not in text and local.api_base not in text

    def no_litellm():
        raise AssertionError("a replay must not import litellm")

    # structured_output "auto": the cassette, not litellm, says what was sent
    monkeypatch.setattr(litellm_brain, "import_litellm", no_litellm)
    ledger = TokenLedger()
    player = LLMBrain(
        MODEL,
        api_base="http://127.0.0.1:9/v1",
        api_key="sk-other",
        cassette=Cassette(path),
        ledger=ledger,
    )
    replayed = [player.extract(MATERIAL), player.integrate(integrate_request("procedure"))]
    assert replayed == recorded
    assert ledger.totals() == Usage(800, 150, 128)

    with pytest.raises(RemeError) as info:
        player.integrate(integrate_request("wiki", name="A unit never recorded"))
    message = str(info.value)
    assert "--record" in message and "no recorded reply" in message
    # the start of the last user message: (no) candidates, then the unit
    assert "No candidate notes were recalled" in message and "A unit never recorded" in message
