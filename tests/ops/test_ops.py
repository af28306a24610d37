"""The operations layer (reme_workbench.ops): what every client — CLI, HTTP API, MCP —
may do with a vault, with untrusted requests validated and every write going through
the proposal queue's checks."""

from __future__ import annotations

import json
import os

import pytest
from pydantic import ValidationError

from reme_workbench.errors import BusyError, NotFoundError, RemeError
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.ops import (
    AcceptRequest,
    NoteRequest,
    ProposalsRequest,
    RecallRequest,
    RejectRequest,
    Workspace,
    accept_proposal,
    health,
    list_proposals,
    note_context,
    recall,
    reject_proposal,
    show_proposal,
)
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.vault.checks import CheckSpec
from reme_workbench.vault.store import Edit
from reme_workbench.vault.vault import Vault
from tests.conftest import snapshot

MAT = "daily/2026-10-05/log.md"
POOL = "digest/wiki/pool-size.md"
HUB = "digest/wiki/database-overview.md"
PORT = "digest/wiki/pgbouncer-port.md"
TIMEOUT = "digest/wiki/statement-timeout.md"


def note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\nderived_from:: [[{MAT}]]\n"


FILES = {
    MAT: "09:00 raised the pool to 40 after the incident\n",
    POOL: note("pool-size", "The payments-api DB pool size", "Pool is 10.\n\nsee:: [[" + PORT + "]]"),
    PORT: note("pgbouncer-port", "PgBouncer listens on 6432", "PgBouncer listens on 6432."),
    TIMEOUT: note("statement-timeout", "Statement timeout is 5s", "Timeout 5s. [[" + POOL + "]]"),
    HUB: note("database-overview", "Overview of the database notes",
              f"- [[{POOL}]]\n- [[{PORT}]]\n- [[{TIMEOUT}]]\n- [[digest/wiki/missing-note.md]]"),
}


@pytest.fixture
def ws(make_vault, clock):
    root = make_vault(FILES)
    members = [POOL, HUB, PORT, TIMEOUT]
    (root / "meta" / "communities.json").write_text(json.dumps(
        {"version": 1, "computed_at": "2026-10-20T12:00:00Z",
         "communities": {p: "c_00" for p in members}}))
    (root / "meta" / "recency.json").write_text(json.dumps(
        {"version": 1, "computed_at": "2026-10-20T12:00:00Z", "scores": {POOL: 0.42, PORT: 0.05}}))
    (root / "meta" / "archived.json").write_text(json.dumps(
        {"version": 1, "computed_at": "2026-10-20T12:00:00Z", "archived": [PORT]}))
    return Workspace(root, embedder=HashingEmbedder(), clock=clock)


def test_recall_finds_the_note_and_logs_the_hit(ws):
    found = recall(ws, RecallRequest(query="payments-api pool", k=3))
    assert POOL in [h.path for h in found.hits] and len(found.hits) <= 3
    assert found.hits[0].chunks and found.hits[0].via in ("search", "link")
    log = (ws.root / "meta" / "access_log.jsonl").read_text()
    assert POOL in log and '"recall"' in log
    # archived notes stay out unless asked for
    assert PORT not in [h.path for h in recall(ws, RecallRequest(query="pgbouncer 6432")).hits]
    assert PORT in [h.path for h in recall(ws, RecallRequest(query="pgbouncer 6432",
                                                             include_archived=True)).hits]


def test_note_context_gives_links_both_ways_community_hub_recency(ws):
    ctx = note_context(ws, NoteRequest(path=POOL))
    assert ctx.name == "pool-size" and ctx.description == "The payments-api DB pool size"
    assert [(link.path, link.predicate) for link in ctx.outbound] == [(PORT, "see")]
    assert [link.path for link in ctx.inbound] == [HUB, TIMEOUT]
    assert [(link.path, link.predicate) for link in ctx.provenance] == [(MAT, "derived_from")]
    assert ctx.community == "c_00" and ctx.community_size == 4
    assert ctx.hub == HUB  # it links every other member
    assert ctx.recency == 0.42 and not ctx.archived
    assert note_context(ws, NoteRequest(path=PORT)).archived


