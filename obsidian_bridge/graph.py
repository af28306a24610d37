"""Colour groups in Obsidian's graph view: `.obsidian/graph.json`.

Obsidian keeps the graph view's settings in `.obsidian/graph.json`; its `colorGroups`
list holds `{"query": <search>, "color": {"a": 1, "rgb": <int>}}`. The bridge merges in
one group per bucket (`path:"digest/procedure"` …) and, on request, one per community
(`path:"digest/wiki/a.md" OR path:"digest/wiki/b.md" …`, communities of at least
`MIN_COMMUNITY` notes, largest first, at most `MAX_COMMUNITIES`), and keeps everything
else: every other setting, and every group a person made, where it is. Obsidian colours
a note by the first group that matches it, so the community groups go just before the
first bucket group (after it, `path:"digest/wiki"` would take every note). What it wrote last time is
remembered in `.reme/bridge.json` (by query), so a community group that no longer
exists is taken out and nothing else is; a group of ours whose colour a person changed
keeps their colour. Merging twice changes nothing the second time. A `graph.json` that
does not parse (or is not a JSON object) is left exactly as it is, with a message saying
so. Written through the store (stamped, journalled).
"""

from __future__ import annotations

import colorsys
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reme_workbench.vault.layout import BUCKETS
from reme_workbench.vault.store import Changeset, Create, Edit
from reme_workbench.vault.vault import Vault

__all__ = ["GRAPH_JSON", "BUCKET_RGB", "GraphReport", "bucket_groups", "community_groups",
           "merge_groups", "update_graph"]

GRAPH_JSON = ".obsidian/graph.json"
STATE = ".reme/bridge.json"
BUCKET_RGB = {"procedure": 0x1F77B4, "personal": 0xD62728, "wiki": 0x2CA02C}
MIN_COMMUNITY = 3
MAX_COMMUNITIES = 24


def _group(query: str, rgb: int) -> dict:
    return {"query": query, "color": {"a": 1, "rgb": int(rgb)}}


def bucket_groups() -> list[dict]:
    return [_group(f'path:"digest/{b}"', BUCKET_RGB[b]) for b in BUCKETS]


def _palette(n: int) -> list[int]:
    """`n` distinct colours, spread around the hue circle."""
    out = []
    for i in range(n):
        r, g, b = colorsys.hsv_to_rgb((i * 0.618033988749895) % 1.0, 0.55, 0.9)
        out.append((int(r * 255) << 16) | (int(g * 255) << 8) | int(b * 255))
    return out


def community_groups(communities: Mapping[str, str]) -> list[dict]:
    """One group per community of at least MIN_COMMUNITY notes (largest first, then id)."""
    members: dict[str, list[str]] = {}
    for path, cid in communities.items():
        members.setdefault(cid, []).append(path)
    big = sorted((c for c, ms in members.items() if len(ms) >= MIN_COMMUNITY),
                 key=lambda c: (-len(members[c]), c))[:MAX_COMMUNITIES]
    return [_group(" OR ".join(f'path:"{p}"' for p in sorted(members[c])), rgb)
            for c, rgb in zip(big, _palette(len(big)), strict=True)]


def merge_groups(doc: dict, ours: Sequence[dict], owned_before: Sequence[str]) -> dict:
    """`doc` (graph.json as read) with `ours` merged in (see the module doc). Pure."""
    out = dict(doc)
    current = [g for g in doc.get("colorGroups") or [] if isinstance(g, dict)]
    wanted = {g["query"] for g in ours}
    # ours from before that are not wanted any more go; every other group stays as it is
    kept = [g for g in current if not (g.get("query") in owned_before and g.get("query") not in wanted)]
    present = {g.get("query") for g in kept}
    listed = kept + [g for g in ours if g["query"] not in present]
    # Obsidian colours a note by the first group that matches it: a community group after
    # `path:"digest/wiki"` would colour nothing, so ours go just before the first bucket group
    buckets = {g["query"] for g in bucket_groups()}
    communities = [g for g in listed if g.get("query") in wanted and g.get("query") not in buckets]
    rest = [g for g in listed if not (g.get("query") in wanted and g.get("query") not in buckets)]
    at = next((i for i, g in enumerate(rest) if g.get("query") in buckets), len(rest))
    out["colorGroups"] = rest[:at] + communities + rest[at:]
    return out


@dataclass(frozen=True)
class GraphReport:
    path: str
    changed: bool
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    message: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "changed": self.changed, "added": list(self.added),
                "removed": list(self.removed), "message": self.message}


def _owned(vault: Vault) -> list[str]:
    try:
        data = json.loads((vault.root / STATE).read_text(encoding="utf-8"))
        return [q for q in data.get("graph_queries", []) if isinstance(q, str)]
    except (OSError, ValueError, AttributeError):
        return []  # only a cache: without it, no group of ours is taken out


def update_graph(vault: Vault, *, communities: Mapping[str, str] | None = None,
                 dry_run: bool = False) -> GraphReport:
    """Merge the bucket groups (and the community groups, with `communities`) into
    `.obsidian/graph.json` (see the module doc)."""
    ours = bucket_groups() + (community_groups(communities) if communities else [])
    current = vault.store.read(GRAPH_JSON)
    doc: dict = {}
    if current is not None:
        try:
            doc = json.loads(current[0].decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return GraphReport(GRAPH_JSON, False, message=(
                f"{GRAPH_JSON} does not parse ({exc}); it is left as it is. Fix or delete it "
                "(Obsidian writes a fresh one), then run `reme-workbench bridge` again."))
        if not isinstance(doc, dict):
            return GraphReport(GRAPH_JSON, False, message=(
                f"{GRAPH_JSON} is not a JSON object; it is left as it is. Fix or delete it, "
                "then run `reme-workbench bridge` again."))
    owned = _owned(vault)
    merged = merge_groups(doc, ours, owned)
    before = {g.get("query") for g in doc.get("colorGroups") or [] if isinstance(g, dict)}
    after = {g.get("query") for g in merged["colorGroups"]}
    added, removed = tuple(sorted(after - before)), tuple(sorted(before - after))
    changed = merged != doc or current is None
    if changed and not dry_run:
        data = (json.dumps(merged, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        op = Create(GRAPH_JSON, data) if current is None else Edit(GRAPH_JSON, data, current[1])
        vault.apply(Changeset(ops=(op,), description="bridge: graph colour groups"))
    if not dry_run:
        _remember(vault, [g["query"] for g in ours])
    said = (f"{len(added)} group(s) added, {len(removed)} taken out" if added or removed
            else "colour groups put in the order Obsidian reads them")
    return GraphReport(GRAPH_JSON, changed, added, removed,
                       said if changed else "graph colour groups up to date")


def _remember(vault: Vault, queries: list[str]) -> None:
    path = vault.root / STATE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data["graph_queries"] = queries
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    tmp.replace(path)
