"""What a person reading the vault in Obsidian asks of it: the notes related to the open
one, and the report that they opened it (reading is use, docs/spec.md §7.3.2).

Both are for the Obsidian plugin (`obsidian-plugin/`), over the local API:

* `related` — the notes that answer the open note itself: its description and body are
  the query and the note is left out. Nothing is logged: the panel fills itself each
  time a person opens a note, without being asked, so its hits are no recall hits (they
  would count towards recency, §7.3.3, for being shown beside whatever was read, and
  add eight lines to the access log at every note opened); a note opened from the
  panel is reported by `note_opened` like any other.
* `proposal_files` — what a proposal would write, file by file: the text the review view
  lets a person edit before accepting (the API's proposal detail has the diff only).
* `note_opened` — an `open` line in `meta/access_log.jsonl` (`"via": "plugin"`), the use
  the archive's recency reads (§7.3.2) and that thaws an archived note at once (§7.3.6);
  at most one per note per hour, so a person moving between notes all day does not fill
  the log, and only for digest notes (the only notes with a recency).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

from ..errors import NotFoundError, RemeError
from .models import (
    MAX_QUERY_CHARS,
    NoteOpenedRequest,
    NoteOpenedResponse,
    ProposalFiles,
    ProposalRef,
    RecallRequest,
    RelatedRequest,
    RelatedResponse,
)
from .workspace import Workspace

__all__ = ["related", "note_opened", "proposal_files", "related_query", "OPEN_EVERY",
           "PLUGIN_VIA"]

OPEN_EVERY = timedelta(hours=1)  # one `open` line per note per hour at most
PLUGIN_VIA = "plugin"  # the access log's `via` of an open the plugin reported
_TAIL_BLOCK = 64 * 1024  # the access log is read backwards in blocks of this size


# -- related ----------------------------------------------------------------------------------

def related_query(text: str, limit: int = MAX_QUERY_CHARS) -> str:
    """The recall query a note's text makes: its description, then its body without the
    frontmatter and without the lines that only name sources (`derived_from:: [[…]]` says
    where it came from, not what it says), cut at a word to `limit` characters."""
    from ..vault.note import parse

    note = parse(text, "note.md")
    description = note.frontmatter.get("description") or note.frontmatter.get("name") or ""
    lines = [line for line in note.body.splitlines()
             if line.strip() and "::" not in line.split("[[", 1)[0]]
    query = " ".join(" ".join([str(description), *lines]).split())
    limit = min(limit, MAX_QUERY_CHARS)
    if len(query) > limit:
        cut = query.rfind(" ", 0, limit)
        query = query[: cut if cut > 0 else limit]
    return query


def related(ws: Workspace, request: RelatedRequest) -> RelatedResponse:
    """The files that answer `request.path`'s own description and body, best first, the
    note itself left out. A note with no words yet (a new, empty one) has nothing
    related: the answer is empty, not an error."""
    from ..index.blas import blas_threads
    from ..index.recall import recall as run_recall
    from ..vault.layout import is_markdown, resolve_inside
    from .operations import answering_index, require_index_home

    vault = ws.open_vault()
    path = request.path
    if not is_markdown(path):
        raise RemeError(f"{path} is not a Markdown note; related notes are found for a note "
                        "(.md), e.g. digest/wiki/<name>.md.")
    full = resolve_inside(vault.root, path)
    if not full.is_file():
        raise NotFoundError(f"There is no note {path} in {vault.root.resolve()}; check the path "
                            "(it is vault-relative, e.g. digest/wiki/<name>.md).")
    try:
        query = related_query(full.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise RemeError(f"{path} is not UTF-8 text; related notes are found for a Markdown "
                        "note.") from None
    if not query:
        return RelatedResponse(path=path, hits=[])
    require_index_home(ws)
    recall_request = RecallRequest(query=query, k=request.k + 1, scope=request.scope)
    with answering_index(ws, vault, recall_request, None) as (index, options, vectors, note):
        # the note's own text finds the note first: it is no answer; and nothing is
        # logged (the module doc says why)
        options = options | {"log_access": False}
        # a note's text is a long query (up to 256 tokens for MiniLM): its one forward pass
        # on numpy's default BLAS threads took ~0.6 CPU-s a call on the demo with other
        # work running, on one thread 0.09 (index/blas.py says why; bench_plugin_related.py)
        with blas_threads(1):
            hits = [h for h in run_recall(index, query, **options) if h.path != path][: request.k]
    return RelatedResponse.model_validate({"path": path, "vectors": vectors, "note": note,
                                          "hits": [h.to_json() for h in hits]})


# -- a proposal's files ------------------------------------------------------------------------

def proposal_files(ws: Workspace, request: ProposalRef) -> ProposalFiles:
    """What a proposal would write, file by file: what a person edits before accepting
    (`POST /proposals/accept` with `edited`). Reads only."""
    from .review_ops import load_proposal, writes_text

    if not all(c.isalnum() or c == "-" for c in request.id.strip()):
        raise RemeError(f"{request.id!r} is not a proposal id; ids look like "
                        "p-20261203-101500-a1b2c3 (`proposals list` shows them).")
    proposal = load_proposal(ws, request.id.strip())
    return ProposalFiles(id=proposal.id, files=writes_text(proposal))


# -- note opened ------------------------------------------------------------------------------

def note_opened(ws: Workspace, request: NoteOpenedRequest) -> NoteOpenedResponse:
    """Log that a person opened `request.path` (an `open` line, `via: plugin`), unless an
    open of it is logged less than an hour ago. Refuses a path outside the vault (the
    request model and `resolve_inside`), one that is not a digest note and one that does
    not exist."""
    from ..consolidate.archive import OPEN_EVENT
    from ..vault.layout import is_digest_note, resolve_inside
    from ..vault.meta import as_utc, iso_utc, log_access

    vault = ws.open_vault()
    path = request.path
    if not is_digest_note(path):
        raise RemeError(f"{path} is not a digest note; only notes in digest/procedure, "
                        "digest/personal and digest/wiki have a recency to keep, so report "
                        "opens of those.")
    full = resolve_inside(vault.root, path)
    if not full.is_file():
        raise NotFoundError(f"There is no note {path} in {vault.root.resolve()}; check the path "
                            "(it is vault-relative, e.g. digest/wiki/<name>.md).")
    if vault.unwritable() is not None:
        return NoteOpenedResponse(path=path, logged=False,
                                  reason="the vault is read-only for this user: nothing is "
                                         "logged, and nothing is archived on it either")
    now = as_utc(vault.clock())
    last = _last_open(vault.root, path, since=now - OPEN_EVERY, event=OPEN_EVENT)
    if last is not None:
        return NoteOpenedResponse(path=path, logged=False, last_open=iso_utc(last),
                                  reason="opened less than an hour ago; that open counts")
    log_access(vault.root, path, now, OPEN_EVENT, via=PLUGIN_VIA)
    return NoteOpenedResponse(path=path, logged=True)


def _last_open(root: Path, path: str, *, since: datetime, event: str) -> datetime | None:
    """The latest `event` line of `path` stamped after `since` in the access log, reading
    it backwards from its end and stopping at the first line older than `since` (lines are
    appended as they happen, so the log of a year is never read for the last hour)."""
    from ..vault.meta import meta_path, parse_utc

    log = meta_path(root, "access_log", ".jsonl")
    try:
        handle = open(log, "rb")
    except FileNotFoundError:
        return None
    with handle:
        end = handle.seek(0, os.SEEK_END)
        rest = b""
        while end > 0:
            start = max(0, end - _TAIL_BLOCK)
            handle.seek(start)
            block = handle.read(end - start) + rest
            end = start
            lines = block.split(b"\n")
            rest = lines.pop(0) if start > 0 else b""  # a line cut by the block's start
            for line in reversed(lines):
                found, older = _open_in(line, path, since, event, parse_utc)
                if found is not None:
                    return found
                if older:
                    return None
        return None


def _open_in(line: bytes, path: str, since: datetime, event: str, parse_utc):
    """(the line's time when it is an `event` of `path` after `since`, whether the line is
    older than `since`) — a line that is not a JSON object with a time is neither."""
    try:
        record = json.loads(line)
    except ValueError:
        return None, False
    if not isinstance(record, dict):
        return None, False
    when = parse_utc(record.get("ts"))
    if when is None:
        return None, False
    if when <= since:
        return None, True
    if record.get("path") == path and record.get("event") == event:
        return when, False
    return None, False
