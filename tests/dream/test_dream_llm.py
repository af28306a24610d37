"""Dream end to end through the CLI with a real model client: real litellm, real HTTP.

A local OpenAI-compatible server (http.server on 127.0.0.1, a thread of this process)
answers chat completions by reading the request: the extract prompt gets a units JSON
for the material it names; an integrate request — common prompt, material, the bucket's
prompt, then candidates and unit — gets a decision for the unit it names, with the
provenance line of the material path found in the material message. Three
replies are awkward on purpose: one fenced JSON with a trailing comma (repaired, no
second request), one body without provenance (the pipeline retries with feedback,
which the server must then see), and one REFINE (held for review).

One module-level run does the expensive part once, in this order:

A. `dream --record` through click's CliRunner, JSON output, server up;
B. the same dream as `python -m reme_workbench ... --text` in a subprocess, server up,
   on a fresh copy of the vault (the printed per-unit lines and token totals);
C. the server is stopped; `dream --replay` on a fresh copy must give the same outcomes;
D. `dream --replay` with one exchange deleted from the cassette must fail with exit
   code 1 and say to re-record.

The API key reaches the server only through REME_LLM_API_KEY, and must appear in no
output, proposal, note or cassette.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.llm.prompts import system_prompt
from reme_workbench.vault.layout import BUCKETS
from tests.local_http import LocalJSONServer

KEY = "sk-dream-e2e-0123456789abcdef"  # only ever passed through REME_LLM_API_KEY
MODEL = "openai/test-model"
LOG1 = "daily/2026-10-05/deploy-payments-api.md"
LOG2 = "daily/2026-10-13/deploy-again.md"
PROCEDURE = "digest/procedure/deploy-payments-api-with-a-canary.md"
PERSONAL = "digest/personal/bullet-summaries-for-mei.md"
WIKI = "digest/wiki/canary-release.md"
WIKI2 = "digest/wiki/error-budget.md"

VAULT_FILES = {
    LOG1: "---\nname: deploy-payments-api\ndescription: Shipped payments-api v2.14.0.\n"
    "date: 2026-10-05\n---\n## Task\n\nShip payments-api v2.14.0 to staging, then prod.\n\n"
    "## What I did\n\n1. Rolled out to staging and ran `make smoke`.\n"
    "2. Prod canary at 10 % for 10 minutes, error rate flat, then promoted.\n\n"
    "## Notes\n\nMei wants end-of-task summaries as short bullets; she reads them on her phone.\n",
    LOG2: "---\nname: deploy-again\ndescription: Shipped payments-api v2.15.0.\n---\n"
    "Deployed payments-api v2.15.0. The team now runs the prod canary for 15 minutes, "
    "because a slow leak showed up at minute 12 last week. The error budget for the "
    "quarter is 0.1 % of requests.\n",
}

# What the "model" extracts, per material; deliberately not in bucket order.
UNITS = {
    LOG1: [
        {
            "name": "Canary release",
            "bucket": "wiki",
            "summary": "A canary sends 10 % of prod traffic to the new version before promotion.",
        },
        {
            "name": "Deploy payments-api with a canary",
            "bucket": "procedure",
            "summary": "Staging rollout, smoke tests, then a 10 % prod canary for 10 minutes, then promote.",
        },
        {
            "name": "Bullet summaries for Mei",
            "bucket": "personal",
            "summary": "Mei wants end-of-task summaries as short bullets; she reads them on her phone.",
        },
    ],
    LOG2: [
        {
            "name": "Error budget",
            "bucket": "wiki",
            "summary": "The payments error budget is 0.1 % of requests per quarter.",
        },
        {
            "name": "Deploy payments-api with a canary",
            "bucket": "procedure",
            "summary": "The prod canary now runs 15 minutes before promotion.",
        },
    ],
}

# (material, unit name) -> expected outcome of the first dream
EXPECTED = [
    (LOG1, "Deploy payments-api with a canary", "procedure", "CREATE", None, PROCEDURE, "applied"),
    (LOG1, "Bullet summaries for Mei", "personal", "CREATE", None, PERSONAL, "applied"),
    (LOG1, "Canary release", "wiki", "CREATE", None, WIKI, "applied"),
    (
        LOG2,
        "Deploy payments-api with a canary",
        "procedure",
        "UPDATE",
        "REFINE",
        PROCEDURE,
        "pending",
    ),
    (LOG2, "Error budget", "wiki", "CREATE", None, WIKI2, "applied"),
]
OUTCOME_KEYS = ("material", "unit", "bucket", "action", "flavor", "target_path", "state")

_MATERIAL = re.compile(r'<material path="([^"]+)"')
_UNIT = re.compile(r'<unit bucket="(\w+)">\nname: (.*)\n')


def _candidate_body(user: str, path: str) -> str | None:
    m = re.search(rf'<candidate path="{re.escape(path)}">\n.*?<body>\n(.*?)\n</body>', user, re.S)
    return m.group(1) if m else None


@dataclass
class Served:
    kind: str  # "extract" or "integrate_<bucket>" (the bucket prompt it was sent)
    auth: str | None
    messages: list
    reply: str
    usage: dict


@dataclass
class DreamServer:
    """An OpenAI-compatible chat-completions endpoint that answers by reading the prompt."""

    log: list[Served] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.systems = {system_prompt("extract", "en"): "extract"} | {
            system_prompt(f"integrate_{b}", "en"): f"integrate_{b}" for b in BUCKETS
        }
        self.common = system_prompt("integrate_common", "en")

        def respond(path, headers, body):
            try:
                return 200, self.answer(path, headers, body)
            except Exception as exc:  # the test fails on self.errors
                self.errors.append(f"{type(exc).__name__}: {exc}")
                return 500, {"error": {"message": str(exc), "type": "server_error"}}

        self.http = LocalJSONServer(respond)
        self.api_base = self.http.api_base

    def stop(self) -> None:
        self.http.stop()

    # -- the "model" ---------------------------------------------------------------------
    def answer(self, path: str, headers, body: dict) -> dict:
        assert path == "/v1/chat/completions", path
        messages = body["messages"]
        if messages[0]["content"] == self.common:  # integrate: common, material, bucket, unit
            roles = [m["role"] for m in messages[:4]]
            assert roles == ["system", "user", "system", "user"], roles
            kind = self.systems.get(messages[2]["content"])
            assert kind not in (None, "extract"), "the second system prompt is no bucket prompt"
        else:
            kind = self.systems.get(messages[0]["content"])
            assert kind == "extract", "the system prompt is none of the shipped prompts"
        material = _MATERIAL.search(messages[1]["content"]).group(1)
        if kind == "extract":
            reply = json.dumps({"units": UNITS[material]})
        else:
            reply = self.decide(kind.removeprefix("integrate_"), material, messages[3]["content"])
        prompt = sum(len(m["content"]) for m in messages) // 4
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": len(reply) // 4 + 1,
            "total_tokens": prompt + len(reply) // 4 + 1,
            # a provider would serve the shared system + material prefix from its cache
            "prompt_tokens_details": {"cached_tokens": 0 if kind == "extract" else prompt // 2},
        }
        self.log.append(Served(kind, headers.get("Authorization"), messages, reply, usage))
        return {
            "id": f"chatcmpl-{len(self.log)}",
            "object": "chat.completion",
            "created": 1,
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": reply},
                }
            ],
            "usage": usage,
        }

    @staticmethod
    def decide(bucket: str, material: str, user: str) -> str:
        unit_bucket, name = _UNIT.search(user).groups()
        assert unit_bucket == bucket, "integrate prompt of another bucket than the unit's"
        provenance = f"derived_from:: [[{material}]]"
        summary = next(u["summary"] for u in UNITS[material] if u["name"] == name)
        create = {
            "action": "CREATE",
            "flavor": None,
            "target_path": None,
            "name": name,
            "description": summary[:120],
            "body": f"{summary}\n\n{provenance}\n",
            "rationale": "no candidate carries this",
        }
        old = _candidate_body(user, PROCEDURE)
        if bucket == "procedure" and material == LOG2 and old is not None:
            return json.dumps(
                {
                    "action": "UPDATE",
                    "flavor": "REFINE",
                    "target_path": PROCEDURE,
                    "description": "Deploy payments-api with a 15 minute prod canary.",
                    "body": old.replace("10 minutes", "15 minutes") + f"\n{provenance}\n",
                    "rationale": "the canary window grew",
                }
            )
        if name == "Bullet summaries for Mei" and "<feedback>" not in user:
            return json.dumps({**create, "body": f"{summary}\n"})  # forgot provenance
        if name == "Canary release":  # chatty local model: fences and a trailing comma
            text = json.dumps(create, indent=1)
            return "Here you go:\n```json\n" + text[:-2] + ",\n}\n```\n"
        return json.dumps(create)


# -- the run -------------------------------------------------------------------------------


@dataclass
class Runs:
    root: Path
    server: DreamServer
    cassette: Path
    recorded: object  # CliRunner Result of A
    recorded_log: list[Served]
    text: subprocess.CompletedProcess  # B
    text_log: list[Served]
    replayed: object  # C
    missing: object  # D
    missing_request: str  # the request hash of the deleted exchange


def _vault(root: Path, name: str) -> Path:
    vault = root / name
    for layer in ("resource", "daily", *(f"digest/{b}" for b in BUCKETS), "meta", "audit"):
        (vault / layer).mkdir(parents=True, exist_ok=True)
    for rel, text in VAULT_FILES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    return vault


def _invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Runs:
    root = tmp_path_factory.mktemp("dream-llm")
    server = DreamServer()
    cassette = root / "cassettes" / "dream.jsonl"
    with pytest.MonkeyPatch.context() as mp:  # what conftest's clean_environ does, per module
        for name in list(os.environ):
            if name.startswith("REME_") or name.endswith("_API_KEY"):
                mp.delenv(name)
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        mp.setenv("HOME", str(root / "home"))
        mp.setenv("REME_LLM_API_KEY", KEY)
        live = [
            "--brain",
            f"litellm:{MODEL}",
            "--api-base",
            server.api_base,
            "--embedder",
            "hashing",
        ]
        try:
            recorded = _invoke(
                "--vault",
                str(_vault(root, "a")),
                "dream",
                *live,
                "--record",
                str(cassette),
                "--json",
            )
            recorded_log = list(server.log)
            text = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "reme_workbench",
                    "--vault",
                    str(_vault(root, "b")),
                    "dream",
                    *live,
                    "--text",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                env=dict(os.environ),
            )
            text_log = server.log[len(recorded_log) :]
        finally:
            server.stop()
        offline = [
            "--brain",
            f"litellm:{MODEL}",
            "--api-base",
            server.api_base,
            "--embedder",
            "hashing",
        ]
        replayed = _invoke(
            "--vault",
            str(_vault(root, "c")),
            "dream",
            *offline,
            "--replay",
            str(cassette),
            "--json",
        )
        lines = cassette.read_text("utf-8").splitlines()
        feedback = [
            i
            for i, line in enumerate(lines)
            if "\n<feedback>\n" in json.loads(line)["request"]["messages"][-1]["content"]
        ]
        # delete the feedback retry (test_missing_provenance_... checks there is one)
        gone = json.loads(lines.pop(feedback[0] if feedback else -1))["hash"]
        short = root / "cassettes" / "short.jsonl"
        short.write_text("\n".join(lines) + "\n", encoding="utf-8")
        missing = CliRunner().invoke(
            cli, ["--vault", str(_vault(root, "d")), "dream", *offline, "--replay", str(short)]
        )
    return Runs(
        root, server, cassette, recorded, recorded_log, text, text_log, replayed, missing, gone
    )


def _outcomes(result) -> list[tuple]:
    assert result.exit_code == 0, result.output
    return [tuple(o[k] for k in OUTCOME_KEYS) for o in json.loads(result.stdout)["outcomes"]]


def _totals(log: list[Served]) -> dict[str, int]:
    return {
        "prompt_tokens": sum(s.usage["prompt_tokens"] for s in log),
        "completion_tokens": sum(s.usage["completion_tokens"] for s in log),
        "cached_tokens": sum(s.usage["prompt_tokens_details"]["cached_tokens"] for s in log),
    }


def _digest(vault: Path) -> dict[str, str]:
    return {
        p.relative_to(vault).as_posix(): p.read_text("utf-8")
        for p in sorted((vault / "digest").rglob("*.md"))
    }


# -- A: the recorded run ---------------------------------------------------------------------


def test_the_server_was_driven_over_real_http_as_expected(runs):
    assert runs.server.errors == []
    kinds = [s.kind for s in runs.recorded_log]
    # Phase 1 per material, then Phase 2 bucket by bucket (procedure, personal, wiki)
    assert kinds == [
        "extract",
        "integrate_procedure",
        "integrate_personal",
        "integrate_personal",
        "integrate_wiki",
        "extract",
        "integrate_procedure",
        "integrate_wiki",
    ]
    assert {s.auth for s in runs.recorded_log} == {f"Bearer {KEY}"}  # the env key was used


def test_notes_land_in_their_buckets_with_provenance(runs):
    vault = runs.root / "a"
    assert _outcomes(runs.recorded) == EXPECTED
    digest = _digest(vault)
    assert sorted(digest) == sorted([PERSONAL, PROCEDURE, WIKI, WIKI2])
    assert f"derived_from:: [[{LOG1}]]" in digest[WIKI]  # the repaired, fenced reply
    assert f"derived_from:: [[{LOG1}]]" in digest[PERSONAL]  # written on the retry
    assert f"derived_from:: [[{LOG2}]]" in digest[WIKI2]
    assert digest[WIKI].startswith("---\nname: canary-release\ndescription: A canary sends")
    # the REFINE waits: the procedure note is still as CREATE wrote it
    assert "10 minutes" in digest[PROCEDURE] and "15 minutes" not in digest[PROCEDURE]
    assert f"[[{LOG2}]]" not in digest[PROCEDURE]


def test_malformed_reply_is_repaired_without_asking_again(runs):
    wiki = [s for s in runs.recorded_log if s.kind == "integrate_wiki"][0]
    assert wiki.reply.startswith("Here you go:\n```json") and ",\n}\n```" in wiki.reply
    assert len(wiki.messages) == 4  # no validation retry was needed
    report = json.loads(runs.recorded.stdout)
    proposal = next(o["proposal_id"] for o in report["outcomes"] if o["target_path"] == WIKI)
    story = json.loads(
        _invoke("--vault", str(runs.root / "a"), "proposals", "show", proposal, "--json").stdout
    )["story"]
    [attempt] = story["attempts"]
    assert attempt["raw"].startswith("Here you go:") and attempt["decision"]["action"] == "CREATE"
    assert attempt["violations"] == []


def test_missing_provenance_is_retried_with_feedback_the_server_sees(runs):
    first, second = [s for s in runs.recorded_log if s.kind == "integrate_personal"]
    assert "<feedback>" not in first.messages[3]["content"]
    assert second.messages[:3] == first.messages[:3]
    user = second.messages[3]["content"]
    feedback = user[user.index("<feedback>") :]
    assert "has_provenance" in feedback and LOG1 in feedback
    # the same request, with the feedback appended
    assert user.split("<feedback>")[0].rstrip() == first.messages[3]["content"]
    report = json.loads(runs.recorded.stdout)
    proposal = next(o["proposal_id"] for o in report["outcomes"] if o["target_path"] == PERSONAL)
    story = json.loads(
        _invoke("--vault", str(runs.root / "a"), "proposals", "show", proposal, "--json").stdout
    )["story"]
    assert [bool(a["violations"]) for a in story["attempts"]] == [True, False]
    assert "has_provenance" in story["attempts"][0]["violations"][0]


def test_json_report_counts_the_servers_usage(runs):
    report = json.loads(runs.recorded.stdout)
    totals = _totals(runs.recorded_log)
    assert totals["cached_tokens"] > 0
    assert report["tokens"] == {**totals, "calls": len(runs.recorded_log)}
    assert report["ledger"]["totals"] == {**totals, "calls": len(runs.recorded_log)}
    assert report["ledger"]["by_action"]["extract"]["calls"] == 2
    assert report["ledger"]["by_action"]["integrate"]["calls"] == 6
    assert set(report["ledger"]["by_material"]) == {LOG1, LOG2}


def test_refine_is_held_as_pending_and_listed(runs):
    report = json.loads(runs.recorded.stdout)
    refine = next(o for o in report["outcomes"] if o["flavor"] == "REFINE")
    assert report["pending"] == [refine["proposal_id"]]
    listed = _invoke(
        "--vault", str(runs.root / "a"), "proposals", "list", "--state", "pending", "--json"
    )
    assert listed.exit_code == 0, listed.output
    [row] = json.loads(listed.stdout)
    assert (row["id"], row["state"], row["action"], row["files"]) == (
        refine["proposal_id"],
        "pending",
        "dream.refine",
        [PROCEDURE],
    )
    shown = _invoke("--vault", str(runs.root / "a"), "proposals", "show", row["id"], "--text")
    assert "-Staging rollout, smoke tests, then a 10 % prod canary for 10 minutes" in shown.stdout
    assert "+Staging rollout, smoke tests, then a 10 % prod canary for 15 minutes" in shown.stdout
    assert f"+derived_from:: [[{LOG2}]]" in shown.stdout


def test_the_api_key_is_never_written_or_printed(runs):
    assert runs.recorded_log and all(s.auth == f"Bearer {KEY}" for s in runs.recorded_log)
    shown = [
        runs.recorded.output,
        runs.text.stdout,
        runs.text.stderr,
        runs.replayed.output,
        runs.missing.output,
    ]
    assert not [text for text in shown if KEY in text]
    written = [p for p in runs.root.rglob("*") if p.is_file()]  # .reme/ included
    assert runs.cassette in written and any("meta/proposals" in p.as_posix() for p in written)
    leaks = [p for p in written if KEY.encode() in p.read_bytes()]
    assert leaks == []
    assert runs.server.api_base not in runs.cassette.read_text("utf-8")


# -- B: the subprocess run, text output -----------------------------------------------------


def test_python_dash_m_prints_one_line_per_unit_and_the_token_totals(runs):
    assert runs.text.returncode == 0, runs.text.stderr
    out = runs.text.stdout.splitlines()
    for material, _unit, _bucket, action, flavor, target, state in EXPECTED:
        what = f"{action} {flavor}" if flavor else action
        line = rf"{re.escape(material)}: {what}\s+{re.escape(target)}  \[{state}\]"
        assert [x for x in out if re.fullmatch(line, x)], f"no line {line!r} in {out}"
    t = _totals(runs.text_log)
    assert len(runs.text_log) == 8 and t == _totals(runs.recorded_log)
    assert (
        f"2 material file(s), 5 unit(s); 8 brain call(s), {t['prompt_tokens']} prompt + "
        f"{t['completion_tokens']} completion tokens ({t['cached_tokens']} cached)"
    ) in out
    assert "1 proposal(s) wait for review: reme-workbench proposals list --state pending" in out
    assert _digest(runs.root / "b") == _digest(runs.root / "a")


# -- C and D: replay with the server stopped ----------------------------------------------


def test_replay_without_the_server_gives_identical_outcomes(runs):
    with pytest.raises(OSError):  # really stopped: nothing listens there any more
        import socket

        socket.create_connection(("127.0.0.1", runs.server.http.port), timeout=1).close()
    assert _outcomes(runs.replayed) == _outcomes(runs.recorded) == EXPECTED
    replayed, recorded = json.loads(runs.replayed.stdout), json.loads(runs.recorded.stdout)
    assert replayed["tokens"] == recorded["tokens"] and replayed["ledger"] == recorded["ledger"]
    assert len(replayed["pending"]) == 1
    assert _digest(runs.root / "c") == _digest(runs.root / "a")


def test_replay_missing_a_request_fails_loudly(runs):
    result = runs.missing
    assert result.exit_code == 1, result.output
    message = result.stderr
    assert message.startswith("Error: Cassette ") and "short.jsonl" in message
    assert "no recorded reply" in message and "re-record with --record" in message
    assert f"for request {runs.missing_request} " in message  # names the request
    # the run goes on with the rest, and the material stays un-dreamt for the next run
    report = json.loads(result.stdout)
    assert any(o["state"] == "failed" for o in report["outcomes"])
    assert any("tried again on the next run" in n for n in report["notices"])
