"""Every key of the settings model changes what a command does.

`PROBES` maps each `section.key` of `reme_workbench.config.Settings` to a probe: a
small vault, the key set in its reme.toml, and the command run through the CLI as a
user runs it, asserting that the key's value shows in the result. A key added to the
model without a probe fails `test_every_key_has_a_probe`: a key that does nothing is
the bug this file exists to catch.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from reme_workbench.cli import cli
from reme_workbench.config import Settings
from reme_workbench.llm.prompts import system_prompt
from reme_workbench.vault.lock import VaultLock
from reme_workbench.vault.meta import log_access
from tests.local_http import LocalJSONServer
from tests.server.settings_probes import SERVER_PROBES

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
    doc = json.loads(result.stdout)
    return doc["hits"] if args and args[0] == "recall" else doc


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


MIXED = "digest/wiki/mixed.md"
MIXED_TEXT = (  # three sections on three unrelated things: a dispersed note
    "---\nname: mixed\ndescription: Several things.\n---\n"
    "## Tomatoes\n\n" + "Water the tomato plants in the greenhouse every morning before nine. " * 6 + "\n\n"
    "## Taxes\n\n" + "File the quarterly VAT return with the accountant by the twentieth. " * 6 + "\n\n"
    "## Bicycle\n\n" + "Pump the bicycle tyres to four bar and oil the chain monthly. " * 6 + "\n\n"
    f"derived_from:: [[{LOG}]]\n"
)


def _split_outcome(make_vault, toml: str, name: str) -> dict:
    from datetime import UTC, datetime

    from reme_workbench.vault.split_queue import enqueue_splits

    root = _vault(make_vault, "[split]\ntoken_threshold = 150\n" + toml, name, {MIXED: MIXED_TEXT})
    enqueue_splits(root, [(MIXED, 300)], by="probe", now=datetime.now(UTC))
    (outcome,) = _phase(_json(root, "consolidate", "--only", "split"), "split")["details"]["outcomes"]
    return outcome


def probe_split_dispersed_under(make_vault, **_):
    default = _split_outcome(make_vault, "", "a")
    strict = _split_outcome(make_vault, "dispersed_under = 0.0\n", "b")
    assert default["state"] == "pending" and "under 0.16" in default["reason"]
    assert strict["state"] == "not-overloaded" and "split under 0.00" in strict["reason"]


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


# --- [communities], [archive], [cooldowns], [schedule]: through `consolidate` -----------------


def _cluster_files() -> dict[str, str]:
    """Two rings of six notes joined by one link: two communities at resolution 1."""
    files = {}
    for group in ("a", "b"):
        for i in range(6):
            nxt = f"{group}{(i + 1) % 6}"
            files[f"digest/wiki/{group}{i}.md"] = (
                f"---\nname: {group}{i}\ndescription: Note {group}{i}.\n---\n"
                f"Next [[digest/wiki/{nxt}.md]], then [[digest/wiki/{group}{(i + 2) % 6}.md]].\n\n"
                f"derived_from:: [[{LOG}]]\n")
    files["digest/wiki/a0.md"] = files["digest/wiki/a0.md"].replace("Next", "Bridge [[digest/wiki/b0.md]]. Next")
    return files


def _consolidate(make_vault, toml: str, name: str, *args: str, extra=None, ages=None, meta=None) -> dict:
    root = _vault(make_vault, toml, name, {**_cluster_files(), **(extra or {})})
    now = time.time()
    for rel, days in (ages or {}).items():
        os.utime(root / rel, (now - days * 86400, now - days * 86400))
        # dreamt that long ago: a note no event names is adopted by the first batch
        log_access(root, rel, datetime.fromtimestamp(now - days * 86400, UTC), "dream.create")
    for rel, doc in (meta or {}).items():
        (root / rel).write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    data = _json(root, "consolidate", *args)
    data["root"] = str(root)
    return data


def _phase(data: dict, phase: str) -> dict:
    return next(p for p in data["phases"] if p["phase"] == phase)


def _meta(data: dict, name: str) -> dict:
    return json.loads((Path(data["root"]) / "meta" / f"{name}.json").read_text(encoding="utf-8"))


def probe_communities_resolution(make_vault, **_):
    default = _consolidate(make_vault, "", "a", "--only", "communities")
    coarse = _consolidate(make_vault, "[communities]\nresolution = 0.05\n", "b", "--only", "communities")
    assert _phase(default, "communities")["details"]["stats"]["n_communities"] == 3  # + canary/zebra
    assert _phase(coarse, "communities")["details"]["stats"]["n_communities"] < 3
    assert _meta(coarse, "communities")["resolution"] == 0.05


def probe_communities_seed(make_vault, **_):
    data = _consolidate(make_vault, "[communities]\nseed = 7\n", "a", "--only", "communities")
    assert _meta(data, "communities")["seeds_tried"] == [7, 8, 9, 10, 11]
    assert 7 <= _phase(data, "communities")["details"]["seed"] <= 11


def _misfiled(make_vault, toml: str, name: str) -> list[str]:
    """Ring a of the cluster vault with a procedure and a personal note linked into it: a
    community of eight, six of them wiki (6/7 = 0.86 of each one's others)."""
    def linked(kind: str, targets: tuple[int, ...]) -> str:
        see = " ".join(f"[[digest/wiki/a{i}.md]]" for i in targets)
        return f"---\nname: a-{kind}\ndescription: An {kind}.\n---\nSee {see}.\n\nderived_from:: [[{LOG}]]\n"
    extra = {"digest/procedure/a-step.md": linked("step", (1, 2, 3)),
             "digest/personal/a-pref.md": linked("pref", (3, 4, 5))}
    data = _consolidate(make_vault, toml, name, "--only", "communities", extra=extra)
    return sorted(m["path"] for m in _meta(data, "misfiled")["notes"])


def probe_communities_misfiled_share(make_vault, **_):
    both = ["digest/personal/a-pref.md", "digest/procedure/a-step.md"]
    assert _misfiled(make_vault, "", "a") == both
    assert _misfiled(make_vault, "[communities]\nmisfiled_share = 0.9\n", "b") == []


def probe_communities_misfiled_min_size(make_vault, **_):
    assert len(_misfiled(make_vault, "[communities]\nmisfiled_min_size = 8\n", "a")) == 2
    assert _misfiled(make_vault, "[communities]\nmisfiled_min_size = 9\n", "b") == []


def probe_communities_trials(make_vault, **_):
    data = _consolidate(make_vault, "[communities]\ntrials = 2\n", "a", "--only", "communities")
    assert _meta(data, "communities")["seeds_tried"] == [42, 43]


AGED = {"digest/wiki/a1.md": 100, "digest/wiki/a2.md": 300}


def _scores(make_vault, toml: str, name: str, **kw) -> tuple[dict, dict]:
    data = _consolidate(make_vault, toml, name, "--only", "archive", ages=AGED, **kw)
    return _meta(data, "recency")["scores"], _phase(data, "archive")["details"]


def probe_archive_tau_update_days(make_vault, **_):
    default, _ = _scores(make_vault, "", "a")
    slow, _ = _scores(make_vault, "[archive]\ntau_update_days = 600\n", "b")
    # a1: inbound 2 (a0, a5) -> x (1 + ln 3 / 10)
    assert default["digest/wiki/a1.md"] == pytest.approx(math.exp(-100 / 60) * (1 + math.log(3) / 10), abs=1e-3)
    assert slow["digest/wiki/a1.md"] == pytest.approx(math.exp(-100 / 600) * (1 + math.log(3) / 10), abs=1e-3)


def probe_archive_centrality_scale(make_vault, **_):
    default, _ = _scores(make_vault, "", "a")
    flat, _ = _scores(make_vault, "[archive]\ncentrality_scale = 1.0\n", "b")
    assert flat["digest/wiki/a1.md"] / default["digest/wiki/a1.md"] == pytest.approx(
        (1 + math.log(3)) / (1 + math.log(3) / 10), rel=1e-3)


def probe_archive_threshold(make_vault, **_):
    uncapped = "[archive]\nmax_share_per_run = 1.0\n"  # twelve notes: the default cap takes one
    _, default = _scores(make_vault, uncapped, "a")
    _, high = _scores(make_vault, uncapped + "threshold = 0.5\n", "b")
    assert default["archived"] == ["digest/wiki/a2.md"]  # a1 scores 0.21
    assert high["archived"] == ["digest/wiki/a1.md", "digest/wiki/a2.md"] and high["threshold"] == 0.5


def probe_archive_max_share_per_run(make_vault, **_):
    _, capped = _scores(make_vault, "[archive]\nthreshold = 0.5\n", "a")
    _, free = _scores(make_vault, "[archive]\nthreshold = 0.5\nmax_share_per_run = 1.0\n", "b")
    # a1 and a2 are both under 0.5; a tenth of twelve live notes is one: the colder goes
    assert capped["archived"] == ["digest/wiki/a2.md"] and capped["held_back"] == ["digest/wiki/a1.md"]
    assert free["archived"] == ["digest/wiki/a1.md", "digest/wiki/a2.md"] and free["held_back"] == []


def probe_archive_hit_window_days(make_vault, **_):
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 20 * 86400))
    log = json.dumps({"ts": stamp, "path": "digest/wiki/a2.md", "event": "recall", "query": "q", "rank": 1})
    extra = {"meta/access_log.jsonl": log + "\n"}
    default, _ = _scores(make_vault, "", "a", extra=extra)
    short, _ = _scores(make_vault, "[archive]\nhit_window_days = 10\n", "b", extra=extra)
    assert default["digest/wiki/a2.md"] / short["digest/wiki/a2.md"] == pytest.approx(1 + math.log(2), rel=1e-2)