def test_note_context_changes_nothing_but_the_access_log(ws):
    before = snapshot(ws.root)
    note_context(ws, NoteRequest(path=POOL))
    list_proposals(ws, ProposalsRequest())
    health(ws)
    after = snapshot(ws.root)
    log = after.pop("meta/access_log.jsonl")[0].decode()
    assert after == before  # the opening is logged (docs/spec.md §7.3.6), nothing else
    assert [json.loads(line)["event"] for line in log.splitlines()] == ["open"]


@pytest.mark.parametrize("bad", ["../outside.md", "/etc/passwd", "digest\\wiki\\x.md",
                                 "digest/./wiki/x.md", "", "C:/x.md", "a\x00b"])
def test_a_path_outside_the_vault_is_refused_before_anything_runs(bad):
    with pytest.raises(ValidationError):
        NoteRequest(path=bad)


def test_note_context_says_what_is_wrong_with_a_path(ws):
    with pytest.raises(RemeError, match="not a digest note"):
        note_context(ws, NoteRequest(path=MAT))
    with pytest.raises(RemeError, match="no note digest/wiki/nope.md"):
        note_context(ws, NoteRequest(path="digest/wiki/nope.md"))
    outside = ws.root.parent / "secret.md"
    outside.write_text("---\nname: secret\n---\nsecret\n")
    os.symlink(outside, ws.root / "digest" / "wiki" / "link.md")
    with pytest.raises(RemeError):
        note_context(ws, NoteRequest(path="digest/wiki/link.md"))


def test_requests_are_bounded_and_refuse_unknown_keys():
    with pytest.raises(ValidationError):
        RecallRequest(query="   ")
    with pytest.raises(ValidationError):
        RecallRequest(query="x", k=0)
    with pytest.raises(ValidationError):
        RecallRequest(query="x", k=1000)
    with pytest.raises(ValidationError):
        RecallRequest(query="x" * 5000)
    with pytest.raises(ValidationError):
        RecallRequest(query="x", scope="everything")
    with pytest.raises(ValidationError):
        RecallRequest.model_validate({"query": "x", "path": "/etc"})
    with pytest.raises(ValidationError):
        AcceptRequest(id="p-1", edited={"../x.md": "text"})
    with pytest.raises(ValidationError):
        ProposalsRequest(state="done")


def _pending(ws) -> str:
    vault = Vault.open(ws.root, clock=ws.clock)
    queue = ProposalQueue(vault)
    _, stamp = vault.store.read(POOL)
    new = FILES[POOL].replace("Pool is 10.", "Pool is 40 since the incident.")
    proposal = queue.new("dream.refine", "refine pool-size with the incident",
                         [Edit(POOL, new.encode(), stamp)],
                         checks=[CheckSpec("has_provenance", {"path": POOL, "material": MAT}),
                                 CheckSpec("only_paths", {"paths": [POOL]})],
                         story={"material": MAT, "flavor": "REFINE"})
    return queue.submit(proposal, Policy()).id


def test_proposals_are_listed_shown_accepted_through_their_checks(ws):
    pid = _pending(ws)
    [row] = list_proposals(ws, ProposalsRequest(state="pending", action="dream."))
    assert row.id == pid and row.files == [POOL]
    assert list_proposals(ws, ProposalsRequest(action="consolidate")) == []
    shown = show_proposal(ws, pid[:14])
    assert "+Pool is 40 since the incident." in shown.diff and shown.story["flavor"] == "REFINE"
    done = accept_proposal(ws, AcceptRequest(id=pid))
    assert done.state == "applied" and "Pool is 40" in (ws.root / POOL).read_text()
    assert done.note is None
    before = snapshot(ws.root)
    again = accept_proposal(ws, AcceptRequest(id=pid))  # decided once (docs/spec.md §3.7.4)
    assert again.state == "applied" and "already applied" in again.note
    assert snapshot(ws.root) == before  # nothing written again
    with pytest.raises(RemeError, match="proposals revert"):
        reject_proposal(ws, RejectRequest(id=pid, reason="too late"))


