"""Token ledger, cassettes and brain configuration (no model involved)."""

from __future__ import annotations

import json
import threading

import pytest

from reme_workbench.brains.factory import brain_from_spec
from reme_workbench.brains.model import LLMBrain
from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.errors import RemeError
from reme_workbench.llm import (
    Cassette,
    Exchange,
    TokenLedger,
    Usage,
    request_hash,
)

REQUEST = {
    "model": "openai/test-model",
    "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U" * 300}],
    "response_format": {"type": "json_object"},
    "temperature": 0.0,
}


def test_ledger_counts_per_action_and_material_across_threads():
    ledger = TokenLedger()

    def work(i):
        for _ in range(100):
            ledger.record("integrate" if i % 2 else "extract", f"daily/{i % 3}.md", Usage(3, 2, 1))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.totals() == Usage(1800, 1200, 600)
    assert ledger.by_action() == {
        "extract": Usage(900, 600, 300),
        "integrate": Usage(900, 600, 300),
    }
    assert ledger.by_material()["daily/0.md"] == Usage(600, 400, 200)
    data = json.loads(ledger.to_json())
    assert data["totals"] == {
        "prompt_tokens": 1800,
        "completion_tokens": 1200,
        "cached_tokens": 600,
        "calls": 600,
    }
    assert data["by_action"]["extract"]["calls"] == 300


def test_request_hash_covers_the_request_but_not_the_endpoint():
    base = request_hash(REQUEST)
    assert request_hash({**REQUEST, "api_key": "sk-x", "api_base": "http://h"}) == base
    for change in (
        {"temperature": 0.5},
        {"model": "openai/other"},
        {"response_format": None},
        {"messages": REQUEST["messages"][:1]},
    ):
        assert request_hash({**REQUEST, **change}) != base


def test_cassette_round_trip_and_order(tmp_path):
    path = tmp_path / "c" / "brain.jsonl"
    rec = Cassette(path, mode="record")
    rec.record(REQUEST, Exchange("first", Usage(10, 2, 4), "test-model"))
    rec.record(REQUEST, Exchange("second", Usage(11, 3, 0), "test-model"))
    assert [p.name for p in path.parent.iterdir()] == ["brain.jsonl"]  # no temp file left
    lines = path.read_text("utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["hash"] == request_hash(REQUEST)

    play = Cassette(path)
    assert play.mode == "replay" and len(play) == 2
    assert play.lookup(REQUEST) == Exchange("first", Usage(10, 2, 4), "test-model")
    assert play.lookup(REQUEST).raw == "second"
    assert play.lookup(REQUEST).raw == "second"  # then the last one repeats


def test_rerecording_replaces_the_old_session(tmp_path):
    path = tmp_path / "c.jsonl"
    Cassette(path, "record").record(REQUEST, Exchange("old", Usage(), "m"))
    Cassette(path, "record").record(REQUEST, Exchange("new", Usage(), "m"))
    assert Cassette(path).lookup(REQUEST).raw == "new" and len(Cassette(path)) == 1


def test_cassette_knows_the_recorded_response_format(tmp_path):
    cassette = Cassette(tmp_path / "c.jsonl", mode="record")
    assert cassette.structured_output("openai/test-model") is None  # nothing recorded
    reply = Exchange("{}", Usage(1, 1), "openai/test-model")
    cassette.record(REQUEST, reply)
    assert cassette.structured_output("openai/test-model") == "json_object"
    assert cassette.structured_output("openai/other") is None
    plain = {**REQUEST, "model": "ollama/plain", "response_format": None}
    cassette.record(plain, reply)
    assert Cassette(cassette.path).structured_output("ollama/plain") == "none"
    # two recording settings for one model: no answer, the brain asks litellm instead
    schema = {**REQUEST, "messages": [{"role": "user", "content": "x"}],
              "response_format": {"type": "json_schema", "json_schema": {}}}
    cassette.record(schema, reply)
    assert cassette.structured_output("openai/test-model") is None


def test_replay_miss_is_loud(tmp_path):
    path = tmp_path / "c.jsonl"
    Cassette(path, "record").record(REQUEST, Exchange("x", Usage(), "m"))
    other = {**REQUEST, "messages": [{"role": "user", "content": "Q" * 500}]}
    with pytest.raises(RemeError) as info:
        Cassette(path).lookup(other)
    message = str(info.value)
    assert request_hash(other) in message and "--record" in message
    assert "Q" * 200 in message and "Q" * 201 not in message


def test_cassette_errors(tmp_path):
    with pytest.raises(RemeError, match="does not exist"):
        Cassette(tmp_path / "missing.jsonl")
    with pytest.raises(RemeError, match="mode"):
        Cassette(tmp_path / "x.jsonl", mode="rewind")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hash": "a", "response": {"raw": "x"}}\nnot json\n', encoding="utf-8")
    with pytest.raises(RemeError, match="line 2"):
        Cassette(bad)


def test_brain_from_spec(monkeypatch):
    with pytest.raises(RemeError, match="built by build_brain"):
        brain_from_spec("offline")
    fake = ScriptedBrain()
    assert brain_from_spec(" offline ", offline_factory=lambda: fake) is fake
    for spec in ("openai/gpt-4o-mini", "litellm:", "gpt"):
        with pytest.raises(RemeError, match="litellm:<model>"):
            brain_from_spec(spec)

    # the environment is the workspace's to read (tests/ops/test_workspace.py), not the factory's
    monkeypatch.setenv("REME_LLM_API_BASE", "http://env:1/v1")
    monkeypatch.setenv("REME_LLM_API_KEY", "sk-env-not-read")
    unkeyed = brain_from_spec("litellm:ollama/qwen2.5")
    assert unkeyed.api_base is None and "sk-env-not-read" not in repr(vars(unkeyed))
    brain = brain_from_spec("litellm:ollama/qwen2.5", language="zh", api_base="http://127.0.0.1:9/v1",
                            api_key="sk-from-env-secret")
    assert isinstance(brain, LLMBrain)
    assert (brain.model, brain.api_base, brain.language) == (
        "ollama/qwen2.5",
        "http://127.0.0.1:9/v1",
        "zh",
    )
    assert brain_from_spec("litellm:x/y", api_base="http://other/v1").api_base == "http://other/v1"
    # the key is used, never shown
    assert "sk-from-env-secret" not in repr(brain)
    holders = [k for k, v in vars(brain).items() if "sk-from-env-secret" in repr(v)]
    assert holders == ["_LLMBrain__api_key"]  # one private attribute, nowhere else


def test_llm_brain_rejects_bad_settings():
    with pytest.raises(RemeError, match="auto, en or zh"):
        LLMBrain("openai/x", language="fr")
    with pytest.raises(RemeError, match="structured_output"):
        LLMBrain("openai/x", structured_output="xml")
    with pytest.raises(RemeError, match="model name"):
        LLMBrain(" ")