def _cooldowns(make_vault, toml: str, name: str, action: str, days_ago: float) -> list[tuple[str, str]]:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days_ago * 86400))
    doc = {"version": 1, "computed_at": stamp,
           "entries": [{"path": "digest/wiki/a1.md", "action": action, "started_at": stamp}]}
    data = _consolidate(make_vault, toml, name, "--only", "cooldowns", meta={"meta/cooldowns.json": doc})
    return [(c["path"], c["forbids"]) for c in _phase(data, "cooldowns")["details"]["active"]]


def probe_cooldowns_split_to_merge_days(make_vault, **_):
    assert _cooldowns(make_vault, "", "a", "split", 20) == []
    assert _cooldowns(make_vault, "[cooldowns]\nsplit_to_merge_days = 30\n", "b", "split", 20) == [
        ("digest/wiki/a1.md", "merge")]


def probe_cooldowns_merge_to_split_days(make_vault, **_):
    assert _cooldowns(make_vault, "", "a", "merge", 20) == [("digest/wiki/a1.md", "merge-without-a-person")]
    assert ("digest/wiki/a1.md", "split") in _cooldowns(
        make_vault, "[cooldowns]\nmerge_to_split_days = 30\n", "b", "merge", 20)


def probe_cooldowns_merge_to_merge_days(make_vault, **_):
    assert _cooldowns(make_vault, "", "a", "merge", 100) == []
    assert _cooldowns(make_vault, "[cooldowns]\nmerge_to_merge_days = 120\n", "b", "merge", 100) == [
        ("digest/wiki/a1.md", "merge-without-a-person")]


