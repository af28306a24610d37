"""`index` and `recall`: the keyword + vector index of a vault, and searching it."""

from __future__ import annotations

import json

import click

from .app import EMBEDDER_OPTION, Ctx, cli
from .generate import Call, OperationCommand, dump


@cli.command(cls=OperationCommand, operations=("index",))
@EMBEDDER_OPTION
def index(obj: Ctx, call: Call, embedder: str | None):
    """Bring the keyword + vector index in .reme/ up to date.

    Only files whose content changed since the last run are re-chunked and
    re-embedded; deleted files leave no rows. The index is a cache: deleting .reme/
    and running this again gives the same results. The index records its embedder:
    this is the one command that re-embeds everything when --embedder (or reme.toml
    [recall] embedder) names another (and says so); recall and dream refuse instead.
    """
    vault = obj.open()
    obj.require_writable(vault, "index (it keeps the index in .reme/)")
    obj.warn_problems(vault)  # first: the index's own "not indexed" repeats are left out
    with obj.progress() as bar:
        data = call.run(obj.workspace(vault, embedder_spec=embedder), progress=bar.message)
    obj.warn_problems(vault)
    if call.emit(data):
        return
    if data.message:
        click.echo(data.message)
    stats = data.stats
    click.echo(
        f"Indexed {len(data.indexed)} file(s) ({data.chunks_embedded} chunks), removed "
        f"{len(data.removed)}; the index holds {stats['files']} files, {stats['chunks']} chunks "
        f"({stats['embedder']})."
    )


@cli.command(cls=OperationCommand, operations=("recall", "recall_batch"))
@click.option(
    "--queries",
    "queries_file",
    type=click.File("r", encoding="utf-8"),
    help='JSON lines {"id", "query"} in; out, one answer {"id", "query", "hits": [...], "vectors", …} per '
    "line (JSON) or each query with its hits (text).",
)
@EMBEDDER_OPTION
def recall(obj: Ctx, call: Call, queries_file, embedder):
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

    if (call.fields["query"] is None) == (queries_file is None):
        raise RemeError('Give either a QUERY or --queries FILE.jsonl (one {"id", "query"} per line).')
    vault = obj.open()
    ws = obj.workspace(vault, embedder_spec=embedder)
    if queries_file is None:
        request = call.request()
        obj.warn_problems(vault)
        with obj.progress() as bar:
            answer = call.run(ws, request, progress=bar.message)
        if not call.emit(answer):
            _print_notices(answer.notices)
            _print_hits(answer.hits)
            _print_vectors(answer)
        return
    queries = [{"id": qid, "query": text} for qid, text in _read_queries(queries_file)]
    if not queries:
        raise RemeError("The queries file holds no query; write one {\"id\", \"query\"} per line.")
    request = call.request("recall_batch", queries=queries)
    obj.warn_problems(vault)
    with obj.progress() as bar:
        answers = call.run(ws, request, progress=bar.message, name="recall_batch")
    _print_notices(answers.notices)  # JSON lines are one per query: the notice goes to stderr
    results = answers.results
    rows = dump(call.operation("recall_batch"), answers)["results"]
    for result, row in zip(results, rows, strict=True):
        if call.json:  # one answer of the response model a line, as it comes
            click.echo(json.dumps(row, ensure_ascii=False))
        else:
            click.echo(f"[{result.id}] {result.query}")
            _print_hits(result.hits)
    if results and not call.json:
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

