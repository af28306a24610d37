"""reme-workbench: an agent's long-term memory kept as an Obsidian vault.

The public API is the names in `__all__`. They are imported on first use (PEP 562)
so that `import reme_workbench` — and the CLI's `--help` — stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors
    "RemeError": "reme_workbench.errors",
    "NoteError": "reme_workbench.errors",
    "UnsafePathError": "reme_workbench.errors",
    "NoteExistsError": "reme_workbench.errors",
    "StaleChangesetError": "reme_workbench.errors",
    "ChangesetRejectedError": "reme_workbench.errors",
    "EmbedderMismatchError": "reme_workbench.errors",
    # settings
    "Settings": "reme_workbench.config",
    "load_settings": "reme_workbench.config",
    # layout
    "Bucket": "reme_workbench.vault.layout",
    "BUCKETS": "reme_workbench.vault.layout",
    "FALLBACK_BUCKET": "reme_workbench.vault.layout",
    # notes, slugs, links
    "Note": "reme_workbench.vault.note",
    "parse_note": "reme_workbench.vault.note",
    "render_note": "reme_workbench.vault.note",
    "slugify": "reme_workbench.vault.slug",
    "note_path": "reme_workbench.vault.slug",
    "Link": "reme_workbench.vault.links",
    "parse_links": "reme_workbench.vault.links",
    "format_link": "reme_workbench.vault.links",
    "retarget_text": "reme_workbench.vault.links",
    # writes
    "Stamp": "reme_workbench.vault.store",
    "Create": "reme_workbench.vault.store",
    "Edit": "reme_workbench.vault.store",
    "Delete": "reme_workbench.vault.store",
    "NamedCheck": "reme_workbench.vault.store",
    "AuditEntry": "reme_workbench.vault.store",
    "Changeset": "reme_workbench.vault.store",
    "ApplyResult": "reme_workbench.vault.store",
    "Store": "reme_workbench.vault.store",
    "apply_with_replan": "reme_workbench.vault.store",
    # reading the whole vault
    "VaultScan": "reme_workbench.vault.scan",
    "LinkGraph": "reme_workbench.vault.graph",
    "HealthReport": "reme_workbench.vault.health",
    "check_health": "reme_workbench.vault.health",
    "CheckSpec": "reme_workbench.vault.checks",
    # proposals
    "Proposal": "reme_workbench.proposals",
    "ProposalQueue": "reme_workbench.proposals",
    "Policy": "reme_workbench.proposals",
    # the operations a library user calls (the same the CLI, HTTP API and MCP call)
    "Workspace": "reme_workbench.ops",
    "recall": "reme_workbench.ops",
    "RecallRequest": "reme_workbench.ops",
    # `dream` and `consolidate` are also subpackages, whose import would shadow a function
    # of that name here: the operations are exported as run_dream and run_consolidate
    "run_dream": "reme_workbench.ops",
    "DreamRequest": "reme_workbench.ops",
    "run_consolidate": "reme_workbench.ops",
    "ConsolidateRequest": "reme_workbench.ops",
    "import_notes": "reme_workbench.ops",
    "ImportRequest": "reme_workbench.ops",
    # the vault
    "Vault": "reme_workbench.vault.vault",
    "init_vault": "reme_workbench.vault.vault",
    "retarget_links": "reme_workbench.vault.vault",
    "rename_note": "reme_workbench.vault.vault",
}
# names whose attribute in the defining module differs from the public name
_RENAMED = {"parse_note": "parse", "render_note": "render", "run_dream": "dream",
            "run_consolidate": "consolidate"}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reme_workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # cache: the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .config import Settings, load_settings  # noqa: F401
    from .errors import *  # noqa: F401,F403
    from .ops import (  # noqa: F401
        ConsolidateRequest,
        DreamRequest,
        ImportRequest,
        RecallRequest,
        Workspace,
        import_notes,
        recall,
    )
    from .ops import consolidate as run_consolidate  # noqa: F401
    from .ops import dream as run_dream  # noqa: F401
    from .proposals import Policy, Proposal, ProposalQueue  # noqa: F401
    from .vault.checks import CheckSpec  # noqa: F401
    from .vault.graph import LinkGraph  # noqa: F401
    from .vault.health import HealthReport, check_health  # noqa: F401
    from .vault.layout import BUCKETS, FALLBACK_BUCKET, Bucket  # noqa: F401
    from .vault.links import Link, format_link, parse_links, retarget_text  # noqa: F401
    from .vault.note import Note  # noqa: F401
    from .vault.scan import VaultScan  # noqa: F401
    from .vault.slug import note_path, slugify  # noqa: F401
    from .vault.store import (  # noqa: F401
        ApplyResult,
        AuditEntry,
        Changeset,
        Create,
        Delete,
        Edit,
        NamedCheck,
        Stamp,
        Store,
        apply_with_replan,
    )
    from .vault.vault import Vault, init_vault, rename_note, retarget_links  # noqa: F401
