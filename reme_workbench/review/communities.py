"""The communities of the digest as a person reviews them: sizes, stability against the
last run, each community's members and hub, the abstract gates it passes or fails with
their values, the notes that sit among another bucket's notes (maybe misfiled), and the
data to draw one community (positions, buckets, hub, archived).

Read from the meta files consolidate writes (`meta/communities.json`,
`meta/community_changes.json`, `meta/misfiled.json`, `meta/archived.json`) and the vault
as it is now; nothing is written. Without a communities run every view says so and is
empty.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from ..config import Settings
from ..consolidate.abstract import (
    CommunityGates,
    community_gates,
    community_hub,
    hub_waiting_for,
    load_communities,
    rank_central,
    waiting_hubs,
)
from ..consolidate.archive import ARCHIVED_META, META_VERSION
from ..consolidate.communities import MISFILED_META, Misfiled
from ..proposals import ProposalQueue
from ..vault.archive_state import ArchiveBatch
from ..vault.meta import read_meta
from ..vault.vault import Vault

__all__ = ["CommunityView", "CommunitiesOverview", "Drawing", "communities_overview",
           "community_drawing", "archived_paths", "misfiled_notes_now"]


def archived_paths(vault: Vault) -> frozenset[str]:
    """The notes archived now: meta/archived.json's less those touched since its batch
    (empty when it is missing or unusable)."""
    doc = read_meta(vault.root, ARCHIVED_META, version=META_VERSION).data or {}
    batch = ArchiveBatch.from_doc(doc)
    return batch.archived_now(vault.root) if batch is not None else frozenset()


def misfiled_notes_now(vault: Vault) -> tuple[Misfiled, ...]:
    """The notes meta/misfiled.json reports (docs/spec.md §7.2.8) that still exist in the
    bucket it found them in: a note a person has renamed into another bucket since, or
    deleted, is no longer a candidate. Empty when the file is missing or unusable."""
    doc = read_meta(vault.root, MISFILED_META, version=1).data or {}
    records = vault.scan.records
    out = []
    for entry in doc.get("notes") or []:
        try:
            found = Misfiled(str(entry["path"]), str(entry["bucket"]), str(entry["community"]),
                             int(entry["community_size"]), str(entry["dominant_bucket"]),
                             float(entry["share"]))
        except (KeyError, TypeError, ValueError):
            continue  # a foreign or torn entry: the next communities run writes it again
        if found.path in records and found.path.split("/")[1] == found.bucket:
            out.append(found)
    return tuple(out)


@dataclass(frozen=True)
class CommunityView:
    """One community: members (most central first), its stability against the previous
    run (None: unknown), the member that already is its hub (`abstract.community_hub`: a
    hub note, a split parent or the person's own index — `hub_is_index`), the share of
    the others the member linking most of them links, and the abstract gates with their
    values."""

    id: str
    members: tuple[str, ...]
    stability: float | None
    hub: str | None
    hub_share: float
    gates: CommunityGates
    buckets: dict[str, int]
    waiting_hub: str | None = None  # a hub proposal for (most of) it that waits for a person
    hub_is_index: bool = False  # the hub is a note the person wrote as a list of links

    @property
    def size(self) -> int:
        return len(self.members)


@dataclass(frozen=True)
class CommunitiesOverview:
    computed_at: str | None  # the communities run these come from
    previous: str | None  # the run stability is measured against
    communities: tuple[CommunityView, ...]  # largest first
    warnings: tuple[str, ...] = ()
    misfiled: tuple[Misfiled, ...] = ()  # notes among another bucket's notes (§7.2.8)

    def get(self, community_id: str) -> CommunityView:
        for c in self.communities:
            if c.id == community_id:
                return c
        raise KeyError(f"no community {community_id!r}; the communities are "
                       f"{', '.join(c.id for c in self.communities) or 'none yet'}")


def communities_overview(vault: Vault, settings: Settings, *,
                         now: datetime | None = None) -> CommunitiesOverview:
    """Every community of the last communities run, with its gates (by `settings`, the
    workspace's) as of `now`."""
    vault.refresh()
    communities, stability, warnings = load_communities(vault.root)
    meta = read_meta(vault.root, "community_changes", version=1).data or {}
    computed = (read_meta(vault.root, "communities", version=1).data or {}).get("computed_at")
    if not communities:
        return CommunitiesOverview(computed, meta.get("previous"), (),
                                   tuple(warnings) or ("No communities yet: run "
                                                       "`reme-workbench consolidate --only communities`.",))
    cfg = settings.abstract
    gates = community_gates(vault, cfg, communities=communities,
                            stability=stability, now=now or vault.clock())
    graph = vault.graph
    waiting = waiting_hubs(ProposalQueue(vault).list())
    views = []
    for g in gates:
        hub = community_hub(vault, g.members, cfg.hub_coverage)  # as gate no_hub reads it
        buckets = Counter(p.split("/")[1] for p in g.members if p.count("/") >= 2)
        held = hub_waiting_for(g.members, waiting)
        views.append(CommunityView(
            g.community, tuple(rank_central(g.members, graph)), stability.get(g.community),
            hub.member if hub.found else None, hub.share, g, dict(sorted(buckets.items())),
            held[0] if held else None, hub.found and hub.index))
    views.sort(key=lambda v: (-v.size, v.id))
    return CommunitiesOverview(computed, meta.get("previous"), tuple(views), tuple(warnings),
                               misfiled_notes_now(vault))


@dataclass(frozen=True)
class Drawing:
    """One community laid out to draw: positions per note, its links, and per note its
    bucket, name, whether it is the hub and whether it is archived."""

    community: str
    positions: dict[str, tuple[float, float]]
    edges: tuple[tuple[str, str], ...]
    buckets: dict[str, str]
    names: dict[str, str]
    hub: str | None
    archived: frozenset[str]


def community_drawing(vault: Vault, view: CommunityView, *, seed: int = 42) -> Drawing:
    """A spring layout (networkx, seeded: the same drawing every time) of `view`."""
    import networkx as nx

    members = set(view.members)
    g = nx.Graph()
    g.add_nodes_from(sorted(members))
    digraph = vault.graph.graph
    edges = sorted({tuple(sorted((a, b))) for a, b in digraph.edges()  # a multigraph: one per pair
                    if a in members and b in members and a != b})
    g.add_edges_from(edges)
    positions = nx.spring_layout(g, seed=seed) if len(g) > 1 else {n: (0.0, 0.0) for n in g}
    records = vault.scan.records
    return Drawing(
        view.id,
        {n: (float(x), float(y)) for n, (x, y) in positions.items()},
        tuple(edges),
        {p: p.split("/")[1] if p.count("/") >= 2 else "?" for p in members},
        {p: (records[p].name if p in records and records[p].name else p.rsplit("/", 1)[-1][:-3])
         for p in members},
        view.hub,
        archived_paths(vault) & members,
    )
