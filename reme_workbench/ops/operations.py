"""The operations a client may call, defined once: plain functions over the library.

Each takes a `Workspace` (the vault's root, its settings, and the injected embedder and
clock) and a request model, and returns a response model (`ops.models`). Front ends —
the CLI, the local HTTP API, the MCP server — only translate: they never reach past
these functions into the library, so every client gets the same rules. Writes go
through the proposal queue and its checks, as they do for the CLI; nothing here writes a
file directly.

Errors are `RemeError` with a message that says what to fix — a bad path, an unknown
proposal, a stale proposal or a check that fails on the files as they are now (the
proposal then keeps its state and says why).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import NotFoundError, RemeError
from .models import (
    AcceptRequest,
    DailyEntryRequest,
    DailyEntryResult,
    HealthRequest,
    HealthResponse,
    ImportRequest,
    ImportResponse,
    LinkRef,
    NoteContext,
    NoteRequest,
    ProposalDetail,
    ProposalsRequest,
    ProposalSummary,
    RecallBatchRequest,
    RecallBatchResponse,
    RecallRequest,
    RecallResponse,
    RejectRequest,
)
from .workspace import Workspace

__all__ = ["Workspace", "build_request", "recall", "recall_batch", "note_context", "list_proposals", "show_proposal",
           "accept_proposal", "reject_proposal", "health", "import_notes", "append_daily", "render_entry",
           "require_writable", "checked_proposal_id", "proposal_fields", "Replanned", "replan_stale",
           "answering_index", "require_index_home"]


def build_request(model, **fields):
    """`model(**fields)`, with a validation error turned into one `RemeError` that names
    each bad field — for front ends whose callers do not read pydantic's errors (the CLI,
    MCP tools)."""
    from pydantic import ValidationError

    try:
        return model(**fields)
    except ValidationError as exc:
        # pydantic words a validator's own message "Value error, …": the message is ours
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors())
        raise RemeError(f"Invalid arguments: {problems}.") from None


def require_writable(vault, what: str, *,
                     readers: str = "only read it: note context, proposals list / show, "
                                    "health without fix") -> None:
    """Stop with one line before `what` writes to a vault this user may only read; `readers`
    says what the caller can do instead (a front end names its own read-only commands)."""
    folder = vault.unwritable()
    if folder is not None:
        raise RemeError(f"{what} writes to the vault, but {vault.root} is read-only for this "
                        f"user ({folder}/ may not be written); make it writable (e.g. `chmod -R "
                        f"u+w {vault.root}`), or {readers}.")


# -- recall ---------------------------------------------------------------------------------

def recall(ws: Workspace, request: RecallRequest,
           progress: Callable[[int, int, str], None] | None = None) -> RecallResponse:
    """The files that answer the query, best first: keyword + vector search fused, then
    linked neighbours. Keyword first: every new or changed file is found by keyword at
    once; vectors are what the index has (`answering_index`). Logs every hit to the
    access log (a recalled note is not archived)."""
    from ..index.recall import recall as run_recall

    vault = ws.open_vault()
    require_index_home(ws)
    with answering_index(ws, vault, request, progress) as (index, options, vectors, note):
        hits = run_recall(index, request.query, **options)
    return RecallResponse.model_validate({"query": request.query, "vectors": vectors,
                                          "note": note, "hits": [h.to_json() for h in hits],
                                          "notices": _home_notices(ws)})


def recall_batch(ws: Workspace, request: RecallBatchRequest,
                 progress: Callable[[int, int, str], None] | None = None) -> RecallBatchResponse:
    """Many queries with the same options in one pass (the index brought up to date and
    the graph set up once); every hit is logged as `recall` logs it."""
    from ..index.recall import recall_batch as run_batch

    tell = progress or (lambda _d, _t, _m: None)
    vault = ws.open_vault()
    require_index_home(ws)
    batch = [(q.id, q.query) for q in request.queries]
    with answering_index(ws, vault, request, progress) as (index, options, vectors, note):
        answers = run_batch(index, batch, progress=lambda d, t: tell(d, t, f"recall: {d}/{t} queries"),
                            **options)
        results = [{"id": qid, "query": text, "hits": [h.to_json() for h in hits],
                    "vectors": vectors, "note": note}
                   for (qid, text), (_, hits) in zip(batch, answers, strict=True)]
    return RecallBatchResponse.model_validate({"results": results, "vectors": vectors, "note": note,
                                               "notices": _home_notices(ws)})


def _home_notices(ws: Workspace) -> list[str]:
    """The line that says a read-only vault's index and access log are kept elsewhere."""
    notice = ws.index_home().notice
    return [notice] if notice else []


