"""`index` and `recall`: the keyword + vector index of a vault, and searching it."""

from __future__ import annotations

import json

import click

from .app import EMBEDDER_OPTION, Ctx, cli, emit_json, output_options, wants_json


@cli.command()
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again from the files.")
@EMBEDDER_OPTION
@output_options
@click.pass_obj
def index(obj: Ctx, rebuild: bool, embedder: str | None, as_json):
    """Bring the keyword + vector index in .reme/ up to date.

    Only files whose content changed since the last run are re-chunked and
    re-embedded; deleted files leave no rows. The index is a cache: deleting .reme/
    and running this again gives the same results. The index records its embedder:
    this is the one command that re-embeds everything when --embedder (or reme.toml
    [recall] embedder) names another (and says so); recall and dream refuse instead.
    """
    from ..ops import IndexRequest, build_index, build_request

    vault = obj.open()
    obj.require_writable(vault, "index (it keeps the index in .reme/)")
    obj.warn_problems(vault)  # first: the index's own "not indexed" repeats are left out
    with obj.progress() as bar:
        data = build_index(obj.workspace(vault, embedder_spec=embedder),
                           build_request(IndexRequest, rebuild=rebuild), progress=bar.message)
    obj.warn_problems(vault)
    if wants_json(as_json):
        emit_json(data.model_dump(mode="json"))
        return
    if data.message:
        click.echo(data.message)
    stats = data.stats
    click.echo(
        f"Indexed {len(data.indexed)} file(s) ({data.chunks_embedded} chunks), removed "
        f"{len(data.removed)}; the index holds {stats['files']} files, {stats['chunks']} chunks "
        f"({stats['embedder']})."
    )


@cli.command()
@click.argument("query", required=False)
@click.option("-k", "k", default=10, show_default=True, help="How many files to return.")
@click.option(
    "--scope",
    type=click.Choice(["digest", "sources", "all"]),
    default="digest",
    show_default=True,
    help="digest notes (as every client, docs/spec.md §6.3.1), sources (daily/ + resource/), or all.",
)
@click.option(
    "--mode", type=click.Choice(["fused", "keyword", "vector"]), default="fused", show_default=True
)
@click.option("--include-archived", is_flag=True, help="Do not drop notes listed in meta/archived.json.")
@click.option(
    "--queries",
    "queries_file",
    type=click.File("r", encoding="utf-8"),
    help='JSON lines {"id", "query"} in; out, one {"id", "hits": [...], "vectors"} per '
    "line (JSON) or each query with its hits (text).",
)
@EMBEDDER_OPTION
@output_options
@click.pass_obj
def recall(obj: Ctx, query, k, scope, mode, include_archived, queries_file, embedder, as_json):
    """Find the notes and sources that answer QUERY (keyword + vector, fused by
    weighted RRF or, with reme.toml [recall] fusion = "relative", by score; then
    linked neighbours up to two hops away).

    Keyword first: a new or edited file is found by keyword at once; the vector search
    uses the vectors the index has (a few edited notes are embedded first; --mode vector
    embeds all that wait). The answer says how many files have vectors (JSON: "vectors":
    "12/37 files"); `index` or the next dream embeds the rest.

    Every hit returned is logged to meta/access_log.jsonl (it keeps notes from being
    archived). With --queries FILE.jsonl many queries run in one process. A vault you
    may only read is searched too: its index and log are kept in your cache folder
    ($XDG_CACHE_HOME/reme-workbench/...), and the answer says so once.
    """
    from ..errors import RemeError
    from ..ops import RecallBatchRequest, RecallRequest, build_request, recall_batch
    from ..ops import recall as run_recall

    if (query is None) == (queries_file is None):
        raise RemeError('Give either a QUERY or --queries FILE.jsonl (one {"id", "query"} per line).')
    vault = obj.open()
    ws = obj.workspace(vault, embedder_spec=embedder)
    options = dict(k=k, scope=scope, mode=mode, include_archived=include_archived)
    if queries_file is None:
        request = build_request(RecallRequest, query=query, **options)
        obj.warn_problems(vault)
        with obj.progress() as bar:
            answer = run_recall(ws, request, progress=bar.message)
        if wants_json(as_json):
            emit_json(answer.model_dump(mode="json"))
        else:
            _print_notices(answer.notices)
            _print_hits(answer.hits)
            _print_vectors(answer)
        return
    queries = [{"id": qid, "query": text} for qid, text in _read_queries(queries_file)]
    if not queries:
        raise RemeError("The queries file holds no query; write one {\"id\", \"query\"} per line.")
    request = build_request(RecallBatchRequest, queries=queries, **options)
    obj.warn_problems(vault)
    with obj.progress() as bar:
        answers = recall_batch(ws, request, progress=bar.message)
    _print_notices(answers.notices)  # JSON lines are one per query: the notice goes to stderr
    results = answers.results
    for result in results:
        if wants_json(as_json):
            row = {"id": result.id, "hits": [h.model_dump(mode="json") for h in result.hits],
                   "vectors": result.vectors}
            click.echo(json.dumps(row, ensure_ascii=False))
        else:
            click.echo(f"[{result.id}] {result.query}")
            _print_hits(result.hits)
    if results and not wants_json(as_json):
        _print_vectors(results[0])


def _print_notices(notices) -> None:
    for line in notices:
        click.echo(line, err=True)


def _print_vectors(answer) -> None:
    """The one line that says what the search used."""
    click.echo(answer.note or f"Searched by keyword and by meaning (vectors for {answer.vectors}).")


def _print_hits(hits) -> None:
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
    from ..errors import RemeError

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

