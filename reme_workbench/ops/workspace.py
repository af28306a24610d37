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
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..errors import RemeError

__all__ = ["Workspace", "API_BASE_ENV", "API_KEY_ENV"]

# the environment a front end's workspace reads (`Workspace.from_environment`), and nothing else
API_BASE_ENV = "REME_LLM_API_BASE"
API_KEY_ENV = "REME_LLM_API_KEY"


@dataclass
class Workspace:
    """One vault as the operations see it. `settings` defaults to the vault's reme.toml
    (read once, here); `embedder` to the one it names (`auto`: the index's own); the
    brains to the ones reme.toml's [llm] (or the front end's `brain_spec`) names; `clock`
    to the vault's (UTC now).

    A test or a notebook hands in ready-made ones (`embedder=`, `dream_brain=`,
    `consolidate_brain=`, `settings=`) and every operation uses them: nothing below asks
    for a brain, an embedder or the settings by keyword. The settings are not changed in
    place (a screen that changes them would change them for every screen sharing the
    workspace): `with_settings` returns a new workspace.

    Which model thinks (`brain_spec`, `brain_api_base`) and the cassettes that record or
    replay it are chosen by whoever runs the front end (the CLI's flags), never by a
    request: a client over HTTP or MCP may not point the vault at another model, or name
    a cassette file outside it."""

    root: Path
    settings: Settings = field(default=None)  # type: ignore[assignment]
    embedder: Any = None  # a ready-made embedder (a test's); else built from the spec in force
    embedder_spec: str | None = None  # the front end's choice (--embedder); else reme.toml's
    clock: Callable[[], datetime] | None = None
    api_base: str | None = None  # for a litellm embedder; read from the environment at the edge
    api_key: str | None = None  # for a litellm embedder or brain; read from the environment
    vault: Any = None  # a front end that opened the vault already (the CLI) passes it here
    brain_spec: str | None = None  # default: reme.toml [llm] brain
    brain_api_base: str | None = None  # the front end's (flag, then environment); else reme.toml
    record: str | None = None  # a cassette the brain's exchanges are recorded to
    replay: str | None = None  # a cassette the brain answers from, calling no model
    dream_brain: Any = None  # a ready-made dream `Brain` (a test's); else built by get_dream_brain
    consolidate_brain: Any = None  # a ready-made `ConsolidateBrain`; else get_consolidate_brain's
    # a long-running front end's index thread (`ops.start_background_index`): recall never
    # waits on it, and writes wake it
    background_index: Any = None
    _home: Any = field(default=None, init=False, repr=False)  # index_home(), chosen once
    _built_embedder: Any = field(default=None, init=False, repr=False)  # get_embedder's, kept

    def __post_init__(self) -> None:
        from ..vault.vault import looks_like_vault

        self.root = Path(self.root)
        if not looks_like_vault(self.root):
            raise RemeError(f"{self.root} is not a vault (no digest/ or daily/ folder); run "
                            f"`reme-workbench init {self.root}` first, or point at the vault's folder.")
        if self.settings is None:
            object.__setattr__(self, "settings", self.settings_of(self.root))
        if self.record and self.replay:
            raise RemeError("Record to a cassette or replay one, not both (--record or --replay).")

    def __setattr__(self, name: str, value: Any) -> None:
        # the settings are chosen once: a screen that assigned its own changed every
        # operation of whoever shares this workspace
        if name == "settings" and "settings" in self.__dict__:
            raise AttributeError("A workspace's settings are not changed in place; use "
                                 "ws.with_settings(settings), which returns a new workspace.")
        super().__setattr__(name, value)

    @staticmethod
    def settings_of(root: Path | str) -> Settings:
        """The settings of the vault at `root`: its reme.toml over the defaults (the one
        place it is read; `init` checks a new vault's file with it before making anything)."""
        return load_settings(Path(root))

    @staticmethod
    def check_embedder(spec: str, root: Path | str) -> None:
        """Build (and drop) the embedder `spec` names for the folder `root`, which need not
        be a vault yet (`auto`: its index's, else a new index's): an unknown spec or a
        missing model package stops a front end before it writes a file."""
        from ..index.factory import get_embedder
        from ..index.store import choose_embedder

        get_embedder(choose_embedder(spec, root))

    def with_settings(self, settings: Settings) -> Workspace:
        """This workspace with `settings` instead (a screen's or a sweep's own): the same
        vault, flags and ready-made embedder and brains; the embedder built here is kept
        while the new settings name the same one."""
        new = replace(self, settings=settings)
        same_spec = (self.embedder_spec or self.settings.recall.embedder) == \
            (new.embedder_spec or settings.recall.embedder)
        if same_spec:
            new._home, new._built_embedder = self._home, self._built_embedder
        else:
            new.background_index = None  # it embeds with the old embedder
        return new

    @classmethod
    def from_environment(cls, root: Path, *, environ: Mapping[str, str] | None = None,
                         **flags: Any) -> Workspace:
        """A workspace with the model keys of the environment (read here, at the edge):
        $REME_LLM_API_BASE overrides reme.toml's [llm] api_base, a front end's
        `brain_api_base` flag overrides both; $REME_LLM_API_KEY keys a litellm embedder
        and a litellm brain (without it litellm reads the provider's own variable)."""
        env = os.environ if environ is None else environ
        flags["brain_api_base"] = flags.get("brain_api_base") or env.get(API_BASE_ENV) or None
        flags.setdefault("api_base", env.get(API_BASE_ENV) or None)
        flags.setdefault("api_key", env.get(API_KEY_ENV) or None)
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
        """The embedder: the ready-made one, else the one the spec in force names (cheap: no
        weights load before the first embed), kept for the later operations. `rebuild`
        chooses afresh, as for a new index (a ready-made one stays: it is all a test has)."""
        if self.embedder is not None:
            return self.embedder
        if self._built_embedder is None or rebuild:
            self._built_embedder = self._embedder_named(self.embedder_name(fresh=rebuild))
        return self._built_embedder

    def new_embedder(self):
        """An embedder of its own of the spec in force, not the one `get_embedder` keeps:
        for a thread that embeds beside the requests (the background indexer). A
        ready-made one is shared."""
        if self.embedder is not None:
            return self.embedder
        return self._embedder_named(self.embedder_name())

    def _embedder_named(self, spec: str):
        from ..index.factory import get_embedder

        return get_embedder(spec, api_base=self.api_base, api_key=self.api_key)

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
    def get_dream_brain(self):
        """(dream's brain, its token ledger or None): the ready-made one (no ledger), else
        reme.toml's [llm] brain or the front end's `brain_spec`, with its cassette."""
        if self.dream_brain is not None:
            return self.dream_brain, None
        from ..brains.factory import build_brain

        return build_brain(self.settings, brain_spec=self.brain_spec, api_base=self.brain_api_base,
                           api_key=self.api_key, record=self.record, replay=self.replay)

    def get_consolidate_brain(self, *, embedder=None):
        """The brain of abstract, merge and split: the ready-made one, else reme.toml's [llm]
        brain or the front end's `brain_spec`, with its cassette; the offline one on
        `embedder` (default this workspace's: a caller passes the same one metered; cheap
        to build: no weights load before the first embed)."""
        if self.consolidate_brain is not None:
            return self.consolidate_brain
        from ..brains.factory import build_consolidate_brain

        return build_consolidate_brain(self.settings,
                                       embedder=embedder or self.get_embedder(),
                                       brain_spec=self.brain_spec, replay=self.replay,
                                       record=self.record, api_base=self.brain_api_base,
                                       api_key=self.api_key)
