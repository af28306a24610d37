"""The operations the Obsidian plugin calls as a person reads (`ops/reading.py`): the
notes related to the open note, and reading as use — an `open` line in the access log,
one per note per hour, never for a path outside the vault."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from reme_workbench.errors import NotFoundError, RemeError
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.ops import Workspace
from reme_workbench.ops.reading import (
    NoteOpenedRequest,
    RelatedRequest,
    note_opened,
    related,
    related_query,
)
from reme_workbench.server.app import create_app
from tests.conftest import FIXED_NOW

MAT = "daily/2026-10-05/log.md"
POOL = "digest/wiki/pool-size.md"
PORT = "digest/wiki/pgbouncer-port.md"
TIMEOUT = "digest/wiki/statement-timeout.md"
BAKING = "digest/personal/sourdough.md"


def note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\nderived_from:: [[{MAT}]]\n"


FILES = {
    MAT: "09:00 raised the pool to 40\n",
    POOL: note("pool-size", "The payments-api database connection pool size",
               "The payments-api database pool holds 10 connections behind PgBouncer."),
    PORT: note("pgbouncer-port", "PgBouncer listens on port 6432",
               "PgBouncer, the database connection pooler, listens on 6432."),
    TIMEOUT: note("statement-timeout", "The database statement timeout is 5s",
                  "Database statements time out after 5s on payments-api."),
    BAKING: note("sourdough", "Sourdough starter feeding", "Feed the starter flour and water daily."),
}


class Clock:
    """A clock the test moves forward."""

    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self):
        return self.now


@pytest.fixture
def ws(make_vault):
    return Workspace(make_vault(FILES), embedder=HashingEmbedder(), clock=Clock())


def access_log(root) -> list[dict]:
    path = root / "meta" / "access_log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_related_notes_leave_the_note_out_and_rank_its_neighbours_first(ws):
    answer = related(ws, RelatedRequest(path=POOL, k=3))
    paths = [h.path for h in answer.hits]
    assert POOL not in paths and len(paths) <= 3
    assert paths[0] in (PORT, TIMEOUT) and BAKING not in paths[:2]
    # a panel that fills itself is no recall: nothing is logged
    assert access_log(ws.root) == []


def test_related_query_is_description_and_body_without_sources():
    text = note("n", "What the note says", "First line.\n\nsee:: [[digest/wiki/x.md]]\nLast [[link]].")
    assert related_query(text) == "What the note says First line. Last [[link]]."
    long = note("n", "d", "word " * 1000)
    assert len(related_query(long)) <= 2000 and related_query(long).endswith("word")
    assert len(related_query(long, limit=100)) <= 100


def test_related_refuses_what_is_not_a_note_of_the_vault(ws):
    with pytest.raises(NotFoundError, match="There is no note"):
        related(ws, RelatedRequest(path="digest/wiki/nothing.md"))
    with pytest.raises(RemeError, match="not a Markdown note"):
        related(ws, RelatedRequest(path="meta/communities.json"))
    with pytest.raises(ValidationError, match="relative to the vault"):
        RelatedRequest(path="/etc/passwd")
    with pytest.raises(ValidationError, match=r"'\.\.'"):
        RelatedRequest(path="digest/../../outside.md")


def test_an_empty_note_has_no_related_notes(ws):
    (ws.root / "digest/wiki/new.md").write_text("---\nname: new\n---\n")
    assert related(ws, RelatedRequest(path="digest/wiki/new.md")).hits == []


def test_note_opened_logs_one_open_per_note_per_hour(ws):
    first = note_opened(ws, NoteOpenedRequest(path=POOL))
    assert first.logged
    opens = [r for r in access_log(ws.root) if r["event"] == "open"]
    assert opens == [{"ts": "2026-11-02T09:30:00Z", "path": POOL, "event": "open", "via": "plugin"}]
    ws.clock.now += timedelta(minutes=59)
    again = note_opened(ws, NoteOpenedRequest(path=POOL))
    assert not again.logged and again.last_open == "2026-11-02T09:30:00Z"
    assert note_opened(ws, NoteOpenedRequest(path=PORT)).logged  # another note: its own hour
    ws.clock.now += timedelta(minutes=2)
    assert note_opened(ws, NoteOpenedRequest(path=POOL)).logged
    assert [r["path"] for r in access_log(ws.root) if r["event"] == "open"] == [POOL, PORT, POOL]


def test_note_opened_reads_the_log_backwards_past_other_lines(ws):
    """An open an hour's lines back is found across block boundaries of the backward read."""
    note_opened(ws, NoteOpenedRequest(path=POOL))
    log = ws.root / "meta" / "access_log.jsonl"
    with log.open("a") as out:  # 3,000 later recall lines (~300 KB): several 64 KiB blocks
        for i in range(3000):
            out.write(json.dumps({"ts": "2026-11-02T09:40:00Z", "path": PORT, "event": "recall",
                                  "query": "q" * 40, "rank": i}) + "\n")
    ws.clock.now += timedelta(minutes=30)
    assert not note_opened(ws, NoteOpenedRequest(path=POOL)).logged


