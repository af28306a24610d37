"""Recall: keyword + vector search fused per chunk, link traversal, and the meta signals.

1. Search. The keyword (FTS5 bm25) and vector (cosine) lists, `CANDIDATES` chunks each,
   are fused per chunk. Vector hits with cosine ≤ 0 share no feature with the query
   and are dropped, so an unrelated vault yields no hits.
   * fusion="rrf" (the default, as the recall issue specifies): weighted reciprocal rank
     fusion, score = Σ w / (rrf_k + rank), rank 1-based, rrf_k = RecallSettings.rrf_k
     (60), w = 1 for the keyword list and `RRF_VECTOR_WEIGHT` (0.3) for the vector list.
   * fusion="relative" (opt-in, [recall] fusion = "relative"): each list's scores are put on 0..1 relative to
     that list — bm25 / the list's best bm25 (bm25 has a natural zero: no match), and
     (cosine − floor) / (best cosine − floor), the floor being the cosine of the
     `CANDIDATES`-th nearest chunk, the level a chunk reaches by chance (0 when the
     list is shorter: a small vault) — and a chunk scores
     `KEYWORD_WEIGHT`·keyword + (1 − `KEYWORD_WEIGHT`)·vector, 0 for a list it is not
     in. Unlike rank fusion this keeps how far ahead the best hit is: a keyword hit
     with twice the next bm25 is not overtaken by a chunk that is only middling in
     both lists. The keyword list weighs 0.7: exact words are the sharper signal for
     an agent's logs and notes (names, tools, error strings), and MiniLM's cosine
     spread is narrow; measured on LoCoMo, fused beats either list alone.
     On LoCoMo (benchmarks/locomo_recall.py) it measures higher than weighted RRF
     (recall@5 0.908 vs 0.900, MRR 0.852 vs 0.830).
   The vector list is searched with the query minus its words found in more than half
   of the index's chunks (KeywordSearch.vector_query: a name or year on every chunk tells
   none apart but pulls the embedding towards all of them; LoCoMo vector recall@5 0.754
   -> 0.829, fused RRF MRR 0.811 -> 0.830).
   In a single-list mode that list's (normalised) score is the chunk's score.
2. Files. A file's score is its best chunk's score (max, not sum: overlapping windows
   of a transcript repeat each line in several chunks, and a file is as relevant as
   its best passage) times its recency factor; its best `CHUNKS_PER_FILE` (2) chunks
   are shown.
3. Traverse (docs/spec.md §6.4). From the best `TRAVERSE_SEEDS` search hits, links are
   followed `traverse_depth` hops in both directions across buckets (LinkGraph
   outbound + inbound); for the "sources" and "all" scopes also provenance links
   (digest note ⇄ the daily/resource file it is derived from). A note reached at hop h
   from a seed scores seed × `HOP_DECAY`^h (0.5 per hop) × its own recency factor; the
   best path wins, and a search hit keeps via="search" with the higher of its two
   scores. Intermediate hops may leave the scope; only in-scope, indexed notes are added.
4. Signals, each used only when its meta file exists (docs/spec.md §6.5, §8.2); a file with the
   wrong version or bad JSON is ignored with a warning and recall goes on without it:
   * meta/archived.json `{"version": 1, "archived": [path, ...]}` — these paths are
     dropped (unless include_archived=True), as hits and as traversal targets, except
     those touched since the batch (vault/archive_state.py: access-log lines after the
     batch's `access_log_bytes`), which thaw at once (docs/spec.md §7.3.6);
   * meta/recency.json `{"version": 1, "scores": {path: 0..1}}` — score × (0.5 + 0.5·r),
     so a cold note keeps at least half its score; a path without a score keeps 1.0;
   * meta/communities.json `{"version": 1, "communities": {path: id}}` (docs/spec.md §6.5.3, §8.2) —
     every candidate in the community of the top search hit is multiplied by 1.2.
5. Every returned hit appends {"ts", "path", "event": "recall", "query", "rank"} to
   meta/access_log.jsonl (vault.meta.log_access; the archive batch reads it), unless
   log_access=False.
"""

