"""`serve`: the vault's local HTTP API (the plugin backend)."""

from __future__ import annotations

import click

from .app import Ctx, cli
from .generate import Call, OperationCommand


class _ServesOperations(click.Command):
    """A server's command: its --help names the operations it serves, read from the
    registry when the help is shown (`{operations}` in the text), never copied here."""

    def __init__(self, *args, serves: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.serves = serves  # "routes" or "mcp"

    def format_help_text(self, ctx: click.Context, formatter) -> None:
        from ..ops import registry

        served = [op.name for op in registry.OPERATIONS
                  if (op.routes if self.serves == "routes" else op.mcp)]
        self.help = (self.help or "").replace("{operations}", ", ".join(served))
        super().format_help_text(ctx, formatter)


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


@cli.command(cls=_ServesOperations, serves="routes")
@click.option("--port", type=int, default=0, show_default=True,
              help="The port on 127.0.0.1; 0 picks a free one (written to .reme/serve.json).")
@click.option("--allow-origin", "origins", multiple=True, metavar="ORIGIN",
              help="A browser origin that may call the API (repeatable); default app://obsidian.md.")
@click.pass_obj
def serve(obj: Ctx, port: int, origins: tuple[str, ...]):
    """Serve the vault's local HTTP API for an Obsidian plugin or another local client.

    The operations of the registry that have a route: {operations} — the long ones
    (dream, consolidate, bridge) as background jobs a client polls; JSON in and out, the
    OpenAPI document at /openapi.json.

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


@cli.command(cls=_ServesOperations, serves="mcp")
@click.pass_obj
def mcp(obj: Ctx):
    """Serve the vault to an agent over MCP (stdio), with the same checks as the HTTP API.

    The operations of the registry agents may call, each a tool: {operations}.
    Indexes in the background as `serve` does. Configure your agent to launch
    `reme-workbench --vault PATH mcp`; stdout carries the protocol only. Needs the serve
    extra (pip install 'reme-workbench[serve]').
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


@cli.command(cls=OperationCommand, operations=("append_daily",))
def append(obj: Ctx, call: Call):
    """Append TEXT (or standard input, with no TEXT or TEXT "-") as an entry to today's daily
    log, daily/<day>/<log>.md: the way an agent or a script adds material. Append-only:
    what the log holds is never changed. `reme-workbench dream` turns it into notes.
    """
    import sys

    text = call.fields["text"]
    if text is None or text == "-":
        text = sys.stdin.read()
    vault = obj.open()
    done = call.run(obj.workspace(vault), call.request(text=text))
    if call.emit(done):
        return
    click.echo(f"{'Started' if done.created else 'Appended to'} {done.path} "
               f"({done.appended_bytes} bytes).")
