"""`reme-workbench`: a thin command line over the library.

Each command is made from its operation in `ops/registry.py` (`generate.py`: arguments,
options and `--json` from the request and response models) and a few lines that print
the answer as text; the commands that cannot be made so (`demo`, `workbench`, `serve`,
`mcp`) are listed in the registry's `FRONT_END_COMMANDS`. `app` holds the group and what
the commands share; each module below registers one family of commands.
"""

from __future__ import annotations

from . import (  # noqa: F401  (register commands)
    bridge_cmd,
    consolidate_cmd,
    dream_cmd,
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
