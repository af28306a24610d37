"""Communities: Leiden (modularity) over the digest link graph, and how stable they are.

The one signal every later consolidate phase leans on: which digest notes belong to the
same topic. Pure parts first (`digest_graph`, `leiden`, `stability`), then the one writer
(`update_communities`), which reads the previous run, computes, and writes two meta files:

* `meta/communities.json` — `{"version": 1, "computed_at", "algorithm":
  "leiden-modularity", "resolution", "seed" (the one kept), "seeds_tried", "modularity",
  "communities": {path: id}, "ids_issued": int (ids c_00 … below it were given, kept or
  not: a new community never gets an old id), "hubs": {id: path} (the member that already
  is the community's hub — a hub note, a split parent, the person's own index or map of
  content, `abstract.community_hub`: abstract proposes no other, and nothing is written
  for it), "stats": {"n_communities", "median_size", "max_size", "singletons"}}`. Recall's
  same-community boost reads `communities` (index/recall.py): that key is a contract.
* `meta/community_changes.json` — `{"version": 1, "computed_at", "previous": the
  previous file's computed_at or null, "stability_per_community": {id: float | null}}`.
* `meta/misfiled.json` — `{"version": 1, "computed_at", "min_share", "min_size",
  "notes": [{"path", "bucket", "community", "community_size", "dominant_bucket",
  "share"}]}`: notes whose community is almost all another bucket (`misfiled_notes`,
  docs/spec.md §7.2.8) — candidates for a person's `rename` into that bucket, never
  moved.

The graph: digest notes only (every one a node, isolated ones too), undirected and
unweighted — every predicate counts the same, several links between two notes are one
edge, a note's links to itself are dropped; provenance (links into daily/, resource/)
and links to anything that is not an existing digest note are not edges.

Leiden relabels freely (by size), so ids are kept by `keep_ids`: each new community is
matched one to one to the previous run's community it shares the most with (Jaccard
similarity of the node sets, highest first, at least `SAME_COMMUNITY`) and keeps its id;
the others get fresh ids, numbered on from `ids_issued`, never one a community had before
— a hub proposal that names `c_03` names one community for good (docs/spec.md §7.2).
Stability is measured on node sets too: each new community's highest Jaccard similarity
with any previous community is its stability. With no previous run
it is unknown (None), never 0 or 1: a gate that needs it must say it cannot decide yet.
"""

from __future__ import annotations

import gc
import os
import statistics
from collections.abc import Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

import networkx as nx

from ..config import CommunitySettings
from ..vault.layout import bucket_of
from ..vault.meta import read_meta, write_meta

if TYPE_CHECKING:
    from ..vault.graph import LinkGraph
    from ..vault.vault import Vault

__all__ = [
    "ALGORITHM",
    "COMMUNITIES_META",
    "CHANGES_META",
    "MISFILED_META",
    "META_VERSION",
    "Misfiled",
    "misfiled_notes",
    "Partition",
    "CommunityReport",
    "digest_graph",
    "leiden",
    "stability",
    "SAME_COMMUNITY",
    "keep_ids",
    "community_stats",
    "update_communities",
]

ALGORITHM = "leiden-modularity"
COMMUNITIES_META = "communities"
CHANGES_META = "community_changes"
MISFILED_META = "misfiled"
META_VERSION = 1
REBUILD = "reme-workbench consolidate --only communities --force"
# Full Leiden cycles per seed, each starting from the last one's result: on the reference
# graphs a second cycle reaches the best known modularity more often (davis 0.3334 ->
# 0.3360, polbooks 0.5266 -> 0.5270) for about 15 % more time.
_ITERATIONS = 2
_RANDOMNESS = 0.001  # graspologic's default: how far refinement may explore
_MAX_WORKERS = 4  # each running seed holds its own copy of the graph in native memory
_TIE = 1e-12  # the same partition from two seeds can differ in the last float bits