def require_index_home(ws: Workspace) -> None:
    """Stop a search of a read-only vault whose index has nowhere to go, with one line."""
    problem = ws.index_home().problem
    if problem:
        raise RemeError(problem)


# a few edited notes' vectors are embedded before a recall answers; more wait (see below)
RECALL_EMBEDS = 64


@contextmanager
def answering_index(ws: Workspace, vault, request, progress):
    """(index, recall's options, "12/37 files" with vectors, a note or None) for a recall
    that never waits on the encoder.

    * Without a background indexer (the CLI, a library call): every changed file by
      keyword (`refresh(vectors=False)`), then the vectors that wait only when they are
      few (`RECALL_EMBEDS` chunks: an edited note or two) or `mode` is "vector" (no
      keyword to fall back on); `index` or the next dream embeds the rest.
    * With one (a server) the request takes the index only if it is free, and the
      thread embeds. While it reads a vault for the first time the request reads no
      file itself: it searches what the thread has indexed, without following links
      (that needs the whole vault read), and says so."""
    background = ws.background_index
    if background is not None and background.running and background.progress().first_read:
        from .indexing import open_unread_index

        with open_unread_index(ws) as index:
            options = _recall_options(ws, vault, request, graph=None) | {"traverse_depth": 0}
            cov = index.coverage()
            read = background.progress().to_json()["keyword"] or "0 files"
            yield index, options, cov.describe(), (
                f"the vault is being read for the first time ({read} by keyword so far, "
                f"vectors for {cov.describe()}); links are followed once it is read, and "
                "GET /index/status says how far it is.")
        return
    with ws.index(vault) as index:
        if background is not None and background.running:
            index.refresh(vectors=False, wait=False)  # never behind the indexer's batch
            filler = "they are being embedded in the background (GET /index/status)"
        else:
            index.refresh(progress=indexing_progress(progress), vectors=False)
            waiting = index.coverage().pending_chunks
            if waiting and (request.mode == "vector" or waiting <= RECALL_EMBEDS):
                tell = progress or (lambda _d, _t, _m: None)
                index.embed_pending(progress=lambda d, t: tell(d, t, f"embedding: {d}/{t} chunks"))
            filler = "`reme-workbench index` (or the next dream) embeds them"
        cov = index.coverage()
        note = None if cov.complete else (
            f"vectors for {cov.describe()}; the other files were searched by keyword only "
            f"— {filler}.")
        yield index, _recall_options(ws, vault, request, graph=vault.graph), cov.describe(), note


def indexing_progress(progress: Callable[[int, int, str], None] | None):
    """VaultIndex.refresh's `progress(done, total)` as the operations' (done, total, text)."""
    if progress is None:
        return None
    return lambda done, total: progress(done, total, f"indexing: {done}/{total} files")


def _recall_options(ws: Workspace, vault, request, *, graph) -> dict[str, Any]:
    options = ws.settings.recall
    return dict(k=request.k, scope=request.scope, mode=request.mode, graph=graph,
                traverse_depth=options.traverse_depth, rrf_k=options.rrf_k,
                include_archived=request.include_archived, now=vault.clock(),
                fusion=options.fusion)


# -- note context ---------------------------------------------------------------------------