def test_an_open_thaws_an_archived_note_for_recall(ws):
    """The open is the use the archive reads: an archived note opened is found again."""
    from reme_workbench.ops import RecallRequest, recall

    (ws.root / "meta" / "archived.json").write_text(json.dumps(
        {"version": 1, "computed_at": "2026-10-20T12:00:00Z", "archived": [PORT],
         "access_log_bytes": 0}))
    assert PORT not in [h.path for h in recall(ws, RecallRequest(query="pgbouncer 6432")).hits]
    note_opened(ws, NoteOpenedRequest(path=PORT))
    assert PORT in [h.path for h in recall(ws, RecallRequest(query="pgbouncer 6432")).hits]


def test_note_opened_refuses_paths_outside_the_vault_and_non_notes(ws, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    (ws.root / "digest/wiki/link.md").symlink_to(outside)
    with pytest.raises(RemeError, match="symlink|outside"):
        note_opened(ws, NoteOpenedRequest(path="digest/wiki/link.md"))
    with pytest.raises(ValidationError):
        NoteOpenedRequest(path="../outside.md")
    with pytest.raises(RemeError, match="not a digest note"):
        note_opened(ws, NoteOpenedRequest(path=MAT))
    with pytest.raises(NotFoundError):
        note_opened(ws, NoteOpenedRequest(path="digest/wiki/nothing.md"))
    assert [r for r in access_log(ws.root) if r["event"] == "open"] == []


def test_the_routes_answer_over_http(ws):
    client = TestClient(create_app(ws), base_url="http://127.0.0.1")
    answer = client.post("/related", json={"path": PORT, "k": 2})
    assert answer.status_code == 200 and PORT not in [h["path"] for h in answer.json()["hits"]]
    assert client.post("/note/opened", json={"path": PORT}).json()["logged"] is True
    refused = client.post("/note/opened", json={"path": "../../etc/passwd"})
    assert refused.status_code == 422
    missing = client.post("/note/opened", json={"path": "digest/wiki/nothing.md"})
    assert missing.status_code == 404 and "There is no note" in missing.json()["error"]


def _pending(ws) -> str:
    from reme_workbench.proposals import Policy, ProposalQueue
    from reme_workbench.vault.checks import CheckSpec
    from reme_workbench.vault.store import Edit
    from reme_workbench.vault.vault import Vault

    vault = Vault.open(ws.root, clock=ws.clock)
    queue = ProposalQueue(vault)
    _, stamp = vault.store.read(POOL)
    new = FILES[POOL].replace("holds 10 connections", "holds 40 connections")
    proposal = queue.new("dream.refine", "refine pool-size", [Edit(POOL, new.encode(), stamp)],
                         checks=[CheckSpec("only_paths", {"paths": [POOL]})],
                         story={"material": MAT, "flavor": "REFINE"})
    return queue.submit(proposal, Policy()).id


def test_proposal_files_are_what_the_proposal_would_write(ws):
    from reme_workbench.ops import ProposalRef
    from reme_workbench.ops.reading import proposal_files

    pid = _pending(ws)
    answer = proposal_files(ws, ProposalRef(id=pid[:12]))  # a unique prefix will do
    assert answer.id == pid
    assert answer.files == {POOL: FILES[POOL].replace("holds 10 connections", "holds 40 connections")}
    client = TestClient(create_app(ws), base_url="http://127.0.0.1")
    assert client.get(f"/proposals/{pid}/files").json()["files"][POOL].count("holds 40") == 1
    missing = client.get("/proposals/p-20990101-000000-aaaaaa/files")
    assert missing.status_code == 404, missing.text
    assert client.get("/proposals/no%20such/files").status_code == 400
