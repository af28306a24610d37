"""`Vault`: one open vault — its store (writes), scan (records) and link graph.

Opening a vault finishes or rolls back an interrupted journal first, so every reader
sees either the old or the new state of the last changeset, never a mix.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from ..errors import RemeError
from .graph import LinkGraph
from .health import (
    HealthReport,
    UnlinkPlan,
    check_health,
    plan_link_fixes,
    plan_link_normalization,
    render_health_markdown,
)
from .layout import BUCKETS, CACHE_DIR, LAYERS
from .meta import write_meta
from .note import MAX_NOTE_BYTES
from .ops import RETARGET_LAYERS, RetargetPlan, plan_rename, plan_retarget
from .resolve import LinkResolver
from .resolved_links import load_resolved_before, record_resolved
from .scan import ScanDelta, VaultScan
from .store import ApplyResult, AuditEntry, Changeset, Store, apply_with_replan

__all__ = ["Vault", "init_vault", "retarget_links", "rename_note", "looks_like_vault"]

_GITIGNORE_LINE = f"{CACHE_DIR}/"


def _utcnow() -> datetime:
    return datetime.now(UTC)


def looks_like_vault(root: Path) -> bool:
    root = Path(root)
    return root.is_dir() and any((root / layer).is_dir() for layer in LAYERS)


class Vault:
    """An open vault. Build it with `Vault.open(root)`.

    The limits come from reme.toml's `[vault]` section when the CLI opens a vault:
    `lock_timeout` (s) is how long a write waits for another process's lock,
    `max_note_bytes` the size over which a note is not read, and `max_replans` how many
    times `rename_note`, `retarget_links`, `normalize_links` and the health report plan their
    change when files keep changing under them.
    """

    def __init__(
        self,
        root: Path,
        *,
        clock: Callable[[], datetime] = _utcnow,
        lock_timeout: float = 30.0,
        cache: bool = True,
        max_note_bytes: int = MAX_NOTE_BYTES,
        max_replans: int = 3,
    ) -> None:
        if max_replans < 1:
            raise ValueError("max_replans must be at least 1")
        self.root = Path(root)
        self.clock = clock
        self.store = Store(self.root, clock=clock, lock_timeout=lock_timeout)
        self.max_note_bytes = max_note_bytes
        self.max_replans = max_replans
        self._cache = cache
        self._scan: VaultScan | None = None
        self._graph: LinkGraph | None = None
        self.recovery_messages: list[str] = []
        # a change that could be neither finished nor undone (docs/spec.md §3.4.7)
        self.recovery_error: str | None = None

    @classmethod
    def open(
        cls,
        root: Path | str,
        *,
        clock: Callable[[], datetime] = _utcnow,
        lock_timeout: float = 30.0,
        cache: bool = True,
        max_note_bytes: int = MAX_NOTE_BYTES,
        max_replans: int = 3,
    ) -> Vault:
        root = Path(root)
        if not root.is_dir():
            raise RemeError(
                f"{root} is not a folder; create a vault with `reme-workbench init {root}`.",
                path=str(root),
            )
        if not looks_like_vault(root):
            raise RemeError(
                f"{root} has none of the vault layers ({', '.join(LAYERS)}); run "
                f"`reme-workbench init {root}` to add them (existing files are kept).",
                path=str(root),
            )
        vault = cls(
            root, clock=clock, lock_timeout=lock_timeout, cache=cache,
            max_note_bytes=max_note_bytes, max_replans=max_replans,
        )
        try:
            vault.recovery_messages = vault.store.recover()
        except RemeError as exc:  # reads go on; every write stops with the same line
            vault.recovery_error = str(exc)
        return vault

    def unwritable(self) -> str | None:
        """The first folder a write needs that this process may not write (`.reme`,
        `meta`, `audit`, `digest`, a bucket; `.` for the root), or None.

        Asks the kernel (`os.access`) for this user, so a read-only mount or `chmod a-w`
        counts and root's override of file modes does too. Commands check it before
        they start, so a read-only vault stops them with one line, not half-way.
        """
        cache = self.root / CACHE_DIR
        folders = [CACHE_DIR if cache.is_dir() else ".", "meta", "audit", "digest"]
        folders += [f"digest/{b}" for b in BUCKETS]
        for rel in folders:
            path = self.root / rel
            if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
                return rel
        return None

    # -- reading ---------------------------------------------------------------
    @property
    def scan(self) -> VaultScan:
        if self._scan is None:
            self._scan = VaultScan(self.root, cache=self._cache, max_note_bytes=self.max_note_bytes)
            self._scan.refresh()
        return self._scan

    @property
    def graph(self) -> LinkGraph:
        if self._graph is None:
            self._graph = LinkGraph.from_scan(self.scan)
        return self._graph

    def refresh(self, paths: Iterable[str] | None = None) -> ScanDelta:
        """Bring scan and graph up to date (only `paths` when given)."""
        delta = self.scan.refresh(paths)
        if self._graph is not None and (delta.changed or delta.removed):
            self._graph.update(self.scan, delta)
        return delta

    # -- writing ---------------------------------------------------------------
    def apply(self, changeset: Changeset) -> ApplyResult:
        result = self.store.apply(changeset)
        if self._scan is not None:
            self.refresh(result.written)
        return result

    def apply_planned(self, plan: Callable[[], Changeset]) -> ApplyResult:
        """Apply `plan()`; when a file changed since it was planned, refresh the scan and
        plan again from the files as they are, up to `max_replans` plans in all."""
        attempts = 0

        def fresh_plan() -> Changeset:
            nonlocal attempts
            attempts += 1
            if attempts > 1:
                self.refresh()
            return plan()

        result = apply_with_replan(self.store, fresh_plan, max_attempts=self.max_replans)
        if self._scan is not None:
            self.refresh(result.written)
        return result

    def health(self, paths: Iterable[str] | None = None) -> HealthReport:
        """D1 and D10 over the vault, or inline over `paths` just written. Over the vault
        a link that never resolved is the person's, not yet written, and only one the
        record says resolved before is broken (docs/spec.md §7.5.1); inline, every link
        of what was just written that resolves to nothing is broken (§4.9.2)."""
        before = None if paths is not None else load_resolved_before(self.root)
        return check_health(self.scan, paths, resolved_before=before)

    def record_resolved_links(self, report: HealthReport) -> bool:
        """Remember the files (and aliases) links resolve to now and the links `report`
        found broken, for the next health run to tell broken from not yet written;
        whether meta/resolved_links.json changed."""
        return record_resolved(self.root, self.scan.records,
                        [(b.source, b.target) for b in report.broken_links], now=self.clock())

    def write_health_report(self, report: HealthReport) -> str:
        """Write `audit/<date>/health_links.md` (replacing today's) and return its path."""
        date = self.clock().date().isoformat()
        rel = f"audit/{date}/health_links.md"
        content = render_health_markdown(report, date=date).encode("utf-8")
        current = self.store.read(rel)
        if current is not None and current[0] == content:
            return rel  # today's report says the same: no write, no lock

        def plan() -> Changeset:
            current = self.store.read(rel)
            if current is None:
                ops = (self.store.plan_create(rel, content),)
            else:
                ops = () if current[0] == content else (self.store.plan_edit(rel, content),)
            return Changeset(ops=ops, description="health report")

        self.apply_planned(plan)
        return rel

    def normalize_links(self, report: HealthReport) -> ApplyResult | None:
        """Rewrite the short links of `report` in digest/ to full vault paths (the lossless
        half of the D1 fix, docs/spec.md §7.5.3); a re-plan checks the links again, so a
        link someone changed meanwhile is left. None when nothing is to rewrite."""
        first = plan_link_normalization(self.store, report, self._resolver(),
                                        max_bytes=self.max_note_bytes)
        if first is None:
            return None
        plans = [first]

        def plan() -> Changeset:
            changeset = plans.pop() if plans else plan_link_normalization(
                self.store, self.health(), self._resolver(), max_bytes=self.max_note_bytes)
            return changeset or Changeset(ops=(), description="no short link left to rewrite")

        return self.apply_planned(plan)

    def plan_unlinks(
        self, report: HealthReport, skip: frozenset[tuple[str, str]] = frozenset()
    ) -> UnlinkPlan | None:
        """The other half of the D1 fix: the edits that would turn each broken digest link
        into its text, for the caller to make a proposal of (a person's link is never
        removed without one)."""
        return plan_link_fixes(self.store, report, max_bytes=self.max_note_bytes, skip=skip)

    def _resolver(self) -> LinkResolver:
        return LinkResolver(self.scan.records)

    def write_meta(self, name: str, payload: dict, *, version: int) -> Path:
        return write_meta(self.root, name, payload, version=version, now=self.clock())

    def record_audit(self, kind: str, markdown: str) -> ApplyResult:
        return self.apply(Changeset(ops=(), description=kind, audit=AuditEntry(kind, markdown)))


def retarget_links(
    vault: Vault,
    old: str,
    new: str,
    *,
    layers: Iterable[str] = RETARGET_LAYERS,
    dry_run: bool = False,
) -> RetargetPlan:
    """Rewrite every inbound link to `old` so it points at `new`, as one changeset."""

    def make() -> RetargetPlan:
        records = vault.scan.records.values()
        return plan_retarget(
            vault.store, records, old, new, layers=layers, max_bytes=vault.max_note_bytes
        )

    plan = make()
    if dry_run or not plan.changeset.ops:
        return plan
    return _apply_replanned(vault, plan, make)


def rename_note(
    vault: Vault, old: str, new: str, *, dry_run: bool = False, move_source: bool = False
) -> RetargetPlan:
    """Move note `old` to `new` and retarget every inbound link, atomically.

    `move_source=True` lets a daily log move within daily/ (see `plan_rename`).
    """

    def make() -> RetargetPlan:
        records = vault.scan.records.values()
        return plan_rename(
            vault.store, records, old, new, move_source=move_source,
            max_bytes=vault.max_note_bytes,
        )

    plan = make()
    return plan if dry_run else _apply_replanned(vault, plan, make)


def _apply_replanned(
    vault: Vault, first: RetargetPlan, make: Callable[[], RetargetPlan]
) -> RetargetPlan:
    """Apply `first`; when its files changed meanwhile, plan again with `make()` (up to
    the vault's `max_replans` plans in all). Returns the plan that was applied."""
    pending, made = [first], []

    def plan() -> Changeset:
        made.append(pending.pop() if pending else make())
        return made[-1].changeset

    vault.apply_planned(plan)
    return made[-1]


def _sample_root():
    return resources.files("reme_workbench").joinpath("samples", "vault")


def init_vault(root: Path | str, *, sample: bool = False) -> list[str]:
    """Create the vault layers (keeping whatever exists) and optionally the sample.

    Returns the vault-relative paths it created. Never overwrites a file: sample files
    whose path already exists are skipped.
    """
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise RemeError(f"{root} exists and is not a folder; choose another path.", path=str(root))
    created: list[str] = []
    for rel in [*LAYERS, *(f"digest/{b}" for b in BUCKETS), CACHE_DIR]:
        folder = root / rel
        if not folder.exists():
            folder.mkdir(parents=True)
            created.append(rel + "/")
    gitignore = root / ".gitignore"
    lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
    if _GITIGNORE_LINE not in lines:
        with gitignore.open("a", encoding="utf-8") as fh:
            if lines and not gitignore.read_text(encoding="utf-8").endswith("\n"):
                fh.write("\n")
            fh.write("# reme-workbench caches (rebuildable)\n" + _GITIGNORE_LINE + "\n")
        created.append(".gitignore")
    if sample:
        created.extend(_copy_sample(root))
    return created


def _copy_sample(root: Path) -> list[str]:
    created = []
    source = _sample_root()
    with resources.as_file(source) as src_dir:
        for src in sorted(Path(src_dir).rglob("*")):
            rel = src.relative_to(src_dir).as_posix()
            if not src.is_file() or rel == "README.md":
                continue
            dest = root / rel
            if dest.exists():
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
            created.append(rel)
    return created