def test_an_edit_that_breaks_a_check_is_refused_and_nothing_is_written(ws):
    pid = _pending(ws)
    dropped = FILES[POOL].replace(f"derived_from:: [[{MAT}]]\n", "")
    refused = accept_proposal(ws, AcceptRequest(id=pid, edited={POOL: dropped}))
    assert refused.state == "rejected" and "has_provenance" in refused.error
    assert (ws.root / POOL).read_text() == FILES[POOL]


def test_reject_keeps_the_reason_and_changes_no_note(ws):
    pid = _pending(ws)
    before = (ws.root / POOL).read_bytes()
    rejected = reject_proposal(ws, RejectRequest(id=pid, reason="the pool went back to 10"))
    assert rejected.state == "rejected" and (ws.root / POOL).read_bytes() == before
    with pytest.raises(RemeError, match="not a proposal id"):
        show_proposal(ws, "../../etc/passwd")


def missing_note_went(ws) -> None:
    """missing-note.md existed at a recorded health run, then went: the hub's link to it
    is broken, not a note not yet written (docs/spec.md §7.5.1)."""
    from reme_workbench.ops import HealthRequest

    missing = ws.root / "digest/wiki/missing-note.md"
    missing.write_text(note("missing-note", "Soon gone", "For now."), encoding="utf-8")
    health(ws, HealthRequest(report=True))
    missing.unlink()


def test_health_reports_the_broken_link(ws):
    report = health(ws)  # never resolved: a note not yet written, not broken
    assert report.ok and report.broken_links == []
    assert [(b.source, b.target) for b in report.unwritten_links] == [
        (HUB, "digest/wiki/missing-note.md")]
    missing_note_went(ws)
    report = health(ws)
    assert not report.ok and report.unwritten_links == []
    assert [(b.source, b.target) for b in report.broken_links] == [(HUB, "digest/wiki/missing-note.md")]


def test_health_fixes_digest_links_and_writes_the_report_when_asked(ws):
    from reme_workbench.ops import HealthRequest

    before = snapshot(ws.root)
    assert health(ws, HealthRequest()).report is None and snapshot(ws.root) == before
    missing_note_went(ws)
    proposed = health(ws, HealthRequest(fix=True, report=True))
    assert not proposed.ok and proposed.fixed == 0 and proposed.unlink.state == "pending"
    assert proposed.report == "audit/2026-11-02/health_links.md" and (ws.root / proposed.report).is_file()
    assert "[[digest/wiki/missing-note.md]]" in (ws.root / HUB).read_text()  # waits for a person
    # a workspace whose policy trusts the unlink still waits for a person: it rewrites a
    # line (docs/spec.md §3.7.3); the person accepts it
    ws = ws.with_settings(ws.settings.model_copy(update={"proposals": ws.settings.proposals.model_copy(
        update={"auto_apply": ["health.unlink"]})}))
    trusted = health(ws, HealthRequest(fix=True))
    assert trusted.fixed == 0 and trusted.unlink.state == "already pending"
    assert "[[digest/wiki/missing-note.md]]" in (ws.root / HUB).read_text()
    assert accept_proposal(ws, AcceptRequest(id=trusted.unlink.proposal)).state == "applied"
    fixed = health(ws, HealthRequest(fix=True))
    assert fixed.ok and fixed.left_in_daily == 0
    assert "[[digest/wiki/missing-note.md]]" not in (ws.root / HUB).read_text()
    assert "missing-note" in (ws.root / HUB).read_text()  # the link's text is kept


def test_recall_batch_answers_each_query_with_its_id(ws):
    from reme_workbench.ops import RecallBatchRequest, RecallQuery, recall_batch

    seen = []
    answer = recall_batch(ws, RecallBatchRequest(
        queries=[RecallQuery(id="q1", query="pool size"), RecallQuery(id="q2", query="statement timeout")],
        k=3, mode="keyword"), progress=lambda d, t, m: seen.append(m))
    assert [(r.id, r.query) for r in answer.results] == [("q1", "pool size"), ("q2", "statement timeout")]
    assert POOL in [h.path for h in answer.results[0].hits]
    assert answer.results[1].hits[0].path == TIMEOUT
    assert PORT not in [h.path for r in answer.results for h in r.hits]  # archived
    assert "recall: 2/2 queries" in seen
    with pytest.raises(ValidationError):
        RecallBatchRequest(queries=[])
    with pytest.raises(ValidationError):
        RecallQuery(id="q", query="   ")