def note_context(ws: Workspace, request: NoteRequest) -> NoteContext:
    """A digest note with what surrounds it: its frontmatter, the notes it links to and
    that link to it (with predicates), the material it came from, its community and the
    community's hub, its recency score and whether it was archived when opened. Changes
    no file but the access log: the opening is logged (`open`, docs/spec.md §7.3.6), so
    an archived note a person or an agent opens is found by recall again at once (on a
    read-only vault nothing is logged)."""
    from ..consolidate.abstract import hub_coverage, load_communities
    from ..consolidate.archive import OPEN_EVENT
    from ..review.archive import archive_overview
    from ..vault.layout import is_digest_note, resolve_inside
    from ..vault.note import parse

    vault = ws.open_vault()
    path = request.path
    if not is_digest_note(path):
        raise RemeError(f"{path} is not a digest note; give a path like digest/wiki/<name>.md "
                        "(material in daily/ and resource/ has no note context).")
    full = resolve_inside(vault.root, path)
    record = vault.scan.records.get(path)
    if record is None or not full.is_file():
        raise NotFoundError(f"There is no note {path} in {vault.root.resolve()}; check the path "
                        "(`reme-workbench recall` finds notes by what they say).")
    if not record.readable:
        raise RemeError(f"{path} cannot be read as a note (binary, not UTF-8 or over "
                        "[vault] max_note_bytes); `reme-workbench status` lists such files.")
    note = parse(full.read_text(encoding="utf-8"), path)
    graph = vault.graph
    g = graph.graph
    outbound = sorted({(t, d.get("predicate")) for _, t, d in g.out_edges(path, data=True)
                       if t != path}, key=lambda r: (r[0], r[1] or ""))
    inbound = sorted({(s, d.get("predicate")) for s, _, d in g.in_edges(path, data=True)
                      if s != path}, key=lambda r: (r[0], r[1] or ""))
    provenance = sorted({(link.target, link.predicate) for link in graph.provenance.get(path, ())},
                        key=lambda r: (r[0], r[1] or ""))
    communities, _, _ = load_communities(vault.root)
    community = (communities or {}).get(path)
    members = [p for p, c in (communities or {}).items() if c == community] if community else []
    hub = None
    if members:
        best, share = hub_coverage(members, graph)
        hub = best if share >= ws.settings.abstract.hub_coverage else None
    archive = archive_overview(vault, default_threshold=ws.settings.archive.threshold)  # meta, validated
    score = archive.scores.get(path)
    if vault.unwritable() is None:
        _log_opened(vault, path, OPEN_EVENT)
    frontmatter = {str(k): v for k, v in note.frontmatter.items()}
    return NoteContext(
        path=path,
        name=_text_or_none(frontmatter.get("name")),
        description=_text_or_none(frontmatter.get("description")),
        frontmatter=_jsonable(frontmatter),
        outbound=[LinkRef(path=t, predicate=p) for t, p in outbound],
        inbound=[LinkRef(path=s, predicate=p) for s, p in inbound],
        provenance=[LinkRef(path=t, predicate=p) for t, p in provenance],
        community=community,
        community_size=len(members) if members else None,
        hub=hub,
        recency=min(1.0, max(0.0, score)) if score is not None else None,
        archived=path in archive.archived,
    )


def _log_opened(vault, path: str, event: str) -> None:
    """One access-log line for a note opened; a line that cannot be written is a warning
    (docs/spec.md §4.8.3): the answer stands."""
    import warnings

    from ..vault.meta import log_access

    try:
        log_access(vault.root, path, vault.clock(), event)
    except (OSError, RemeError) as exc:
        warnings.warn(f"meta/access_log.jsonl not written ({exc}).", RuntimeWarning, stacklevel=3)


def _text_or_none(value) -> str | None:
    return str(value) if value is not None and str(value).strip() else None