from __future__ import annotations

import math
import os
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import RemeError, UnsafePathError
from ..vault.archive_state import ArchiveBatch
from ..vault.graph import LinkGraph
from ..vault.layout import is_digest_note, normalize_rel
from ..vault.meta import log_access, meta_path, read_meta
from .store import VaultIndex, scope_layers

__all__ = ["ChunkHit", "RecallHit", "recall", "recall_batch", "MODES", "FUSIONS"]

MODES = ("fused", "keyword", "vector")
FUSIONS = ("rrf", "relative")
CANDIDATES = 50  # chunks taken from each ranked list
KEYWORD_WEIGHT = 0.7  # relative fusion: the keyword list's share; the vector list has the rest
# weighted RRF: the vector list counts 0.3 of the keyword list (exact words are the sharper
# signal in an agent's logs and notes; MiniLM's ranks are noisier), as the baseline
RRF_VECTOR_WEIGHT = 0.3
CHUNKS_PER_FILE = 2
TRAVERSE_SEEDS = 3
HOP_DECAY = 0.5
COMMUNITY_BOOST = 1.2
META_VERSION = 1  # of communities.json, recency.json and archived.json


@dataclass(frozen=True)
class ChunkHit:
    text: str
    line_start: int
    line_end: int
    score: float  # the chunk's RRF score; 0.0 for the preview chunk of a link hit


@dataclass(frozen=True)
class RecallHit:
    path: str
    score: float
    name: str | None
    description: str | None
    chunks: tuple[ChunkHit, ...]
    via: str  # "search" | "link"

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "score": self.score,
            "name": self.name,
            "description": self.description,
            "via": self.via,
            "chunks": [
                {"text": c.text, "line_start": c.line_start, "line_end": c.line_end,
                 "score": c.score}
                for c in self.chunks
            ],
        }


# -- meta signals ------------------------------------------------------------------------

def _communities(doc: dict) -> dict[str, str] | None:
    found = doc.get("communities")
    if not isinstance(found, dict):
        return None
    return {k: str(v) for k, v in found.items() if isinstance(k, str) and isinstance(v, str | int)}


def _recency(doc: dict) -> dict[str, float] | None:
    found = doc.get("scores")
    if not isinstance(found, dict):
        return None
    return {
        k: min(1.0, max(0.0, float(v))) for k, v in found.items()
        if isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        and math.isfinite(v)
    }


def _archived(doc: dict) -> ArchiveBatch | None:
    return ArchiveBatch.from_doc(doc)


_PARSERS: dict[str, tuple[str, Callable[[dict], Any]]] = {
    "communities": ("communities", _communities),
    "recency": ("scores", _recency),
    "archived": ("archived", _archived),
}
# (root, name) -> (stat key, parsed value, warning): a 10k-entry JSON is parsed once.
# Small files are re-read every time: cheap, and safe from a same-size rewrite within
# one mtime tick (write_meta renames, so a big file's inode changes with every write).
_CACHE_FROM = 64 * 1024
_SIGNAL_CACHE: dict[tuple[str, str], tuple[tuple, Any, str | None]] = {}


def _signal(root: Path, name: str) -> Any:
    """The parsed meta file, or None when absent (silently) or unusable (with a warning)."""
    field, parse = _PARSERS[name]
    try:
        st = os.stat(meta_path(root, name))
    except FileNotFoundError:
        return None  # no signal yet: recall simply does without it
    except (OSError, UnsafePathError) as exc:
        warnings.warn(f"meta/{name}.json cannot be read ({exc}); ignoring it.", RuntimeWarning,
                      stacklevel=4)
        return None
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = _SIGNAL_CACHE.get((str(root), name))
    if cached is not None and cached[0] == key and st.st_size >= _CACHE_FROM:
        _, value, warning = cached
    else:
        read = read_meta(root, name, version=META_VERSION)
        value, warning = None, read.warning
        if read.data is not None:
            value = parse(read.data)
            if value is None:
                warning = (f"meta/{name}.json has no valid {field!r} entry; ignoring it — it is "
                           "rebuilt the next time it is computed.")
        _SIGNAL_CACHE[(str(root), name)] = (key, value, warning)
    if warning:
        warnings.warn(warning, RuntimeWarning, stacklevel=4)
    return value