def probe_cooldowns_abstract_to_merge_days(make_vault, **_):
    assert _cooldowns(make_vault, "", "a", "abstract", 30) == []
    assert _cooldowns(make_vault, "[cooldowns]\nabstract_to_merge_days = 40\n", "b", "abstract", 30) == [
        ("digest/wiki/a1.md", "merge")]


def _ran_with_state(make_vault, toml: str, name: str, phase: str, hours_ago: float) -> bool:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - hours_ago * 3600))
    doc = {"version": 1, "computed_at": stamp, "last_run": {phase: stamp}}
    data = _consolidate(make_vault, toml, name, "--only", phase,
                        meta={"meta/consolidate_state.json": doc})
    return phase in data["ran"]


def probe_schedule_communities_every_days(make_vault, **_):
    assert not _ran_with_state(make_vault, "", "a", "communities", 48)
    assert _ran_with_state(make_vault, "[schedule]\ncommunities_every_days = 1\n", "b", "communities", 48)


def probe_schedule_archive_every_days(make_vault, **_):
    assert not _ran_with_state(make_vault, "", "a", "archive", 12)
    assert _ran_with_state(make_vault, "[schedule]\narchive_every_days = 0.25\n", "b", "archive", 12)


# --- [abstract], [merge]: the brain-driven phases of `consolidate` (offline brain) ----------

