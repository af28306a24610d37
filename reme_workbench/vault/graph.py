"""`LinkGraph`: the digest as a networkx MultiDiGraph, kept in step with a `VaultScan`.

Nodes are digest notes (`digest/<bucket>/….md`). There is one edge per distinct
`(target, predicate)` key between two digest notes — `[[b.md]]` and `is_a:: [[b.md]]`
are two edges, keyed `""` and `"is_a"` — so parallel edges carry the predicate as their
key and as the `predicate` attribute (None for an untyped link). Embeds (`![[x]]`) are
resource references, not knowledge edges. Links from digest notes into daily/ or
resource/ are provenance and are kept apart in `provenance`.

A short or relative link (`[[Note]]`, `[[../wiki/Note]]`, a note's alias) counts as the
edge Obsidian draws: it is resolved from its note by Obsidian's rules (`vault.resolve`, docs/spec.md
§2.4), so the graph of a vault that was never normalised is the one Obsidian shows. An
ambiguous link draws no edge. When files appear or go, the notes holding short links
are resolved again (a new `Note.md` may make `[[Note]]` resolve, or ambiguous).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

import networkx as nx

from ..errors import UnsafePathError
from .layout import BUCKETS, SOURCE_LAYERS, bucket_of, is_digest_note, normalize_rel
from .links import Link
from .resolve import LinkResolver
from .scan import FileRecord, ScanDelta, VaultScan, _paused_gc

__all__ = ["LinkGraph", "EdgeKey"]

EdgeKey = tuple[str, str | None]  # (other note, predicate)


_DIGEST, _SOURCE, _OTHER = 1, 2, 0


@lru_cache(maxsize=1 << 17)
def _classify(target: str) -> tuple[str, int]:
    """(the target as a clean vault path, digest note / source file / other)."""
    try:
        clean = normalize_rel(target)
    except UnsafePathError:
        return target, _OTHER
    if is_digest_note(clean):
        return clean, _DIGEST
    return clean, (_SOURCE if clean.split("/", 1)[0] in SOURCE_LAYERS else _OTHER)


class LinkGraph:
    """Build with `LinkGraph.from_scan(scan)`; keep fresh with `update(scan, delta)`."""

    def __init__(self) -> None:
        self.graph: nx.MultiDiGraph = nx.MultiDiGraph()
        self._provenance: dict[str, tuple[Link, ...]] = {}
        # every digest source -> the edge keys it asks for, whether the target exists or not
        self._wants: dict[str, set[EdgeKey]] = {}
        # digest target -> sources asking for it, so a note created later gets its inbound
        self._wanted_by: dict[str, set[str]] = {}
        self._scan: VaultScan | None = None
        self._resolver = LinkResolver(())
        self._short: set[str] = set()  # digest notes holding links that are not vault paths

    @property
    def provenance(self) -> Mapping[str, tuple[Link, ...]]:
        """Digest note -> its (non-embed) links into daily/ or resource/, any predicate."""
        return MappingProxyType(self._provenance)

    # -- building ----------------------------------------------------------------------
    @classmethod
    def from_scan(cls, scan: VaultScan) -> LinkGraph:
        self = cls()
        self._scan = scan
        self._resolver = LinkResolver(scan.records)
        with _paused_gc():
            # an unreadable file (binary, not UTF-8, too large) is a problem, not a note
            notes = [
                rec for path, rec in scan.records.items() if is_digest_note(path) and rec.readable
            ]
            self.graph.add_nodes_from((rec.path, _node_attrs(rec)) for rec in notes)
            nodes = self.graph.nodes
            edges = []
            for rec in notes:
                for target, predicate in self._index(rec):
                    if target in nodes:
                        edges.append((rec.path, target, predicate or "", {"predicate": predicate}))
            self.graph.add_edges_from(edges)
        return self

    def update(self, scan: VaultScan, delta: ScanDelta) -> None:
        """Apply a scan delta: only the edges of changed or removed files are touched, and
        those of notes whose short links may resolve otherwise now that files came or went."""
        self._scan = scan
        graph = self.graph
        resolver = self._resolver
        records = scan.records
        # a file came or went, or a note's aliases changed: short links may name another
        moved = bool(delta.removed) or any(
            p not in resolver or (p in records and resolver.aliases(p) != records[p].aliases)
            for p in delta.changed)
        for path in delta.removed:
            resolver.remove(path)
        for path in delta.changed:
            if path in records:
                resolver.add(path, records[path].aliases)
        for path in delta.removed:
            if path in graph:
                graph.remove_node(path)  # its in- and out-edges go with it
            self._forget(path)
        again = (self._short - set(delta.changed) - set(delta.removed)) if moved else set()
        for path in [*delta.changed, *sorted(again)]:
            rec = records.get(path)
            if rec is None or not is_digest_note(path):
                continue
            if not rec.readable:  # became unreadable: no longer a note
                if path in graph:
                    graph.remove_node(path)
                self._forget(path)
                continue
            is_new = path not in graph
            graph.add_node(path, **_node_attrs(rec))
            if not is_new:
                graph.remove_edges_from(list(graph.out_edges(path, keys=True)))
            self._forget(path)
            for target, predicate in self._index(rec):
                if target in graph:
                    graph.add_edge(path, target, key=predicate or "", predicate=predicate)
            if is_new:  # links written before this note existed now become edges
                for source in self._wanted_by.get(path, ()):
                    for target, predicate in self._wants.get(source, ()):
                        if target == path:
                            graph.add_edge(source, path, key=predicate or "", predicate=predicate)

    def _index(self, rec: FileRecord) -> set[EdgeKey]:
        """Record `rec`'s wanted edge keys and provenance; return the keys."""
        wants: set[EdgeKey] = set()
        provenance = []
        short = False
        records = self._scan.records if self._scan is not None else {}
        for link in rec.links:
            if link.embed or not link.target:
                continue
            target, kind = _classify(link.target)
            if target not in records:  # not a vault path of a file: resolve as Obsidian does
                found = self._resolver.resolve(link.target, rec.path)
                short = True
                if found.path is not None:
                    target, kind = _classify(found.path)
                elif kind == _OTHER:
                    continue  # ambiguous, or a short name of nothing: no edge (yet)
            if kind == _DIGEST:
                wants.add((target, link.predicate))
            elif kind == _SOURCE:
                provenance.append(link)
        wanted_by = self._wanted_by
        for target, _ in wants:
            if target in wanted_by:
                wanted_by[target].add(rec.path)
            else:
                wanted_by[target] = {rec.path}
        self._wants[rec.path] = wants
        if short:
            self._short.add(rec.path)
        if provenance:
            self._provenance[rec.path] = tuple(provenance)
        return wants

    def _forget(self, path: str) -> None:
        for target, _ in self._wants.pop(path, ()):
            sources = self._wanted_by.get(target)
            if sources is not None:
                sources.discard(path)
                if not sources:
                    del self._wanted_by[target]
        self._provenance.pop(path, None)
        self._short.discard(path)

    # -- queries -----------------------------------------------------------------------
    def outbound(self, path: str) -> set[EdgeKey]:
        """(target, predicate) of `path`'s edges to existing digest notes.

        Dangling links are in `dangling()`, links into daily/ and resource/ in
        `provenance`, embeds nowhere: none of them is an edge.
        """
        if path not in self.graph:
            return set()
        return {(v, d["predicate"]) for _, v, d in self.graph.out_edges(path, data=True)}

    def inbound(self, path: str) -> set[EdgeKey]:
        """(source, predicate) of the digest notes linking to `path`."""
        if path not in self.graph:
            return set()
        return {(u, d["predicate"]) for u, _, d in self.graph.in_edges(path, data=True)}

    def dangling(self) -> list[tuple[str, Link]]:
        """Links (embeds and provenance included) in digest notes that resolve to nothing,
        by Obsidian's rules (an ambiguous short link resolves, to one of several)."""
        scan = self._scan
        if scan is None:
            return []
        found = []
        for path in sorted(self.graph):
            rec = scan.records.get(path)
            for link in rec.links if rec is not None else ():
                if (link.target and not scan.exists(link.target)
                        and self._resolver.resolve(link.target, path).how == "missing"):
                    found.append((path, link))
        return found

    def stats(self, top: int = 10) -> dict:
        graph = self.graph
        buckets = {b: {"nodes": 0, "edges_out": 0} for b in BUCKETS}
        for node, out_degree in graph.out_degree():
            row = buckets[bucket_of(node)]
            row["nodes"] += 1
            row["edges_out"] += out_degree
        ranked = sorted(
            ((-deg, node) for node, deg in graph.in_degree() if deg > 0)
        )[: max(top, 0)]
        return {
            "nodes": graph.number_of_nodes(),
            "edges": graph.number_of_edges(),
            "buckets": buckets,
            "dangling_links": [
                {"source": src, "target": link.target, "line": link.line, "column": link.column}
                for src, link in self.dangling()
            ],
            "isolated_nodes": sorted(nx.isolates(graph)),
            "top_inbound": [{"path": node, "inbound": -neg} for neg, node in ranked],
            "provenance_links": sum(len(v) for v in self._provenance.values()),
        }


def _node_attrs(rec: FileRecord) -> dict:
    return {"bucket": bucket_of(rec.path), "name": rec.name, "description": rec.description}