@dataclass(frozen=True)
class Partition:
    """node -> community id (from `leiden`, "c_00" is the largest community; from
    `update_communities`, ids kept from the previous run), its modularity, the seed."""

    communities: Mapping[str, str]
    modularity: float
    seed: int

    def members(self) -> dict[str, list[str]]:
        """id -> its nodes, sorted; ids in order."""
        out: dict[str, list[str]] = {}
        for node, cid in self.communities.items():
            out.setdefault(cid, []).append(node)
        return {cid: sorted(out[cid], key=str) for cid in sorted(out)}


@dataclass(frozen=True)
class Misfiled:
    """A note whose community is almost all another bucket: a candidate for `rename`."""

    path: str
    bucket: str  # the note's own bucket
    community: str
    community_size: int
    dominant_bucket: str  # the bucket most of the community's other notes are in
    share: float  # of the community's other notes, the share in `dominant_bucket`

    @property
    def rename_to(self) -> str:
        """Where `reme-workbench rename` would put it: its dominant bucket, same file name."""
        return f"digest/{self.dominant_bucket}/{self.path.rsplit('/', 1)[-1]}"

    def to_json(self) -> dict:
        return {"path": self.path, "bucket": self.bucket, "community": self.community,
                "community_size": self.community_size, "dominant_bucket": self.dominant_bucket,
                "share": round(self.share, 6)}


@dataclass(frozen=True)
class CommunityReport:
    partition: Partition
    stats: dict
    stability: dict[str, float | None]
    previous_computed_at: str | None
    paths: tuple[str, ...]  # meta files written (vault-relative); empty on a dry run
    misfiled: tuple[Misfiled, ...] = ()


