"""`Workspace`: the one composition root.

It alone turns a vault's path, its `reme.toml`, the environment and a front end's flags
into what the operations work with: the vault (opened with `[vault]` limits), the
settings, the embedder (`auto` resolved against the index's own), the index, and the
brains of dream and consolidate. Every front end — the CLI, the HTTP API, MCP, the
notebooks, the demo and the threshold sweeps — builds one and hands it to `ops`; nothing
below reads configuration on its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..errors import RemeError

__all__ = ["Workspace"]


@dataclass
class Workspace:
    """One vault as the operations see it. `settings` defaults to the vault's reme.toml
    (read once, here); `embedder` to the one it names (`auto`: the index's own); `clock`
    to the vault's (UTC now).

    Which model thinks (`brain_spec`, `brain_api_base`) and the cassettes that record or
    replay it are chosen by whoever runs the front end (the CLI's flags), never by a
    request: a client over HTTP or MCP may not point the vault at another model, or name
    a cassette file outside it."""

    root: Path
    settings: Settings = field(default=None)  # type: ignore[assignment]
    embedder: Any = None
    embedder_spec: str | None = None  # the front end's choice (--embedder); else reme.toml's
    clock: Callable[[], datetime] | None = None
    api_base: str | None = None  # for a litellm embedder; read from the environment at the edge
    api_key: str | None = None
    vault: Any = None  # a front end that opened the vault already (the CLI) passes it here
    brain_spec: str | None = None  # default: reme.toml [llm] brain
    brain_api_base: str | None = None  # the front end's (flag, then environment); else reme.toml
    record: str | None = None  # a cassette the brain's exchanges are recorded to
    replay: str | None = None  # a cassette the brain answers from, calling no model
    # a long-running front end's index thread (`ops.start_background_index`): recall never
    # waits on it, and writes wake it
    background_index: Any = None
    _home: Any = field(default=None, init=False, repr=False)  # index_home(), chosen once

    def __post_init__(self) -> None:
        from ..vault.vault import looks_like_vault

        self.root = Path(self.root)
        if not looks_like_vault(self.root):
            raise RemeError(f"{self.root} is not a vault (no digest/ or daily/ folder); run "
                            f"`reme-workbench init {self.root}` first, or point at the vault's folder.")
        if self.settings is None:
            self.settings = load_settings(self.root)
        if self.record and self.replay:
            raise RemeError("Record to a cassette or replay one, not both (--record or --replay).")

    @classmethod
    def from_environment(cls, root: Path, *, environ: Mapping[str, str] | None = None,
                         **flags: Any) -> Workspace:
        """A workspace with the model keys of the environment (read here, at the edge):
        $REME_LLM_API_BASE overrides reme.toml's [llm] api_base, a front end's
        `brain_api_base` flag overrides both; $REME_LLM_API_KEY keys a litellm embedder."""
        env = os.environ if environ is None else environ
        flags["brain_api_base"] = flags.get("brain_api_base") or env.get("REME_LLM_API_BASE")
        flags.setdefault("api_base", env.get("REME_LLM_API_BASE"))
        flags.setdefault("api_key", env.get("REME_LLM_API_KEY"))
        return cls(Path(root), **flags)

    # -- the vault ---------------------------------------------------------------------------
    def open_vault(self):
        """The vault given at construction, else a fresh scan of it with reme.toml's [vault]
        limits (a server sees every request's files as they are then)."""
        if self.vault is not None:
            return self.vault
        from ..vault.vault import Vault

        limits = self.settings.vault
        kwargs = {} if self.clock is None else {"clock": self.clock}
        return Vault.open(self.root, lock_timeout=limits.lock_timeout_s,
                          max_note_bytes=limits.max_note_bytes, max_replans=limits.max_replans,
                          **kwargs)

    def keep_vault(self):
        """Open the vault once and keep it (a command, a notebook): later operations share
        its scan instead of reading the files again."""
        self.vault = self.open_vault()
        if self.clock is None:
            self.clock = self.vault.clock
        return self.vault

    # -- the embedder and the index -----------------------------------------------------------
    def index_home(self):
        """Where the index and a recall's access log are written (`index.location.IndexHome`):
        the vault, or a user cache folder when this user may only read the vault."""
        if self._home is None:
            from ..index.location import index_home

            self._home = index_home(self.root)
        return self._home

    def embedder_name(self, *, fresh: bool = False) -> str:
        """The embedder spec in force: the front end's, else reme.toml's, with `auto`
        resolved against the index's record (`fresh`: as for a new index)."""
        from ..index.store import choose_embedder

        return choose_embedder(self.embedder_spec or self.settings.recall.embedder,
                               self.index_home().root, fresh=fresh)

    def get_embedder(self, *, rebuild: bool = False):
        """The embedder (cheap: no weights load before the first embed). `rebuild` chooses
        afresh, as for a new index; the choice is kept for the later operations."""
        if self.embedder is None or rebuild:
            from ..index.factory import get_embedder

            self.embedder = get_embedder(self.embedder_name(fresh=rebuild), api_base=self.api_base,
                                         api_key=self.api_key)
        return self.embedder

    def index(self, vault=None, *, on_embedder_change: str = "error", rebuild: bool = False):
        """The index of `vault` (default: this workspace's) with this workspace's embedder.
        An index built with another embedder is refused with one line naming
        `reme-workbench index --embedder ...`, unless `on_embedder_change="reembed"` (the
        `index` operation's job)."""
        from ..index.store import VaultIndex

        vault = vault if vault is not None else self.open_vault()
        return VaultIndex(vault.root, self.get_embedder(rebuild=rebuild), scan=vault.scan,
                          on_embedder_change=on_embedder_change, home=self.index_home().root)

    # -- the brains ---------------------------------------------------------------------------
    def dream_brain(self, settings: Settings | None = None):
        """(dream's brain, its token ledger or None): reme.toml's [llm] brain or the front
        end's `brain_spec`, with its cassette."""
        from ..brains.factory import build_brain

        return build_brain(settings or self.settings, brain_spec=self.brain_spec,
                           api_base=self.brain_api_base, record=self.record, replay=self.replay)

    def consolidate_brain(self, settings: Settings | None = None, *, embedder=None):
        """The brain of abstract, merge and split: reme.toml's [llm] brain or the front
        end's `brain_spec`, with its cassette; the offline one on `embedder` (default this
        workspace's; cheap to build: no weights load before the first embed)."""
        from ..brains.factory import build_consolidate_brain

        return build_consolidate_brain(settings or self.settings,
                                       embedder=embedder or self.get_embedder(),
                                       brain_spec=self.brain_spec, replay=self.replay,
                                       record=self.record, api_base=self.brain_api_base)