@lru_cache(maxsize=1 << 17)
def _clean_target(target: str) -> str | None:
    try:
        return normalize_rel(target)
    except RemeError:
        return None


def reverse_provenance(graph: LinkGraph) -> dict[str, list[str]]:
    """Source file -> the digest notes derived from it (graph.provenance inverted)."""
    derived: dict[str, list[str]] = {}
    for note, links in graph.provenance.items():
        for link in links:
            target = _clean_target(link.target)
            if target is not None:
                derived.setdefault(target, []).append(note)
    return derived


# graph -> (index generation, reverse provenance), for the index's own graph only
_DERIVED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- recall ------------------------------------------------------------------------------

class _Recaller:
    """Everything a query needs that does not depend on the query, set up once."""

    def __init__(
        self, index: VaultIndex, *, k: int = 10, scope: str = "digest", mode: str = "fused",
        graph: LinkGraph | None = None, traverse_depth: int = 2, rrf_k: int = 60,
        include_archived: bool = False, log_access: bool = True, now: datetime | None = None,
        fusion: str = "rrf",
    ) -> None:
        self.layers = scope_layers(scope)
        if mode not in MODES:
            raise RemeError(f"Unknown mode {mode!r}; use one of {', '.join(MODES)}.")
        if fusion not in FUSIONS:
            raise RemeError(f"Unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}.")
        self.fusion = fusion
        if not isinstance(k, int) or k < 1:
            raise RemeError(f"k must be a positive number of hits, not {k!r}.")
        if rrf_k <= 0 or traverse_depth < 0:
            raise RemeError("rrf_k must be > 0 and traverse_depth >= 0 (see RecallSettings).")
        self.index, self.scope, self.mode, self.k = index, scope, mode, k
        self.depth, self.rrf_k = traverse_depth, rrf_k
        self.log_access, self.now = log_access, now
        self._graph = graph
        self._own_graph = graph is None
        self._derived_by: dict[str, list[str]] | None = None  # source -> digest notes
        self.communities = _signal(index.root, "communities")
        self.recency = _signal(index.root, "recency")
        batch = None if include_archived else _signal(index.root, "archived")
        # the batch's list less the notes touched since it ran: they thaw at once (§7.3.6)
        self.archived = None if batch is None else batch.archived_now(index.root)

    def run(self, query: str) -> list[RecallHit]:
        if not isinstance(query, str) or not query.strip():
            return []
        keyword = vector = None
        if self.mode != "vector":
            keyword = self.index.keyword_search(query, limit=CANDIDATES, scope=self.scope)
        if self.mode != "keyword":
            hits = self.index.vector_search(
                self.index.vector_query(query), limit=CANDIDATES, scope=self.scope
            )
            vector = [(cid, s) for cid, s in hits if s > 0]
        gaps, share = self.index.vector_gaps() if keyword is not None and vector is not None \
            else (frozenset(), 1.0)
        fused = self._fuse(keyword, vector, gaps, share)
        if not fused:
            return []
        rows = self.index.chunks(fused)
        per_file: dict[str, list[tuple[float, int]]] = {}
        for cid, s in fused.items():
            if cid in rows:
                per_file.setdefault(rows[cid].path, []).append((s, cid))

        scores: dict[str, float] = {}
        shown: dict[str, list[tuple[float, int]]] = {}
        for path, found in per_file.items():
            if self._dropped(path):
                continue
            found.sort(key=lambda t: (-t[0], t[1]))
            shown[path] = found[:CHUNKS_PER_FILE]
            scores[path] = found[0][0] * self._recency(path)
        if not scores:
            return []
        order = sorted(scores, key=lambda p: (-scores[p], p))
        final = dict(scores)
        via = dict.fromkeys(scores, "search")
        if self.depth:
            for path, score in self._traverse(order[:TRAVERSE_SEEDS], scores).items():
                if path not in final:
                    via[path] = "link"
                final[path] = max(final.get(path, 0.0), score)
        if self.communities:
            top = self.communities.get(order[0])
            if top is not None:
                for path in final:
                    if self.communities.get(path) == top:
                        final[path] *= COMMUNITY_BOOST

        best = sorted(final, key=lambda p: (-final[p], p))[: self.k]
        hits = [self._hit(p, final[p], via[p], shown.get(p), rows) for p in best]
        if self.log_access:
            self._log(query, hits)
        return hits

    # -- pieces --------------------------------------------------------------------------
    def _fuse(self, keyword, vector, gaps: frozenset[int] = frozenset(),
              share: float = 1.0) -> dict[int, float]:
        """chunk id -> fused score from the keyword and/or vector (id, score) lists.

        While part of the vectors wait (a keyword-only refresh), the vector list sees only
        the chunks that have one: fused as it is, it would lift those over the rest (on
        LoCoMo, half the vectors dropped MRR from 0.83 to 0.63). So a chunk without a
        vector (`gaps`) is taken to rank in the vector list as it ranks by keyword, and a
        vector rank among the `share` s of chunks that have one counts as rank / s."""
        lists = [x for x in (keyword, vector) if x is not None]
        both = len(lists) == 2
        share = max(share, 1e-3)
        fused: dict[int, float] = {}
        if self.fusion == "rrf":
            weight = RRF_VECTOR_WEIGHT if both else 1.0
            for rank, (cid, _) in enumerate(keyword or (), 1):
                imputed = weight if cid in gaps else 0.0
                fused[cid] = fused.get(cid, 0.0) + (1.0 + imputed) / (self.rrf_k + rank)
            for rank, (cid, _) in enumerate(vector or (), 1):
                fused[cid] = fused.get(cid, 0.0) + weight / (self.rrf_k + rank / share)
            return fused
        for ranked, weight, floor in (
            (keyword, KEYWORD_WEIGHT if both else 1.0, 0.0),  # bm25 counts from 0: no match
            (vector, 1.0 - KEYWORD_WEIGHT if both else 1.0,  # cosine from the chance level
             vector[-1][1] if vector and len(vector) >= CANDIDATES else 0.0),
        ):
            if not ranked:
                continue
            span = ranked[0][1] - floor
            for cid, score in ranked:
                value = (score - floor) / span if span > 0 else 1.0
                if ranked is keyword and cid in gaps:  # no vector: valued as by keyword
                    value *= 1.0 + (1.0 - KEYWORD_WEIGHT) / KEYWORD_WEIGHT
                fused[cid] = fused.get(cid, 0.0) + weight * value
        return fused

    def _dropped(self, path: str) -> bool:
        return bool(self.archived) and path in self.archived

    def _recency(self, path: str) -> float:
        if not self.recency or path not in self.recency:
            return 1.0
        return 0.5 + 0.5 * self.recency[path]

    def _traverse(self, seeds: list[str], scores: Mapping[str, float]) -> dict[str, float]:
        """Link-reached, in-scope, indexed notes with their decayed scores (best path)."""
        found: dict[str, float] = {}
        for seed in seeds:
            hop_of = {seed: 0}
            frontier = [seed]
            for hop in range(1, self.depth + 1):
                nxt = []
                for node in frontier:
                    for other in self._adjacent(node):
                        if other not in hop_of:
                            hop_of[other] = hop
                            nxt.append(other)
                frontier = nxt
            for node, hop in hop_of.items():
                if hop == 0 or self._dropped(node):
                    continue
                info = self.index.file(node)
                if info is None or info.layer not in self.layers:
                    continue
                score = scores[seed] * HOP_DECAY**hop * self._recency(node)
                if score > found.get(node, 0.0):
                    found[node] = score
        return found

    def _adjacent(self, node: str) -> list[str]:
        graph = self._graph_view()
        provenance = self.scope != "digest"
        if is_digest_note(node):
            out = [t for t, _ in graph.outbound(node)] + [s for s, _ in graph.inbound(node)]
            if provenance:
                out += [t for t in (_clean_target(lk.target)
                                    for lk in graph.provenance.get(node, ())) if t is not None]
            return out
        return self._sources_map().get(node, []) if provenance else []

    def _graph_view(self) -> LinkGraph:
        if self._graph is None:
            self._graph = self.index.link_graph()
        return self._graph

    def _sources_map(self) -> dict[str, list[str]]:
        if self._derived_by is None:
            graph = self._graph_view()
            if not self._own_graph:  # a caller's graph may change any time: invert it here
                self._derived_by = reverse_provenance(graph)
            else:  # the index's own graph changes only with the index's generation
                cached = _DERIVED.get(graph)
                if cached is None or cached[0] != self.index.generation:
                    cached = (self.index.generation, reverse_provenance(graph))
                    _DERIVED[graph] = cached
                self._derived_by = cached[1]
        return self._derived_by

    def _hit(self, path: str, score: float, via: str, shown, rows) -> RecallHit:
        info = self.index.file(path)
        if shown:
            chunks = tuple(
                ChunkHit(rows[cid].text, rows[cid].line_start, rows[cid].line_end, s)
                for s, cid in shown
            )
        else:  # a link hit: its opening chunk as a preview
            first = self.index.first_chunk(path)
            chunks = () if first is None else (
                ChunkHit(first.text, first.line_start, first.line_end, 0.0),
            )
        return RecallHit(
            path, score, info.name if info else None, info.description if info else None,
            chunks, via,
        )

    def _log(self, query: str, hits: list[RecallHit]) -> None:
        when = self.now or datetime.now(UTC)
        try:
            for rank, hit in enumerate(hits, 1):
                log_access(getattr(self.index, "home", self.index.root), hit.path, when, "recall", query=query, rank=rank)
        except (OSError, RemeError) as exc:  # a log that cannot be written never costs a recall
            warnings.warn(f"meta/access_log.jsonl not written ({exc}).", RuntimeWarning,
                          stacklevel=3)