def _jsonable(value):
    """Frontmatter as JSON: YAML dates and other scalars become strings."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


# -- proposals ------------------------------------------------------------------------------

def proposal_fields(p) -> dict:
    """The fields of a `ProposalSummary` of proposal `p`."""
    return {"id": p.id, "state": p.state, "action": p.action, "summary": p.summary,
            "files": list(p.paths), "updated_at": p.updated_at, "error": p.error}


def list_proposals(ws: Workspace, request: ProposalsRequest) -> list[ProposalSummary]:
    """Proposals, oldest first, optionally of one state and action prefix. Reads only."""
    from ..proposals import ProposalQueue

    rows = ProposalQueue(ws.open_vault()).list(request.state)
    if request.action:
        rows = [p for p in rows if p.action.startswith(request.action)]
    return [ProposalSummary(**proposal_fields(p)) for p in rows]


def show_proposal(ws: Workspace, proposal_id: str) -> ProposalDetail:
    """One proposal with its story (inputs, votes, gate values, checks, the brain's
    replies) and a diff of every file it writes. Reads only."""
    from ..proposals import ProposalQueue

    queue = ProposalQueue(ws.open_vault())
    proposal = queue.load(queue.resolve(checked_proposal_id(proposal_id)))
    return ProposalDetail(**proposal_fields(proposal), story=_jsonable(dict(proposal.story)),
                          diff=queue.diff(proposal))


def accept_proposal(ws: Workspace, request: AcceptRequest) -> ProposalSummary:
    """Apply a pending or stale proposal (with a person's edits, if any): its checks run
    again on the files as they are now, and nothing is written unless they all pass. The
    answer says what happened: `applied`; `rejected` with the failed checks in `error`;
    `stale` when a file changed since it was planned. The decision is taken once
    (docs/spec.md §3.7.4): a proposal another accept applied first is answered as it is,
    `applied`, with `note` saying so, and nothing is written again.

    A dream proposal whose new note was created meanwhile (another dream took the slug,
    docs/spec.md §3.2.5) is planned again at once against that note — a corroborate, or a
    create under another slug — and so is a merge whose loser a note links since it was
    planned (§7.7.5): the new proposal waits for the person; the answer is the old
    proposal, rejected as superseded, with `replanned_as` naming the new one. The person's
    edits go with it when the new plan creates the note they wrote (their text, under the
    new slug); otherwise `note` says why not and where they are kept."""
    from ..proposals import ProposalQueue
    from ..vault.store import Create

    vault = ws.open_vault()
    require_writable(vault, "accept")
    queue = ProposalQueue(vault)
    outcome = queue.accept_once(queue.resolve(checked_proposal_id(request.id)), edited=request.edited)
    done = outcome.proposal
    if outcome.already_applied:
        note = (f"{done.id} was already applied (at {done.updated_at}), by another accept; "
                "nothing was written this time.")
        if request.edited:
            note += (" Your edits were not applied: it landed as it was; edit the notes by "
                     f"hand, or revert it (`reme-workbench proposals revert {done.id}`).")
        return ProposalSummary(**proposal_fields(done), note=note)
    lost = [op.path for op in done.ops if isinstance(op, Create)
            and vault.store.read(op.path) is not None]
    if done.state == "stale" and done.action.startswith("dream.") and lost:
        why = f"{', '.join(lost)} was created meanwhile"
    elif done.state == "stale" and done.action == "consolidate.merge" and done.story.get("stale_by"):
        why = done.error or "a note links the loser since planning"  # retargets_every_link
    else:
        return ProposalSummary(**proposal_fields(done))
    try:
        again = replan_stale(ws, done.id)
    except RemeError as exc:  # e.g. the brain cannot be reached: say so, as it is now
        now = queue.load(done.id)
        kept = (f" Your edits are kept in {now.id} (`reme-workbench proposals show {now.id}`)."
                if request.edited else "")
        return ProposalSummary(**{**proposal_fields(now), "error": f"{done.error} Planning it again "
                                  f"failed: {exc}{kept}"})
    told = f"superseded: {why}; {again.message}"
    old = queue.load(done.id)
    old = old.with_state(old.state, now=old.updated_at or vault.clock().isoformat(), error=told)
    queue.save(old)  # the record names its successor
    return ProposalSummary(**proposal_fields(old), replanned_as=list(again.new_ids), note=again.note)


@dataclass(frozen=True)
class Replanned:
    """What planning a stale proposal again did: the old one is rejected as superseded;
    `new_ids` wait for a person (empty: nothing to propose any more); `note` says what
    became of a person's edits kept in it (None: it carried none)."""

    old_id: str
    new_ids: tuple[str, ...]
    note: str | None

    @property
    def message(self) -> str:
        told = f" {self.note[0].upper()}{self.note[1:]}" if self.note else ""
        if not self.new_ids:
            return (f"{self.old_id} rejected: planning it again proposed nothing (the change is "
                    f"no longer needed, or its gates no longer pass).{told}")
        return (f"{self.old_id} planned again as {', '.join(self.new_ids)}; review the new "
                f"proposal.{told}")


def replan_stale(ws: Workspace, proposal_id: str) -> Replanned:
    """Plan a stale proposal again from the files as they are now, by the phase that made
    it (`dream.run.replan_unit`, `consolidate.planning.replan_proposal`); the new proposal
    waits for the person (whatever `[proposals] auto_apply` says) and the stale one is
    rejected as superseded. The brains and the index are the workspace's.

    A person's edits kept in the stale proposal (given with `accept`) are carried into the
    new one when it creates the note they wrote, else `note` says why not and where they
    are kept (`proposals.person_edits`)."""
    from ..consolidate.planning import REPLANNED_ACTIONS, replan_proposal
    from ..dream.run import replan_unit
    from ..proposals import Policy, ProposalQueue
    from ..proposals.person_edits import carry_person_edits

    vault = ws.open_vault()
    queue = ProposalQueue(vault)
    old = queue.load(queue.resolve(checked_proposal_id(proposal_id)))
    if old.state != "stale":
        raise RemeError(f"{old.id} is {old.state}; only a stale proposal is planned again "
                        "(accept or reject a pending one).")
    if not (old.action.startswith("dream.") or old.action in REPLANNED_ACTIONS):
        raise RemeError(f"{old.id} is a {old.action} proposal, which cannot be planned again "
                        "here; run the command that made it again.")
    # every action skips a subject whose proposal still waits: the stale one goes first;
    # only while still stale (another process may have planned it again meanwhile)
    queue.reject(old.id, "superseded: planned again from the files as they are now",
                 only_if=("stale",))
    policy = Policy.hold_everything()
    if old.action.startswith("dream."):
        brain, _ = ws.get_dream_brain()
        with ws.index(vault) as index:
            new = replan_unit(vault, brain, index, ws.settings, old, policy=policy)
    else:
        new = replan_proposal(vault, ws.get_consolidate_brain(), ws.settings, old, policy=policy)
    return Replanned(old.id, tuple(new), carry_person_edits(queue, old, new))


def reject_proposal(ws: Workspace, request: RejectRequest) -> ProposalSummary:
    """Keep a proposal as rejected, with the reason; nothing in the notes changes."""
    from ..proposals import ProposalQueue

    vault = ws.open_vault()
    require_writable(vault, "reject")
    queue = ProposalQueue(vault)
    return ProposalSummary(**proposal_fields(queue.reject(queue.resolve(checked_proposal_id(request.id)), request.reason)))


def checked_proposal_id(value: str) -> str:
    """`value` as a proposal id, or one line that says what one looks like."""
    text = (value or "").strip()
    if not 3 <= len(text) <= 64 or not all(c.isalnum() or c == "-" for c in text):
        raise RemeError(f"{value!r} is not a proposal id; ids look like p-20261203-101500-a1b2c3 "
                        "(`proposals list` shows them).")
    return text


# -- health ---------------------------------------------------------------------------------

def health(ws: Workspace, request: HealthRequest | None = None) -> HealthResponse:
    """D1 broken links and D10 provenance problems, and the links to notes not yet
    written (never a fault, §7.5.1). Reads only, unless `fix` or `report`.

    `fix` (docs/spec.md §7.5.3) proposes, and writes no note itself: short links in
    digest/ that Obsidian resolves become a `health.normalize` proposal that writes them
    as vault paths (nothing is lost), and links a change made unresolvable a
    `health.unlink` proposal per note; each waits for a person, even when `[proposals]
    auto_apply` names it, since both rewrite a person's lines and only a change that adds
    lines applies without one (§3.7.3). daily/ is material and only reported. `report`
    writes audit/<date>/health_links.md (skipped with a notice when the vault is
    read-only); `fix` or `report` also record what resolves now
    (meta/resolved_links.json), so a link that stops resolving later is told from one
    never written."""
    from ..proposals import Policy
    from ..proposals.normalize import propose_normalization
    from ..proposals.unlink import propose_unlinks
    from ..vault.layout import is_digest_note

    request = request or HealthRequest()

    def in_digest(r) -> int:
        return sum(1 for b in r.broken_links if is_digest_note(b.source))

    vault = ws.open_vault()
    if request.fix:
        require_writable(vault, "health with fix")
    report = vault.health()
    normalized, normalize, unlink, fixed = 0, None, None, 0
    if request.fix:
        policy = Policy(frozenset(ws.settings.proposals.auto_apply))
        rewrite = propose_normalization(vault, report, policy)
        if rewrite is not None:
            normalize = rewrite.to_json()
            if rewrite.state == "applied":
                report = vault.health()
                normalized = rewrite.links
        before = in_digest(report)
        if before:
            outcome = propose_unlinks(vault, report, policy)
            if outcome is not None:
                unlink = outcome.to_json()
                if outcome.state == "applied":
                    report = vault.health()
                    fixed = before - in_digest(report)
    written, notices = None, []
    if request.report and vault.unwritable() is not None:
        notices.append(f"{vault.root} is read-only for this user, so audit/<date>/health_links.md "
                       "was not written.")
    elif request.report:
        written = vault.write_health_report(report)
    if (request.report or request.fix) and vault.unwritable() is None:
        vault.record_resolved_links(report)
    return HealthResponse(ok=report.ok, **report.to_json(), normalized=normalized,
                          normalize=normalize, unlink=unlink, fixed=fixed,
                          left_in_daily=len(report.broken_links) - in_digest(report),
                          report=written, notices=notices)


# -- import ---------------------------------------------------------------------------------

def import_notes(ws: Workspace, request: ImportRequest) -> ImportResponse:
    """Adopt a person's Obsidian vault (docs/spec.md §3.6.5): its notes into
    digest/<bucket>/<their folders>/ with their links as vault paths and their
    frontmatter, the originals kept in resource/<day>/ as provenance and added to
    Obsidian's "Excluded files" (so it shows each note once), in one changeset; recency
    starts now."""
    from obsidian_bridge import plan_excluded

    from ..vault.adopt import import_vault

    vault = ws.open_vault()
    if not request.dry_run:
        require_writable(vault, "import")
    excluded = []  # the plan of the last (re)planning: what lands with the import

    def hide_originals(folder: str):
        excluded[:] = [plan_excluded(vault, [folder])]
        return excluded[0].ops

    plan = import_vault(vault, Path(request.source), bucket=request.bucket,
                        dry_run=request.dry_run, also=hide_originals)
    obsidian = excluded[0]
    return ImportResponse(**plan.to_json(), dry_run=request.dry_run,
                          excluded_in_obsidian=list(obsidian.excluded),
                          notices=[] if obsidian.ops else [obsidian.message])


# -- material -------------------------------------------------------------------------------

def render_entry(existing: bytes | None, text: str, heading: str) -> bytes:
    """The log with one more entry: the old bytes unchanged, then a blank line, `## heading`
    and the text. Pure (docs/spec.md §3.6.4)."""
    entry = f"## {heading}\n\n{text.strip()}\n".encode()
    if not existing:
        return entry
    gap = b"\n" if existing.endswith(b"\n") else b"\n\n"
    return existing + gap + entry


def append_daily(ws: Workspace, request: DailyEntryRequest) -> DailyEntryResult:
    """Append an entry to `daily/<day>/<log>.md` (created when absent): the one way a
    client writes material, and append-only — the bytes already there never change
    (docs/spec.md §3.6.4). Dream reads it like any other daily log."""
    from ..vault.slug import slugify
    from ..vault.store import Changeset, Create, Edit

    vault = ws.open_vault()
    require_writable(vault, "append_daily")
    now = vault.clock()
    day = request.day or now.date()
    if day > now.date():
        raise RemeError(f"{day} is in the future; append to today's log (leave `day` out) or "
                        "to an earlier day.")
    slug = slugify(request.log) or "log"
    rel = f"daily/{day.isoformat()}/{slug}.md"
    heading = f"{now:%H:%M}" + (f" {request.title.strip()}" if request.title and request.title.strip() else "")
    heading = " ".join(heading.split())  # one line, whatever the title held
    seen: dict = {}

    def plan() -> Changeset:
        found = vault.store.read(rel)
        old = found[0] if found else None
        new = render_entry(old, request.text, heading)
        if old is not None and not new.startswith(old):  # the rule, checked, not assumed
            raise RemeError(f"Appending to {rel} would change its bytes; nothing was written.")
        seen.update(old=old, new=new)
        op = Create(rel, new) if found is None else Edit(rel, new, found[1])
        return Changeset((op,), description=f"append_daily {rel}", allow_sources=True)

    vault.apply_planned(plan)
    old, new = seen["old"], seen["new"]
    return DailyEntryResult(path=rel, created=old is None,
                            appended_bytes=len(new) - len(old or b""), size=len(new))
