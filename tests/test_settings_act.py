"""Every key of the settings model changes what a command does.

`PROBES` maps each `section.key` of `reme_workbench.config.Settings` to a probe: a
small vault, the key set in its reme.toml, and the command run through the CLI as a
user runs it, asserting that the key's value shows in the result. A key added to the
model without a probe fails `test_every_key_has_a_probe`: a key that does nothing is
the bug this file exists to catch.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from reme_workbench.cli import cli
from reme_workbench.config import Settings
from reme_workbench.llm.prompts import system_prompt
from reme_workbench.vault.lock import VaultLock

from .local_http import LocalJSONServer

LOG = "daily/2026-10-05/deploy.md"
LOG_TEXT = (
    "---\nname: deploy\ndescription: Deploy log.\n---\n"
    "## What I did\n\n1. Rolled out payments-api to staging and ran the smoke tests.\n"
    "2. Ran the prod canary at 10 % for 15 minutes, then promoted.\n\n"
    "## Notes\n\nWe decided to keep the canary at 15 minutes because a leak showed at minute 12.\n"
)
CANARY = (
    "---\nname: canary\ndescription: Canary releases.\n---\n"
    "A canary sends part of the prod traffic to the new version. See [[digest/wiki/zebra.md]].\n\n"
    f"derived_from:: [[{LOG}]]\n"
)
ZEBRA = (
    "---\nname: zebra\ndescription: Quartz.\n---\nXylophone quartz jukebox.\n\n"
    f"derived_from:: [[{LOG}]]\n"
)


def _vault(make_vault, toml: str, name: str, extra: dict | None = None) -> Path:
    """A small vault whose reme.toml starts in [recall] (hashing embedder: fast, offline):
    `toml` may add [recall] keys first, then sections of its own."""
    files = {LOG: LOG_TEXT, "digest/wiki/canary.md": CANARY, "digest/wiki/zebra.md": ZEBRA}
    root = make_vault({**files, **(extra or {})}, name=name)
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n' + toml, encoding="utf-8")
    return root


def _cli(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--vault", str(root), *args], catch_exceptions=False)


def _json(root: Path, *args: str):
    result = _cli(root, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- [vault] ---------------------------------------------------------------------------


def probe_vault_max_note_bytes(make_vault, **_):
    big = "---\nname: big\ndescription: A long note.\n---\n" + "word " * 400 + f"\nderived_from:: [[{LOG}]]\n"
    default = _json(_vault(make_vault, "", "a", {"digest/wiki/big.md": big}), "status")
    small = _json(_vault(make_vault, "[vault]\nmax_note_bytes = 1000\n", "b", {"digest/wiki/big.md": big}), "status")
    assert default["digest_notes"]["wiki"] == 3 and default["problems"] == []
    assert small["digest_notes"]["wiki"] == 2
    (problem,) = small["problems"]
    assert problem["path"] == "digest/wiki/big.md" and "over the 1,000-byte limit" in problem["message"]


def probe_vault_lock_timeout_s(make_vault, **_):
    for timeout in (0.2, 0.6):
        root = _vault(make_vault, f"[vault]\nlock_timeout_s = {timeout}\n", f"t{timeout}")
        with VaultLock(root):  # another writer holds the vault
            start = time.monotonic()
            result = _cli(root, "rename", "digest/wiki/zebra.md", "digest/wiki/z.md")
            waited = time.monotonic() - start
        assert result.exit_code == 1
        assert f"Timed out after {timeout:g} s" in result.output
        assert waited >= timeout


def probe_vault_max_replans(make_vault, monkeypatch, **_):
    from reme_workbench.vault import store as store_module

    real_apply = store_module.Store.apply
    edits = {"left": 0}

    def someone_edits_canary_first(self, changeset):
        if edits["left"]:
            edits["left"] -= 1
            note = self.root / "digest/wiki/canary.md"
            note.write_text(note.read_text() + "edited meanwhile\n")
        return real_apply(self, changeset)

    monkeypatch.setattr(store_module.Store, "apply", someone_edits_canary_first)
    outcomes = {}
    for replans in (2, 3):
        root = _vault(make_vault, f"[vault]\nmax_replans = {replans}\n", f"r{replans}")
        edits["left"] = 2  # the canary note changes under the first two plans
        result = _cli(root, "rename", "digest/wiki/zebra.md", "digest/wiki/z.md", "--json")
        outcomes[replans] = result.exit_code
        if replans == 2:
            assert "Gave up after 2 attempts" in result.output
    assert outcomes == {2: 1, 3: 0}


# --- [split] ---------------------------------------------------------------------------


def probe_split_token_threshold(make_vault, **_):
    default = _json(_vault(make_vault, "", "a"), "dream")
    low = _json(_vault(make_vault, "[split]\ntoken_threshold = 5\n", "b"), "dream")
    assert default["outcomes"] and default["split_candidates"] == []
    written = {o["target_path"] for o in low["outcomes"] if o["state"] == "applied"}
    assert low["split_candidates"] and set(low["split_candidates"]) <= written


# --- [recall] --------------------------------------------------------------------------


def _top_score(root: Path) -> float:
    return _json(root, "recall", "canary prod traffic", "--scope", "digest")[0]["score"]


def probe_recall_rrf_k(make_vault, **_):
    default = _top_score(_vault(make_vault, "", "a"))
    small_k = _top_score(_vault(make_vault, "rrf_k = 1\n", "b"))
    assert small_k > default * 10  # 1/(1+rank) against 1/(60+rank)


def probe_recall_traverse_depth(make_vault, **_):
    def vias(toml):
        hits = _json(_vault(make_vault, toml, f"d{len(toml)}"), "recall", "canary prod traffic", "--scope", "digest")
        return {h["path"]: h["via"] for h in hits}

    default = vias("")
    flat = vias("traverse_depth = 0\n")
    assert default.get("digest/wiki/zebra.md") == "link"  # reached through canary's link
    assert "link" not in flat.values()


def probe_recall_embedder(make_vault, **_):
    hashing = _json(_vault(make_vault, "", "a"), "index")
    assert hashing["stats"]["embedder"].startswith("hashing")
    root = _vault(make_vault, "", "b")
    (root / "reme.toml").write_text('[recall]\nembedder = "no-such-embedder"\n', encoding="utf-8")
    result = _cli(root, "index")
    assert result.exit_code == 1 and "no-such-embedder" in result.output


def probe_recall_fusion(make_vault, **_):
    rrf = _top_score(_vault(make_vault, "", "a"))
    relative = _top_score(_vault(make_vault, 'fusion = "relative"\n', "b"))
    assert rrf < 0.05 and relative > 0.3  # rank fusion ~1/61; score fusion is 0..1


# --- [proposals] -----------------------------------------------------------------------


def probe_proposals_auto_apply(make_vault, **_):
    default = _json(_vault(make_vault, "", "a"), "dream")
    held = _json(_vault(make_vault, "[proposals]\nauto_apply = []\n", "b"), "dream")
    assert {o["state"] for o in default["outcomes"]} >= {"applied"}
    assert held["outcomes"] and {o["state"] for o in held["outcomes"]} == {"pending"}


# --- [llm] -----------------------------------------------------------------------------


class _Model:
    """An OpenAI-compatible server on 127.0.0.1 that records what it is asked: one unit
    per material, a CREATE for it."""

    extract_prompts = {system_prompt("extract", lang) for lang in ("en", "zh")}

    def __init__(self) -> None:
        self.requests: list[list[dict]] = []
        self.http = LocalJSONServer(self.answer)

    def answer(self, path, headers, body):
        messages = body["messages"]
        self.requests.append(messages)
        text = "\n".join(m["content"] for m in messages)
        material = re.search(r'<material path="([^"]+)"', text).group(1)
        if messages[0]["content"] in self.extract_prompts:
            reply = {"units": [{"name": "Canary length", "bucket": "wiki", "summary": "The prod canary runs 15 minutes."}]}
        else:
            reply = {
                "action": "CREATE", "flavor": None, "target_path": None, "name": "Canary length",
                "description": "The prod canary runs 15 minutes.",
                "body": f"The prod canary runs 15 minutes.\n\nderived_from:: [[{material}]]\n",
                "rationale": "new",
            }
        content = json.dumps(reply)
        return 200, {
            "id": f"c-{len(self.requests)}", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }

    def stop(self) -> None:
        self.http.stop()


@pytest.fixture
def models(monkeypatch):
    monkeypatch.setenv("REME_LLM_API_KEY", "sk-test-settings")
    started = [_Model(), _Model()]
    yield started
    for model in started:
        model.stop()


def _llm(make_vault, name: str, **keys) -> Path:
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    return _vault(make_vault, f"[llm]\n{lines}", name)


def _dream(root: Path) -> dict:
    return _json(root, "dream", LOG)


def probe_llm_brain(make_vault, models, **_):
    model = models[0]
    offline = _dream(_llm(make_vault, "a", api_base=model.http.api_base))
    assert model.requests == [] and offline["outcomes"]
    _dream(_llm(make_vault, "b", brain="litellm:openai/test-model", api_base=model.http.api_base))
    assert len(model.requests) == 2  # extract, then integrate the one unit


def probe_llm_api_base(make_vault, models, **_):
    a, b = models
    _dream(_llm(make_vault, "a", brain="litellm:openai/test-model", api_base=a.http.api_base))
    assert len(a.requests) == 2 and b.requests == []
    _dream(_llm(make_vault, "b", brain="litellm:openai/test-model", api_base=b.http.api_base))
    assert len(a.requests) == 2 and len(b.requests) == 2


def probe_llm_language(make_vault, models, **_):
    model = models[0]
    for lang in ("en", "zh"):
        model.requests.clear()
        _dream(_llm(make_vault, lang, brain="litellm:openai/test-model", api_base=model.http.api_base, language=lang))
        assert model.requests[0][0]["content"] == system_prompt("extract", lang)


def probe_llm_single_system(make_vault, models, **_):
    model = models[0]
    systems = {}
    for single in (False, True):
        model.requests.clear()
        _dream(_llm(make_vault, f"s{single}", brain="litellm:openai/test-model", api_base=model.http.api_base, single_system=single))
        integrate = model.requests[1]
        systems[single] = sum(1 for m in integrate if m["role"] == "system")
    assert systems == {False: 2, True: 1}


PROBES: dict[str, Callable] = {
    "vault.max_note_bytes": probe_vault_max_note_bytes,
    "vault.lock_timeout_s": probe_vault_lock_timeout_s,
    "vault.max_replans": probe_vault_max_replans,
    "split.token_threshold": probe_split_token_threshold,
    "recall.rrf_k": probe_recall_rrf_k,
    "recall.traverse_depth": probe_recall_traverse_depth,
    "recall.embedder": probe_recall_embedder,
    "recall.fusion": probe_recall_fusion,
    "proposals.auto_apply": probe_proposals_auto_apply,
    "llm.brain": probe_llm_brain,
    "llm.api_base": probe_llm_api_base,
    "llm.language": probe_llm_language,
    "llm.single_system": probe_llm_single_system,
}
NEEDS_MODELS = {"llm.brain", "llm.api_base", "llm.language", "llm.single_system"}


def _keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            keys.extend(_keys(kind, f"{prefix}{name}."))
        else:
            keys.append(f"{prefix}{name}")
    return keys


def test_every_key_has_a_probe():
    keys = _keys(Settings)
    assert len(keys) >= 10  # the walk reaches into the sections
    assert sorted(keys) == sorted(PROBES), (
        f"keys without a probe: {sorted(set(keys) - set(PROBES))}; "
        f"probes for no key: {sorted(set(PROBES) - set(keys))}"
    )


@pytest.mark.parametrize("key", sorted(PROBES))
def test_the_key_changes_behaviour(key, make_vault, monkeypatch, request):
    models = request.getfixturevalue("models") if key in NEEDS_MODELS else None
    PROBES[key](make_vault=make_vault, monkeypatch=monkeypatch, models=models)


@pytest.mark.parametrize(
    "args",
    [
        ("status",), ("graph",), ("links", LOG), ("health", "--no-report"), ("proposals", "list"),
        ("proposals", "show", "p-1"), ("rename", "digest/wiki/zebra.md", "digest/wiki/z.md", "--dry-run"),
        ("index",), ("recall", "canary"), ("dream", "--dry-run"), ("init",),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_command_refuses_a_typo_in_reme_toml(make_vault, args):
    root = _vault(make_vault, "[vault]\nlock_timeout = 5\n", "typo")  # lock_timeout_s
    result = CliRunner().invoke(cli, [*args, "--vault", str(root)])
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert "vault.lock_timeout" in line and "reme.toml" in line