TOPIC = ["canary-releases", "rollback-plan", "smoke-tests", "feature-flags", "blue-green-switch",
         "traffic-mirroring"]
TOPIC_DESCRIPTIONS = ["Send part of prod traffic to the new version first.",
                      "How we roll a bad release back.", "The checks we run right after a deploy.",
                      "Turning features on per tenant.", "Switching the router between two stacks.",
                      "Copying live requests to a shadow stack."]


def _topic_files(lead: int = 0) -> dict[str, str]:
    """Six release notes linked in a ring, and a near copy of the first (a duplicate).
    With `lead`, the ring links one note on and the first note links `lead` of the others:
    it stands out (§7.6.1: a member is a hub only when it does)."""
    files = {}
    for i, (name, desc) in enumerate(zip(TOPIC, TOPIC_DESCRIPTIONS, strict=True)):
        ahead = [TOPIC[(i + k) % 6] for k in range(1, (lead if i == 0 else 1) + 1)] if lead \
            else [TOPIC[(i + 1) % 6], TOPIC[(i + 2) % 6]]
        files[f"digest/wiki/{name}.md"] = (
            f"---\nname: {name}\ndescription: {desc}\n---\n{desc} We use it for payments-api.\n\n"
            f"See {' and '.join(f'[[digest/wiki/{a}.md]]' for a in ahead)}.\n\n"
            f"derived_from:: [[{LOG}]]\n")
    files["digest/wiki/canary-deploys.md"] = (
        "---\nname: canary-deploys\ndescription: Send part of the prod traffic to the new version "
        "first.\n---\nSend part of prod traffic to the new version first. We use it for "
        "ledger-worker.\n\nSee [[digest/wiki/rollback-plan.md]] and [[digest/wiki/smoke-tests.md]]."
        f"\n\nderived_from:: [[{LOG}]]\n")
    return files


def _brain_phases(make_vault, toml: str, name: str, *, stability: float = 0.857,
                  active_days_ago: float = 10, lead: int = 0) -> tuple[dict, Path]:
    """`consolidate --only abstract,merge` on the topic notes, one community of seven (its
    meta files written as the communities phase would), three of them recalled lately."""
    files = _topic_files(lead)
    root = _vault(make_vault, toml, name, files)
    members = sorted(f for f in files)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - active_days_ago * 86400))
    (root / "meta/communities.json").write_text(json.dumps({
        "version": 1, "computed_at": stamp, "algorithm": "leiden-modularity", "resolution": 1.0,
        "communities": {m: "c_00" for m in members}}), encoding="utf-8")
    (root / "meta/community_changes.json").write_text(json.dumps({
        "version": 1, "computed_at": stamp, "previous": stamp,
        "stability_per_community": {"c_00": stability}}), encoding="utf-8")
    (root / "meta/access_log.jsonl").write_text("".join(
        json.dumps({"ts": stamp, "path": f"digest/wiki/{n}.md", "event": "recall", "query": "q",
                    "rank": 1}) + "\n" for n in TOPIC[:3]), encoding="utf-8")
    return _json(root, "consolidate", "--only", "abstract,merge"), root


def _gate(data: dict, gate: str) -> dict:
    (community,) = [c for c in _phase(data, "abstract")["details"]["considered"]
                    if c["community"] == "c_00"]
    return next(g for g in community["gates"] if g["name"] == gate)


def _hub(root: Path) -> dict:
    (hub,) = [d for d in (json.loads(p.read_text(encoding="utf-8"))
                          for p in (root / "meta/proposals").glob("p-*.json"))
              if d["action"] == "consolidate.abstract"]
    return hub


def _gate_probe(make_vault, key: str, value, gate: str, *, shows=None, **kw):
    default, _ = _brain_phases(make_vault, "", "a", **kw)
    changed, _ = _brain_phases(make_vault, f"[abstract]\n{key} = {value}\n", "b", **kw)
    assert _gate(default, gate)["passed"] and not _gate(changed, gate)["passed"]
    if shows is None:
        assert _gate(changed, gate)["threshold"] == value
    else:
        assert shows in _gate(changed, gate)["reason"]
    assert _phase(default, "abstract")["details"]["outcomes"][0]["state"] == "pending"
    assert _phase(changed, "abstract")["details"]["outcomes"] == []


