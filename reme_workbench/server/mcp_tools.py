"""The operations layer as MCP tools for agents (`reme-workbench mcp`, stdio).

Written against the official `mcp` SDK, major version 2 (`mcp.server.mcpserver.MCPServer`;
v1's FastMCP is gone). Each tool is one call into `reme_workbench.ops`: its arguments
are checked by the same request models as the HTTP API's, and its answer is the same
response model, so an agent gets structured output. A refusal (a bad path, an unknown
proposal, a check that fails) comes back as a tool error with the library's message,
which says what to do instead.

The descriptions are written for an agent that has never read our docs: what the tool
is for, when to call it, what it changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from ..errors import RemeError
from ..ops import Workspace, build_request, registry
from ..ops.registry import Operation

__all__ = ["create_mcp_server", "INSTRUCTIONS"]

INSTRUCTIONS = (
    "Long-term memory kept as an Obsidian vault. Search it with `recall` before answering "
    "from memory; read one note with `note_context`. Record what happened or what you "
    "learned with `append_daily` (raw material: a background process turns it into notes). "
    "Changes to notes are proposals: list them with `list_proposals`, read one with "
    "`show_proposal`, and accept or reject only when the user asked you to."
)


@contextmanager
def _refusals() -> Iterator[None]:
    """A refusal of the library reaches the agent as a tool error with its message (any
    other exception is the SDK's "unexpected" error, logged, its text not shown)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except RemeError as exc:
        raise ToolError(str(exc)) from None


async def _with_progress(ctx: Context, operation, ws: Workspace, request):
    """Run a long operation in a worker thread (the server keeps answering) and pass its
    progress on as MCP progress notifications — a no-op when the client asked for none."""
    import anyio
    import anyio.from_thread

    def progress(done: int, total: int, message: str) -> None:
        anyio.from_thread.run(ctx.report_progress, float(done), float(total) or None, message)

    return await anyio.to_thread.run_sync(lambda: operation(ws, request, progress))


def _parameters(model) -> list[inspect.Parameter]:
    """The request model's fields as a tool's parameters (each with its description), so
    an agent sees `recall(query, k, scope, …)`, not one nested object."""
    out = []
    for name, info in model.model_fields.items():
        annotation = Annotated[info.annotation, Field(description=info.description)]
        default = inspect.Parameter.empty if info.is_required() else info.get_default(
            call_default_factory=True)
        out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                     default=default))
    return out


def _tool(op: Operation, ws: Workspace):
    """One MCP tool calling `op`: arguments checked by its request model, a refusal a tool
    error with the library's message; a long one runs in a worker thread with progress."""
    params = _parameters(op.request)
    if op.long:
        async def tool(ctx: Context, **arguments):
            with _refusals():
                request = build_request(op.request, **arguments)
                return await _with_progress(ctx, op.invoke, ws, request)
        params.insert(0, inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                           annotation=Context))
    else:
        def tool(**arguments):
            with _refusals():
                return op.invoke(ws, build_request(op.request, **arguments))
    tool.__signature__ = inspect.Signature(params, return_annotation=op.response)
    # the SDK finds the Context parameter through the annotations
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": op.response}
    tool.__name__ = op.name
    return tool


def create_mcp_server(ws: Workspace):
    """Every operation of the registry that agents may call, as a tool (`ops/registry.py`)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="reme-workbench", instructions=INSTRUCTIONS)
    for op in registry.OPERATIONS:
        if op.mcp:
            server.tool(name=op.name, description=op.description)(_tool(op, ws))
    return server