def test_a_folder_that_is_no_vault_is_refused_with_the_fix(tmp_path):
    with pytest.raises(RemeError, match="reme-workbench init"):
        Workspace(tmp_path / "nothing")


def test_a_read_only_vault_can_be_read_but_not_written(ws, monkeypatch):
    pid = _pending(ws)
    # as the vault reports a folder this user may not write (chmod does not bind root)
    monkeypatch.setattr(Vault, "unwritable", lambda self: "digest")
    assert note_context(ws, NoteRequest(path=POOL)).name == "pool-size"
    assert [p.id for p in list_proposals(ws, ProposalsRequest())] == [pid]
    # recall writes only .reme/ and meta/ (a vault whose .reme/ is read-only too keeps
    # them in a user cache: tests/index/test_readonly_home.py)
    assert recall(ws, RecallRequest(query="pool")).hits
    for write in (lambda: accept_proposal(ws, AcceptRequest(id=pid)),
                  lambda: reject_proposal(ws, RejectRequest(id=pid))):
        with pytest.raises(RemeError, match="read-only"):
            write()
    assert (ws.root / POOL).read_text() == FILES[POOL]


# -- append_daily: the one way a client writes material (docs/spec.md §3.6.4) -------------

def test_append_daily_creates_then_appends_and_never_changes_old_bytes(ws):
    from reme_workbench.ops import DailyEntryRequest, append_daily

    first = append_daily(ws, DailyEntryRequest(text="Raised the pool to 40.", title="Incident"))
    assert first.created and first.path == "daily/2026-11-02/log.md"
    path = ws.root / first.path
    assert path.read_text() == "## 09:30 Incident\n\nRaised the pool to 40.\n"
    before = path.read_bytes()
    second = append_daily(ws, DailyEntryRequest(text="PgBouncer stays on 6432.\n\n- checked"))
    after = path.read_bytes()
    assert not second.created and after.startswith(before)
    assert after[len(before):] == b"\n## 09:30\n\nPgBouncer stays on 6432.\n\n- checked\n"
    assert second.appended_bytes == len(after) - len(before) and second.size == len(after)


def test_append_daily_keeps_a_log_that_did_not_end_with_a_newline(ws):
    from reme_workbench.ops import DailyEntryRequest, append_daily

    log = ws.root / "daily" / "2026-10-19" / "agent-run.md"
    log.parent.mkdir(parents=True)
    log.write_bytes(b"started")
    done = append_daily(ws, DailyEntryRequest(text="finished", log="Agent run", day="2026-10-19"))
    assert done.path == "daily/2026-10-19/agent-run.md"
    assert log.read_bytes() == b"started\n\n## 09:30\n\nfinished\n"


def test_append_daily_refuses_what_it_must_not_write(ws):
    from reme_workbench.ops import DailyEntryRequest, append_daily

    with pytest.raises(RemeError, match="future"):
        append_daily(ws, DailyEntryRequest(text="x", day="2026-11-03"))
    # the log name is only ever a slug inside daily/<day>/: no way out of it
    done = append_daily(ws, DailyEntryRequest(text="x", log="../../digest/wiki/pool-size"))
    assert done.path.startswith("daily/2026-11-02/") and "/" not in done.path[len("daily/2026-11-02/"):]
    assert (ws.root / POOL).read_text() == FILES[POOL]
    for bad in ({"text": "   "}, {"text": "a\x00b"}, {"text": "x" * 200_001},
                {"text": "x", "path": "digest/wiki/a.md"}):
        with pytest.raises(ValidationError):
            DailyEntryRequest(**bad)


# -- long operations and the job runner ----------------------------------------------------

LOG = "daily/2026-10-30/agent.md"
LOG_TEXT = """# Agent log

## PgBouncer

We checked the staging PgBouncer today: it listens on port 6432 in transaction mode, and
the payments-api connects through it with a pool of 20 connections.

## Decision

Mei decided that schema migrations on staging run only between 02:00 and 05:00 UTC+8,
after a fresh snapshot.
"""