def probe_abstract_hub_coverage(make_vault, **_):
    # the first note links 4 of the 6 others (0.67), the rest 1 or 2: it stands out, so it is
    # the community's hub at the default 0.6 and nothing is proposed; at 0.9 it is not, and
    # abstract proposes a hub
    default, _ = _brain_phases(make_vault, "", "a", lead=4)
    changed, _ = _brain_phases(make_vault, "[abstract]\nhub_coverage = 0.9\n", "b", lead=4)
    assert not _gate(default, "no_hub")["passed"] and _gate(changed, "no_hub")["passed"]
    assert _phase(default, "abstract")["details"]["outcomes"] == []
    assert _phase(changed, "abstract")["details"]["outcomes"][0]["state"] == "pending"


def probe_abstract_min_nodes(make_vault, **_):
    _gate_probe(make_vault, "min_nodes", 8, "min_nodes")


def probe_abstract_min_stability(make_vault, **_):
    _gate_probe(make_vault, "min_stability", 0.9, "stability")


def probe_abstract_min_active_nodes(make_vault, **_):
    _gate_probe(make_vault, "min_active_nodes", 4, "active_members")


def probe_abstract_active_window_days(make_vault, **_):
    _gate_probe(make_vault, "active_window_days", 5, "active_members", shows="5 days")  # 10 days ago


def probe_abstract_min_name_diversity(make_vault, **_):
    _gate_probe(make_vault, "min_name_diversity", 0.999, "name_diversity")


def probe_abstract_max_pillars(make_vault, **_):
    _, default = _brain_phases(make_vault, "", "a")
    _, three = _brain_phases(make_vault, "[abstract]\nmax_pillars = 3\n", "b")
    pillars = {n: next(c for c in _hub(r)["checks"] if c["name"] == "pillars_are_members")
               ["params"]["pillars"] for n, r in (("default", default), ("three", three))}
    assert len(pillars["default"]) == 5 and len(pillars["three"]) == 3


def probe_abstract_min_pillars(make_vault, **_):
    _, root = _brain_phases(make_vault, "[abstract]\nmin_pillars = 4\n", "a")
    check = next(c for c in _hub(root)["checks"] if c["name"] == "pillars_are_members")
    assert check["params"]["min_pillars"] == 4  # re-run when a person accepts the hub
    data, _ = _brain_phases(make_vault, "[abstract]\nmin_pillars = 6\nmax_pillars = 6\n", "b")
    (outcome,) = _phase(data, "abstract")["details"]["outcomes"]  # 6 pillars: over 5, refused
    assert outcome["state"] != "pending"


def probe_abstract_max_tokens(make_vault, **_):
    default, _ = _brain_phases(make_vault, "", "a")
    tight, _ = _brain_phases(make_vault, "[abstract]\nmax_tokens = 40\n", "b")
    assert _phase(default, "abstract")["details"]["outcomes"][0]["state"] == "pending"
    (outcome,) = _phase(tight, "abstract")["details"]["outcomes"]
    # what its own checks need cannot fit in 40 tokens: the planner does not propose it
    assert outcome["state"] == "too-large" and "max_tokens 40" in outcome["error"]


def probe_abstract_min_member_coverage(make_vault, **_):
    _, root = _brain_phases(make_vault, "[abstract]\nmin_member_coverage = 0.9\n", "a")
    check = next(c for c in _hub(root)["checks"] if c["name"] == "links_share")
    assert check["params"]["share"] == 0.9


def _merge_details(make_vault, toml: str, name: str) -> dict:
    data, _ = _brain_phases(make_vault, toml, name)
    return _phase(data, "merge")["details"]


def probe_merge_min_description_similarity(make_vault, **_):
    assert _merge_details(make_vault, "", "a")["candidates"] == 1
    assert _merge_details(make_vault, "[merge]\nmin_description_similarity = 0.99\n", "b")["candidates"] == 0


def probe_merge_min_body_overlap(make_vault, **_):
    assert _merge_details(make_vault, "", "a")["candidates"] == 1
    assert _merge_details(make_vault, "[merge]\nmin_body_overlap = 0.99\n", "b")["candidates"] == 0