def recall(
    index: VaultIndex,
    query: str,
    *,
    k: int = 10,
    scope: str = "digest",
    mode: str = "fused",
    graph: LinkGraph | None = None,
    traverse_depth: int = 2,
    rrf_k: int = 60,
    include_archived: bool = False,
    log_access: bool = True,
    now: datetime | None = None,
    fusion: str = "rrf",
) -> list[RecallHit]:
    """The `k` best files for `query` in `scope`, best first (see the module docstring)."""
    return _Recaller(
        index, k=k, scope=scope, mode=mode, graph=graph, traverse_depth=traverse_depth,
        rrf_k=rrf_k, include_archived=include_archived, log_access=log_access, now=now,
        fusion=fusion,
    ).run(query)


def recall_batch(
    index: VaultIndex,
    queries: Iterable[tuple[str, str]],
    *,
    progress: Callable[[int, int], None] | None = None,
    **kw: Any,
) -> Iterator[tuple[str, list[RecallHit]]]:
    """(id, hits) for each (id, query), with the meta signals and graph set up once.

    Arguments are checked before the first query runs, so a bad scope raises here.
    `progress(done, total)` is called after each query (the queries are read first, to
    know the total).
    """
    recaller = _Recaller(index, **kw)
    if progress is None:
        return ((qid, recaller.run(query)) for qid, query in queries)
    batch = list(queries)

    def run() -> Iterator[tuple[str, list[RecallHit]]]:
        for done, (qid, query) in enumerate(batch, 1):
            hits = recaller.run(query)
            progress(done, len(batch))
            yield qid, hits

    return run()