def test_dream_then_consolidate_as_operations(ws):
    from reme_workbench.ops import ConsolidateRequest, DreamRequest, consolidate, dream

    (ws.root / LOG).parent.mkdir(parents=True, exist_ok=True)
    (ws.root / LOG).write_text(LOG_TEXT)
    seen = []
    report = dream(ws, DreamRequest(files=[LOG]), lambda d, t, m: seen.append((d, t, m))
                   ).model_dump()  # a typed answer, as every client gets it
    assert LOG in report["materials"] and report["outcomes"]
    created = [o["target_path"] for o in report["outcomes"] if o["action"] == "CREATE"]
    assert created and all((ws.root / p).is_file() for p in created)
    assert seen and seen[-1][1] == 1  # one file
    again = dream(ws, DreamRequest())  # everything not yet dreamt: the fixture's log only
    assert again.materials == [MAT]
    done = consolidate(ws, ConsolidateRequest(only=["communities"], force=True))
    assert [p.phase for p in done.phases] == ["communities"]
    assert (ws.root / "meta" / "communities.json").is_file()
    with pytest.raises(ValidationError):
        DreamRequest(files=[POOL])  # a note is not material
    assert DreamRequest(files=["2026-10-05", "daily/", "resource/2026-10-05"]).files
    with pytest.raises(ValidationError, match="not material"):
        DreamRequest(files=["2026-13-45"])
    with pytest.raises(ValidationError):
        ConsolidateRequest(only=["everything"])


def test_a_job_runs_in_the_background_and_reports_its_end(ws):
    from reme_workbench.ops import DreamRequest, JobRunner

    (ws.root / LOG).parent.mkdir(parents=True, exist_ok=True)
    (ws.root / LOG).write_text(LOG_TEXT)
    runner = JobRunner(ws)
    started = runner.start("dream", DreamRequest(files=[LOG]))
    assert started.state == "running" and started.kind == "dream"
    done = runner.wait(started.id, timeout=120)
    assert done.state == "done" and done.finished_at and LOG in done.result["materials"]
    assert done.progress.total == 1
    failed = runner.wait(runner.start("dream", DreamRequest(files=["daily/2026-10-30/none.md"])).id, 60)
    assert failed.state == "failed" and failed.error
    assert [j.id for j in runner.list()] == [started.id, failed.id]
    with pytest.raises(NotFoundError, match="No job"):
        runner.status("j-nope")


def test_one_job_at_a_time(ws, monkeypatch):
    import dataclasses
    import threading

    from reme_workbench.ops import BridgeRequest, BridgeResponse, JobRunner, registry

    release = threading.Event()

    def slow(_ws, _request, progress):
        progress(1, 3, "waiting")
        release.wait(30)
        return BridgeResponse(notices=["ok"])

    monkeypatch.setattr(registry, "OPERATIONS", tuple(
        dataclasses.replace(op, run=slow) if op.name == "bridge" else op
        for op in registry.OPERATIONS))
    runner = JobRunner(ws)
    first = runner.start("bridge", BridgeRequest())
    deadline = __import__("time").monotonic() + 10
    while runner.status(first.id).progress.message != "waiting":
        assert __import__("time").monotonic() < deadline
    with pytest.raises(BusyError, match=f"Job {first.id} .* still running"):
        runner.start("bridge", BridgeRequest())
    release.set()
    assert runner.wait(first.id, 30).result["notices"] == ["ok"]
    assert runner.wait(runner.start("bridge", BridgeRequest()).id, 30).state == "done"


def test_the_append_command_writes_through_the_operation(ws):
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    runner = CliRunner()
    first = runner.invoke(cli, ["--vault", str(ws.root), "append", "Pool is 40.", "--title", "check",
                                "--day", "2026-10-19", "--text"])
    assert first.exit_code == 0, first.output
    assert "Started daily/2026-10-19/log.md" in first.output
    first_size = (ws.root / "daily/2026-10-19/log.md").stat().st_size
    piped = runner.invoke(cli, ["--vault", str(ws.root), "append", "--day", "2026-10-19"],
                          input="From a script.\n")  # output piped too: JSON
    assert piped.exit_code == 0, piped.output
    answer = json.loads(piped.stdout)
    assert answer["path"] == "daily/2026-10-19/log.md" and not answer["created"]
    assert answer["size"] == (ws.root / "daily/2026-10-19/log.md").stat().st_size
    assert answer["appended_bytes"] == answer["size"] - first_size
    text = (ws.root / "daily/2026-10-19/log.md").read_text()
    assert text.startswith("## ") and "Pool is 40." in text and text.endswith("From a script.\n")
    bad = runner.invoke(cli, ["--vault", str(ws.root), "append", "   "])
    assert bad.exit_code != 0 and "Invalid arguments: text" in bad.output
    future = runner.invoke(cli, ["--vault", str(ws.root), "append", "x", "--day", "2999-01-01"])
    assert future.exit_code != 0 and "future" in future.output


