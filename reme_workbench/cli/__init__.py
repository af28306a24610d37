"""`reme-workbench`: a thin command line over the library.

Each command is a few lines that call the library and print. `app` holds the group and
what the commands share; each module below registers one family of commands.
"""

from __future__ import annotations

from . import (  # noqa: F401  (register commands)
    bridge_cmd,
    consolidate_cmd,
    dream_cmd,
    experiment_cmd,
    import_cmd,
    index_cmds,
    obsidian_cmd,
    proposals_cmds,
    serve_cmd,
    vault_cmds,
    workbench_cmds,
)
from .app import cli, main

__all__ = ["cli", "main"]
