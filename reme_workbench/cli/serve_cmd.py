"""`serve`: the vault's local HTTP API (the plugin backend)."""

from __future__ import annotations

import click

from .app import Ctx, cli, emit_json, output_options, wants_json


def _require_serve_extra(command: str) -> None:
    """One line naming the extra when the servers' packages are not installed."""
    from importlib import import_module

    from ..errors import RemeError

    for module in ("fastapi", "uvicorn", "mcp", "anyio"):
        try:
            import_module(module)
        except ImportError:
            raise RemeError(f"`reme-workbench {command}` needs the serve extra ({module} is not "
                            "installed): pip install 'reme-workbench[serve]'.") from None


@cli.command()
@click.option("--port", type=int, default=0, show_default=True,
              help="The port on 127.0.0.1; 0 picks a free one (written to .reme/serve.json).")
@click.option("--allow-origin", "origins", multiple=True, metavar="ORIGIN",
              help="A browser origin that may call the API (repeatable); default app://obsidian.md.")
@click.pass_obj
def serve(obj: Ctx, port: int, origins: tuple[str, ...]):
    """Serve the vault's local HTTP API for an Obsidian plugin or another local client:
    recall, note context, daily entries, proposals (list, show, accept, reject), health,
    and dream / consolidate / bridge as background jobs a client polls — JSON in and out,
    the OpenAPI document at /openapi.json.

    Binds 127.0.0.1 only. Writes .reme/serve.json (mode 0600) with the port and a random
    bearer token that every request must send; one server per vault. Ctrl-C stops it.
    Refuses a body over [server] max_body_bytes (413) and closes idle and slow
    connections ([server] in reme.toml; docs/api.md says the defaults).
    Indexes the vault in the background from start-up: recall answers at once by
    keyword, vectors follow (GET /index/status says how far). Needs the serve extra
    (pip install 'reme-workbench[serve]').
    """
    _require_serve_extra("serve")
    from ..server import serve as run

    vault = obj.open()
    obj.require_writable(vault, "serve (it writes .reme/serve.json and what clients ask for)")

    def ready(info: dict) -> None:
        click.echo(f"Serving {vault.root.resolve()} at {info['url']} (pid {info['pid']}); the token is "
                   "in .reme/serve.json. Ctrl-C stops it.")

    run(vault.root, port=port, origins=origins or None, on_ready=ready,
        on_notice=lambda line: click.echo(line, err=True),
        workspace=obj.workspace(vault, serving=True))


@cli.command()
@click.pass_obj
def mcp(obj: Ctx):
    """Serve the vault to an agent over MCP (stdio): recall, recall_batch, note_context,
    append_daily, dream, consolidate, bridge, list_proposals, show_proposal,
    accept_proposal, reject_proposal, health — the same operations and checks as the HTTP
    API, and index_status. Indexes in the background as `serve` does. Configure your
    agent to launch `reme-workbench --vault PATH mcp`; stdout carries the protocol only. Needs the serve extra (pip install 'reme-workbench[serve]').
    """
    _require_serve_extra("mcp")
    from ..ops import start_background_index, stop_background_index
    from ..server.mcp_tools import create_mcp_server

    vault = obj.open()
    ws = obj.workspace(vault, serving=True)
    start_background_index(ws)  # keyword first, vectors behind, as `serve` does
    try:
        create_mcp_server(ws).run()
    finally:
        stop_background_index(ws, timeout=5.0)


@cli.command()
@click.argument("text", required=False)
@click.option("--title", help="A heading for the entry (after the time).")
@click.option("--log", "log_name", default="log", show_default=True,
              help="Which log of the day: daily/<day>/<log>.md (made a slug).")
@click.option("--day", help="The day's folder, YYYY-MM-DD; default today.")
@output_options
@click.pass_obj
def append(obj: Ctx, text: str | None, title: str | None, log_name: str, day: str | None,
           as_json):
    """Append TEXT (or standard input, with no TEXT or TEXT "-") as an entry to today's daily
    log, daily/<day>/<log>.md: the way an agent or a script adds material. Append-only:
    what the log holds is never changed. `reme-workbench dream` turns it into notes.
    """
    import sys

    from ..ops import DailyEntryRequest, append_daily, build_request

    if text is None or text == "-":
        text = sys.stdin.read()
    vault = obj.open()
    request = build_request(DailyEntryRequest, text=text, title=title, log=log_name, day=day)
    done = append_daily(obj.workspace(vault), request)
    if wants_json(as_json):
        emit_json(done.model_dump(mode="json"))
        return
    click.echo(f"{'Started' if done.created else 'Appended to'} {done.path} "
               f"({done.appended_bytes} bytes).")