def test_the_note_command_shows_the_operation_s_answer(ws):
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    runner = CliRunner()
    as_json = runner.invoke(cli, ["--vault", str(ws.root), "note", POOL, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout) == note_context(ws, NoteRequest(path=POOL)).model_dump(mode="json")
    text = runner.invoke(cli, ["--vault", str(ws.root), "note", str(ws.root / POOL), "--text"])
    assert text.exit_code == 0, text.output
    assert f"community:   c_00 (4 notes, hub {HUB})" in text.stdout
    assert "recency:     0.42" in text.stdout
    assert f"    {PORT}  (see::)" in text.stdout and f"    {MAT}  (derived_from::)" in text.stdout
    missing = runner.invoke(cli, ["--vault", str(ws.root), "note", "digest/wiki/nope.md"])
    assert missing.exit_code == 1 and "no note digest/wiki/nope.md" in missing.stderr


def test_the_workspace_hands_consolidate_its_brain_on_the_workspace_s_embedder(ws):
    """The composition root builds consolidate's brain: the offline one by default, on the
    workspace's embedder, with reme.toml's split cut and hub budget; a model when named."""
    from reme_workbench.brains.model import LLMBrain
    from reme_workbench.brains.offline_consolidate import OfflineConsolidateBrain
    from reme_workbench.config import load_settings

    (ws.root / "reme.toml").write_text('[split]\ndispersed_under = 0.3\n[abstract]\nmax_tokens = 1200\n')
    settings = load_settings(ws.root)
    brain = Workspace(ws.root, embedder=ws.embedder).get_consolidate_brain()
    assert isinstance(brain, OfflineConsolidateBrain) and brain.embedder is ws.embedder
    assert brain.splitter.dispersed_under == 0.3 and brain.hub_max_tokens == 1200
    assert ws.with_settings(settings).get_consolidate_brain().splitter.dispersed_under == 0.3
    named = Workspace(ws.root, embedder=ws.embedder, brain_spec="litellm:openai/x")
    assert isinstance(named.get_consolidate_brain(), LLMBrain)


def test_the_model_server_is_the_flag_s_then_the_environment_s_then_reme_toml_s(ws, monkeypatch):
    from reme_workbench.brains.factory import build_brain, build_consolidate_brain
    from reme_workbench.cli.app import Ctx

    (ws.root / "reme.toml").write_text('[llm]\napi_base = "http://toml:1/v1"\n')
    vault = Vault.open(ws.root)
    assert Ctx(ws.root).workspace(vault).brain_api_base is None  # reme.toml's, in the builders
    monkeypatch.setenv("REME_LLM_API_BASE", "http://env:1/v1")
    ctx = Ctx(ws.root)
    from_env = ctx.workspace(vault)
    assert from_env.brain_api_base == "http://env:1/v1" and from_env.vault is vault
    assert ctx.workspace(vault, brain_api_base="http://flag:1/v1").brain_api_base == "http://flag:1/v1"
    served = ctx.workspace(vault, serving=True)
    assert served.vault is None and served.brain_api_base == "http://env:1/v1"  # fresh scans
    settings = from_env.settings
    dream_brain, _ = build_brain(settings, brain_spec="litellm:openai/x", api_base=from_env.brain_api_base)
    merge_brain = build_consolidate_brain(settings, brain_spec="litellm:openai/x",
                                          api_base=from_env.brain_api_base)
    assert dream_brain.api_base == merge_brain.api_base == "http://env:1/v1"
    assert build_consolidate_brain(settings, brain_spec="litellm:openai/x").api_base == "http://toml:1/v1"