def probe_merge_min_confidence(make_vault, **_):
    data, root = _brain_phases(make_vault, "", "a")
    default = _phase(data, "merge")["details"]
    assert len(default["proposals"]) == 1 and default["uncertain"] == []
    (merge,) = [d for d in (json.loads(p.read_text(encoding="utf-8"))
                            for p in (root / "meta/proposals").glob("p-*.json"))
                if d["action"] == "consolidate.merge"]
    yes = sorted(v["confidence"] for v in merge["story"]["votes"] if v["is_same"])
    assert len(yes) >= 2 and yes[-2] < yes[-1]
    between = round((yes[-2] + yes[-1]) / 2, 4)  # only the surest vote still agrees
    strict = _merge_details(make_vault, f"[merge]\nmin_confidence = {between}\n", "b")
    assert strict["proposals"] == [] and len(strict["uncertain"]) == 1


def probe_merge_min_agree(make_vault, **_):
    default = _merge_details(make_vault, "", "a")
    unanimous = _merge_details(make_vault, "[merge]\nmin_agree = 3\n", "b")
    assert len(default["proposals"]) == 1 and unanimous["proposals"] == []


PROBES: dict[str, Callable] = {
    "vault.max_note_bytes": probe_vault_max_note_bytes,
    "vault.lock_timeout_s": probe_vault_lock_timeout_s,
    "vault.max_replans": probe_vault_max_replans,
    "split.token_threshold": probe_split_token_threshold,
    "split.dispersed_under": probe_split_dispersed_under,
    "communities.resolution": probe_communities_resolution,
    "communities.seed": probe_communities_seed,
    "communities.trials": probe_communities_trials,
    "communities.misfiled_share": probe_communities_misfiled_share,
    "communities.misfiled_min_size": probe_communities_misfiled_min_size,
    "abstract.hub_coverage": probe_abstract_hub_coverage,
    "abstract.min_nodes": probe_abstract_min_nodes,
    "abstract.min_stability": probe_abstract_min_stability,
    "abstract.min_active_nodes": probe_abstract_min_active_nodes,
    "abstract.active_window_days": probe_abstract_active_window_days,
    "abstract.min_name_diversity": probe_abstract_min_name_diversity,
    "abstract.min_pillars": probe_abstract_min_pillars,
    "abstract.max_pillars": probe_abstract_max_pillars,
    "abstract.max_tokens": probe_abstract_max_tokens,
    "abstract.min_member_coverage": probe_abstract_min_member_coverage,
    "merge.min_description_similarity": probe_merge_min_description_similarity,
    "merge.min_body_overlap": probe_merge_min_body_overlap,
    "merge.min_confidence": probe_merge_min_confidence,
    "merge.min_agree": probe_merge_min_agree,
    "archive.tau_update_days": probe_archive_tau_update_days,
    "archive.centrality_scale": probe_archive_centrality_scale,
    "archive.threshold": probe_archive_threshold,
    "archive.hit_window_days": probe_archive_hit_window_days,
    "archive.max_share_per_run": probe_archive_max_share_per_run,
    "cooldowns.split_to_merge_days": probe_cooldowns_split_to_merge_days,
    "cooldowns.merge_to_split_days": probe_cooldowns_merge_to_split_days,
    "cooldowns.merge_to_merge_days": probe_cooldowns_merge_to_merge_days,
    "cooldowns.abstract_to_merge_days": probe_cooldowns_abstract_to_merge_days,
    "schedule.communities_every_days": probe_schedule_communities_every_days,
    "schedule.archive_every_days": probe_schedule_archive_every_days,
    "recall.rrf_k": probe_recall_rrf_k,
    "recall.traverse_depth": probe_recall_traverse_depth,
    "recall.embedder": probe_recall_embedder,
    "recall.fusion": probe_recall_fusion,
    "proposals.auto_apply": probe_proposals_auto_apply,
    "llm.brain": probe_llm_brain,
    "llm.api_base": probe_llm_api_base,
    "llm.language": probe_llm_language,
    "llm.single_system": probe_llm_single_system,
    **SERVER_PROBES,  # through `serve`, over a real socket
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
        ("consolidate", "--dry-run"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_command_refuses_a_typo_in_reme_toml(make_vault, args):
    root = _vault(make_vault, "[vault]\nlock_timeout = 5\n", "typo")  # lock_timeout_s
    result = CliRunner().invoke(cli, [*args, "--vault", str(root)])
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert "vault.lock_timeout" in line and "reme.toml" in line