@contextmanager
def _paused_gc():
    """Hundreds of thousands of small tuples, none of them cyclic: the cyclic collector
    would only rescan the vault's whole heap again and again (seconds at 50k notes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# -- the graph -------------------------------------------------------------------------------

def digest_graph(graph: LinkGraph) -> nx.Graph:
    """The community graph of a vault's `LinkGraph` (see the module doc for the rules).

    `LinkGraph.graph` already holds exactly the digest notes as nodes and only links
    between existing digest notes as edges (provenance is kept apart), keyed by
    predicate; here they collapse to one undirected, unweighted edge per pair of notes.
    Nodes and edges are added in sorted order, so the same vault gives the same graph.
    """
    links = graph.graph
    out = nx.Graph()
    with _paused_gc():
        nodes = sorted(links.nodes)
        number = {node: i for i, node in enumerate(nodes)}
        # the adjacency, not edges(): one visit per linked pair and direction, not per
        # key; pairs as numbers, which sort far faster than pairs of long paths
        pairs = set()
        for u, targets in links.adjacency():
            a = number[u]
            for v in targets:
                b = number[v]
                if a != b:
                    pairs.add((a, b) if a < b else (b, a))
        out.add_nodes_from(nodes)
        out.add_edges_from((nodes[a], nodes[b]) for a, b in sorted(pairs))
    return out


# -- Leiden ------------------------------------------------------------------------------------

_DEFAULTS = CommunitySettings()  # the spec's defaults, from the one place they live


def leiden(graph: nx.Graph, *, resolution: float = _DEFAULTS.resolution, seed: int = _DEFAULTS.seed,
           trials: int = _DEFAULTS.trials) -> Partition:
    """Leiden with the modularity objective (graspologic_native), the best of `trials` seeds.

    Seeds `seed`, `seed + 1`, … each run once; the partition with the highest modularity
    is kept, the lowest seed on a tie. The objective is set explicitly: under CPM (the
    other objective) resolution 1.0 would put every node in a community of its own.
    Self-loops are ignored and the graph is read as undirected and unweighted.

    A node with no edge (an isolated note) is a community of its own; so is every node of
    a graph with no edges at all, whose modularity is reported as 0.0 (it is undefined
    there: with no edges there is nothing to divide) and whose seed is `seed`. An empty
    graph gives an empty partition.

    Ids are "c_00", "c_01", … by size, largest first, ties by the smallest member (as a
    string), so the same partition always gets the same ids; the width grows with the
    count (c_000 from 101 communities).
    """
    if trials < 1:
        raise ValueError("trials must be at least 1")
    if not resolution > 0:
        raise ValueError("resolution must be greater than 0")
    with _paused_gc():
        nodes = sorted(graph.nodes, key=str)
        # graspologic_native names nodes by string: number them, so any hashable node
        # works and the edge list does not depend on the graph's insertion order.
        number = {node: i for i, node in enumerate(nodes)}
        names = [str(i) for i in range(len(nodes))]
        pairs = set()
        for u, v in graph.edges():
            a, b = number[u], number[v]
            if a != b:
                pairs.add((a, b) if a < b else (b, a))  # a multigraph's parallel edges: one
        edges = [(names[a], names[b], 1.0) for a, b in sorted(pairs)]
        del pairs
    best_q, best_seed, best_groups = 0.0, seed, {}
    if edges:
        import graspologic_native as gn  # lazily: only a run that clusters pays for it

        def run(trial_seed: int) -> tuple[float, dict[str, int]]:
            return gn.leiden(
                edges, resolution=float(resolution), randomness=_RANDOMNESS,
                iterations=_ITERATIONS, use_modularity=True, seed=trial_seed, trials=1,
            )

        seeds = range(seed, seed + trials)
        # the native code lets go of the GIL: seeds run side by side, each one the same
        # as it would be alone, so the result does not depend on the number of cores
        workers = min(trials, os.cpu_count() or 1, _MAX_WORKERS)
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                results = list(pool.map(run, seeds))
        else:
            results = [run(s) for s in seeds]
        found = None
        for trial_seed, (quality, groups) in zip(seeds, results, strict=True):
            if found is None or quality > found[0] + _TIE:
                found = (quality, trial_seed, groups)
        best_q, best_seed, best_groups = found
        del results
    with _paused_gc():
        members: dict[object, list[Hashable]] = {}
        for i, node in enumerate(nodes):
            group = best_groups.get(names[i])
            key = ("g", group) if group is not None else ("solo", i)
            members.setdefault(key, []).append(node)
        # each member list is in `nodes` order, so its first member is its smallest
        ranked = sorted(members.values(), key=lambda ms: (-len(ms), str(ms[0])))
        width = max(2, len(str(len(ranked) - 1)))
        communities = {
            node: f"c_{k:0{width}d}" for k, group in enumerate(ranked) for node in group
        }
    return Partition(MappingProxyType(communities), float(best_q), best_seed)


# -- ids that stay -----------------------------------------------------------------------------

# A new community keeps a previous one's id when their node sets are at least this alike
# (Jaccard): below it most of either is other notes, and it is another community.
SAME_COMMUNITY = 0.3


def _id_number(cid: str) -> int:
    digits = cid[2:] if cid.startswith("c_") else ""
    return int(digits) + 1 if digits.isdigit() else 0


def keep_ids(new: Mapping[str, str], previous: Mapping[str, str] | None,
             issued: int = 0) -> tuple[dict[str, str], int]:
    """`new` ({node: Leiden's id}) relabelled so a community keeps the id of the previous
    run's community it matches (module doc), and the count of ids issued so far. The
    fresh ids continue from `issued` and from every id `previous` holds, in Leiden's order
    (largest first); with no previous run Leiden's ids stand."""
    groups: dict[str, set[str]] = {}
    for node, cid in new.items():
        groups.setdefault(cid, set()).add(node)
    if previous is None:
        return dict(new), max(issued, *(_id_number(c) for c in groups), 0)
    before: dict[str, set[str]] = {}
    for node, pid in previous.items():
        before.setdefault(pid, set()).add(node)
    pairs = []
    for cid, nodes in groups.items():
        for pid in {previous[n] for n in nodes if n in previous}:
            inter = len(nodes & before[pid])
            jaccard = inter / (len(nodes) + len(before[pid]) - inter)
            if jaccard >= SAME_COMMUNITY:
                pairs.append((-jaccard, -inter, cid, pid))
    kept: dict[str, str] = {}
    taken: set[str] = set()
    for _, _, cid, pid in sorted(pairs):  # the best match first, each id once
        if cid not in kept and pid not in taken:
            kept[cid] = pid
            taken.add(pid)
    fresh = max(issued, *(_id_number(p) for p in before), 0)
    width = max(2, len(str(fresh + len(groups))))
    for cid in sorted(groups, key=lambda c: (-len(groups[c]), min(groups[c]))):
        if cid not in kept:
            kept[cid] = f"c_{fresh:0{width}d}"
            fresh += 1
    return {node: kept[cid] for node, cid in new.items()}, fresh


# -- stability ---------------------------------------------------------------------------------

def stability(
    new: Mapping[str, str], previous: Mapping[str, str] | None
) -> dict[str, float | None]:
    """Per new community id: the highest Jaccard similarity of its node set with any
    previous community's node set (1.0 unchanged, 0.0 wholly new).

    Previous communities are whole as they were, members since deleted included: a
    community that lost half its notes is half stable. With no previous partition every
    value is None — unknown, not 0 and not 1. An empty previous partition (the last run
    saw no notes) is known: every community is new, 0.0.
    """
    sizes: dict[str, int] = {}
    for cid in new.values():
        sizes[cid] = sizes.get(cid, 0) + 1
    if previous is None:
        return {cid: None for cid in sorted(sizes)}
    prev_sizes: dict[str, int] = {}
    for pid in previous.values():
        prev_sizes[pid] = prev_sizes.get(pid, 0) + 1
    overlap: dict[str, dict[str, int]] = {cid: {} for cid in sizes}
    for node, cid in new.items():
        pid = previous.get(node)
        if pid is not None:
            row = overlap[cid]
            row[pid] = row.get(pid, 0) + 1
    out: dict[str, float | None] = {}
    for cid in sorted(sizes):
        best = 0.0
        for pid, inter in overlap[cid].items():
            best = max(best, inter / (sizes[cid] + prev_sizes[pid] - inter))
        out[cid] = best
    return out


def community_stats(communities: Mapping[str, str]) -> dict:
    """`n_communities`, `median_size`, `max_size`, and `singletons` (communities of one
    note: isolated notes, mostly — they pull the median down, so they are counted)."""
    sizes: dict[str, int] = {}
    for cid in communities.values():
        sizes[cid] = sizes.get(cid, 0) + 1
    counts = list(sizes.values())
    median = statistics.median(counts) if counts else 0
    return {
        "n_communities": len(counts),
        "median_size": int(median) if float(median).is_integer() else float(median),
        "max_size": max(counts, default=0),
        "singletons": sum(1 for c in counts if c == 1),
    }


# -- misfiled buckets --------------------------------------------------------------------------

def misfiled_notes(communities: Mapping[str, str], *,
                   min_share: float = _DEFAULTS.misfiled_share,
                   min_size: int = _DEFAULTS.misfiled_min_size) -> tuple[Misfiled, ...]:
    """The notes of a community of at least `min_size` digest notes whose other members
    are at least `min_share` in one bucket that is not the note's own (docs/spec.md
    §7.2.8): a procedure among wiki notes about one system. Communities cross buckets on
    purpose; a note the graph puts wholly among another bucket's notes is worth a look.
    Sorted by community, then path. Pure: nothing is moved."""
    members: dict[str, list[str]] = {}
    for path, cid in communities.items():
        if bucket_of(path) is not None:
            members.setdefault(cid, []).append(path)
    out: list[Misfiled] = []
    for cid in sorted(members):
        group = members[cid]
        if len(group) < min_size:
            continue
        counts: dict[str, int] = {}
        for path in group:
            counts[bucket_of(path)] = counts.get(bucket_of(path), 0) + 1
        for path in sorted(group):
            own = bucket_of(path)
            others = len(group) - 1
            rest = {b: n - (1 if b == own else 0) for b, n in counts.items()}
            dominant = max(sorted(rest), key=lambda b: rest[b])
            share = rest[dominant] / others
            if dominant != own and share >= min_share:
                out.append(Misfiled(path, own, cid, len(group), dominant, share))
    return tuple(out)


# -- the writer --------------------------------------------------------------------------------

def _previous(root) -> tuple[dict[str, str] | None, str | None, int]:
    """The last run's {path: id}, computed_at and ids issued; (None, None, 0) when there is
    none usable."""
    read = read_meta(root, COMMUNITIES_META, version=META_VERSION, rebuild=REBUILD)
    doc = read.data
    if doc is None:
        return None, None, 0
    found = doc.get("communities")
    if not isinstance(found, dict):
        return None, None, 0
    communities = {
        k: str(v) for k, v in found.items()
        if isinstance(k, str) and isinstance(v, str | int) and not isinstance(v, bool)
    }
    when = doc.get("computed_at")
    issued = doc.get("ids_issued")
    issued = issued if isinstance(issued, int) and not isinstance(issued, bool) else 0
    return communities, when if isinstance(when, str) else None, max(issued, 0)


def _member_hubs(vault: Vault, communities: Mapping[str, str],
                 hub_coverage: float | None) -> dict[str, str]:
    """{id: the member that already is the community's hub} (`abstract.community_hub`)."""
    from .abstract import community_hub  # abstract reads this module's meta names

    groups: dict[str, list[str]] = {}
    for path, cid in communities.items():
        groups.setdefault(cid, []).append(path)
    out = {}
    for cid in sorted(groups):
        if len(groups[cid]) < 2:
            continue
        hub = (community_hub(vault, groups[cid]) if hub_coverage is None
               else community_hub(vault, groups[cid], hub_coverage))
        if hub.found and hub.member is not None:
            out[cid] = hub.member
    return out


def update_communities(
    vault: Vault,
    cfg: CommunitySettings,
    *,
    now: datetime,
    dry_run: bool = False,
    hub_coverage: float | None = None,
) -> CommunityReport:
    """Recompute the communities of `vault`'s digest with the `[communities]` settings
    `cfg` and write both meta files.

    Reads the previous `meta/communities.json` (version 1; a missing, broken or
    other-version file means there is no previous run, so stability is unknown), runs
    `leiden` on `digest_graph(vault.graph)` — the graph as the vault holds it now; the
    caller refreshes the vault first — and writes `meta/communities.json`, then
    `meta/community_changes.json`, then `meta/misfiled.json` (the notes that look
    misfiled, `misfiled_notes`), each atomically. Ids are kept from the previous run
    (`keep_ids`); `hubs` are the members that already are their community's hub, by
    `[abstract] hub_coverage` (`hub_coverage`; None: its default). `dry_run` computes the
    same report and writes nothing.
    """
    previous, previous_at, issued = _previous(vault.root)
    found = leiden(digest_graph(vault.graph), resolution=cfg.resolution, seed=cfg.seed,
                   trials=cfg.trials)
    communities, issued = keep_ids(found.communities, previous, issued)
    partition = Partition(MappingProxyType(communities), found.modularity, found.seed)
    hubs = _member_hubs(vault, communities, hub_coverage)
    stats = community_stats(communities)
    stable = stability(communities, previous)
    misfiled = misfiled_notes(communities, min_share=cfg.misfiled_share,
                              min_size=cfg.misfiled_min_size)
    paths: tuple[str, ...] = ()
    if not dry_run:
        write_meta(vault.root, COMMUNITIES_META, {
            "algorithm": ALGORITHM,
            "resolution": cfg.resolution,
            "seed": partition.seed,
            "seeds_tried": [cfg.seed + i for i in range(cfg.trials)],
            "modularity": round(partition.modularity, 6),
            "communities": dict(sorted(communities.items())),
            "ids_issued": issued,
            "hubs": hubs,
            "stats": stats,
        }, version=META_VERSION, now=now)
        write_meta(vault.root, CHANGES_META, {
            "previous": previous_at,
            "stability_per_community": {
                cid: (None if s is None else round(s, 6)) for cid, s in stable.items()
            },
        }, version=META_VERSION, now=now)
        write_meta(vault.root, MISFILED_META, {
            "min_share": cfg.misfiled_share,
            "min_size": cfg.misfiled_min_size,
            "notes": [m.to_json() for m in misfiled],
        }, version=META_VERSION, now=now)
        paths = (f"meta/{COMMUNITIES_META}.json", f"meta/{CHANGES_META}.json",
                 f"meta/{MISFILED_META}.json")
    return CommunityReport(partition, stats, stable, previous_at, paths, misfiled)
