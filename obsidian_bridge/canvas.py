"""JSON Canvas 1.0 maps of the communities (jsoncanvas.org; Obsidian opens `.canvas`).

`communities_canvas(vault, communities)` lays out one group node per community (labelled
with its id, size and hub), a file node per note inside it, and an edge per link between
two notes on the canvas. Notes are coloured by bucket (preset colours: procedure "5",
personal "1", wiki "4"); a community's hub — the member linking at least 60 % of the
others, as abstract decides, in a community of three notes or more — is colour "6" and
twice as wide. Inside a group the notes
sit on a grid (no two overlap), groups sit in rows with a margin between them. Ids are
stable (hashes of the community id, the path, the pair), so the same vault gives the
same canvas.

`validate_canvas(doc)` checks what the spec requires and the map promises: ids unique
across nodes and edges, every edge naming existing nodes, sides in top/right/bottom/left,
ends in none/arrow, colours a preset "1"–"6" or "#RRGGBB", integer geometry with a
positive size, file nodes naming a file, and no two nodes of one group overlapping.

Written to `meta/canvas/communities.canvas` (and `meta/canvas/community-<id>.canvas`
per community on request) through the store; the communities come from
`meta/communities.json`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reme_workbench.errors import RemeError
from reme_workbench.vault.layout import is_digest_note
from reme_workbench.vault.resolve import LinkResolver
from reme_workbench.vault.store import Changeset, Create, Edit
from reme_workbench.vault.vault import Vault

__all__ = ["CANVAS_DIR", "BUCKET_COLORS", "HUB_COLOR", "communities_canvas", "validate_canvas",
           "write_canvases", "CanvasReport"]

CANVAS_DIR = "meta/canvas"
BUCKET_COLORS = {"procedure": "5", "personal": "1", "wiki": "4"}
HUB_COLOR = "6"
HUB_COVERAGE = 0.6  # the abstract gate's "has a hub" share (docs/spec.md §7.6)
NODE_W, NODE_H, GAP, PAD, HEADER = 300, 120, 40, 40, 60
GROUPS_PER_ROW = 4
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
_HEX = re.compile(r"#[0-9A-Fa-f]{6}")


def _id(kind: str, *parts: str) -> str:
    return kind + "-" + hashlib.sha1("\x00".join(parts).encode("utf-8")).hexdigest()[:16]


def _hub(members: Sequence[str], targets: Mapping[str, set[str]]) -> str | None:
    """The member linking at least HUB_COVERAGE of the others (the most, then by path)."""
    others = len(members) - 1
    if others < 2:  # in a pair each note just links the other: no hub
        return None
    group = set(members)
    best = max(sorted(members), key=lambda m: len((targets.get(m, set()) & group) - {m}))
    share = len((targets.get(best, set()) & group) - {best}) / others
    return best if share >= HUB_COVERAGE else None


def _sides(a: tuple[int, int], b: tuple[int, int]) -> tuple[str, str]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    if abs(dx) >= abs(dy):
        return ("right", "left") if dx >= 0 else ("left", "right")
    return ("bottom", "top") if dy >= 0 else ("top", "bottom")


def communities_canvas(vault: Vault, communities: Mapping[str, str], *,
                       only: str | None = None) -> dict:
    """The canvas (a dict in JSON Canvas 1.0) of every community, or of `only` one."""
    records = vault.scan.records
    members: dict[str, list[str]] = {}
    for path, cid in communities.items():
        if is_digest_note(path) and path in records and (only is None or cid == only):
            members.setdefault(cid, []).append(path)
    resolver = LinkResolver(records)  # a person's short links count too
    targets: dict[str, set[str]] = {}
    for path in records:
        if is_digest_note(path):
            targets[path] = {found for lk in records[path].links if lk.target and not lk.embed
                             and (found := resolver.resolve(lk.target, path).path)}
    nodes: list[dict] = []
    centre: dict[str, tuple[int, int]] = {}
    ids: dict[str, str] = {}
    order = sorted(members, key=lambda c: (-len(members[c]), c))
    x = y = row_height = 0
    for k, cid in enumerate(order):
        notes = sorted(members[cid])
        hub = _hub(notes, targets)
        if hub is not None:  # the hub first, on its own row
            notes.remove(hub)
            notes.insert(0, hub)
        cols = max(1, math.ceil(math.sqrt(len(notes))))
        rows = math.ceil(len(notes) / cols)
        width = 2 * PAD + cols * NODE_W + (cols - 1) * GAP + (NODE_W + GAP if hub else 0)
        height = HEADER + PAD + rows * NODE_H + (rows - 1) * GAP + (NODE_H + GAP if hub else 0)
        if k and k % GROUPS_PER_ROW == 0:
            x, y, row_height = 0, y + row_height + 4 * GAP, 0
        label = f"{cid} · {len(notes)} notes" + (f" · hub {hub.rsplit('/', 1)[-1][:-3]}" if hub else "")
        nodes.append({"id": _id("group", cid), "type": "group", "x": x, "y": y, "width": width,
                      "height": height, "label": label})
        slots = []
        top = y + HEADER
        if hub:
            slots.append((x + PAD, top, 2 * NODE_W + GAP))
            top += NODE_H + GAP
        for i in range(len(notes) - (1 if hub else 0)):
            slots.append((x + PAD + (i % cols) * (NODE_W + GAP), top + (i // cols) * (NODE_H + GAP), NODE_W))
        for path, (nx, ny, w) in zip(notes, slots, strict=True):
            bucket = path.split("/")[1]
            node = {"id": _id("note", path), "type": "file", "file": path, "x": nx, "y": ny,
                    "width": w, "height": NODE_H,
                    "color": HUB_COLOR if path == hub else BUCKET_COLORS.get(bucket, "4")}
            nodes.append(node)
            ids[path] = node["id"]
            centre[path] = (nx + w // 2, ny + NODE_H // 2)
        x += width + 4 * GAP
        row_height = max(row_height, height)
    edges = []
    seen: set[tuple[str, str]] = set()
    for src in sorted(ids):
        for dst in sorted(targets.get(src, ())):
            if dst in ids and dst != src and (src, dst) not in seen:
                seen.add((src, dst))
                a_side, b_side = _sides(centre[src], centre[dst])
                edges.append({"id": _id("edge", src, dst), "fromNode": ids[src], "fromSide": a_side,
                              "toNode": ids[dst], "toSide": b_side, "toEnd": "arrow"})
    return {"nodes": nodes, "edges": edges}


def validate_canvas(doc: object) -> list[str]:
    """Problems of `doc` as JSON Canvas 1.0 and as our map (see the module doc); [] if none."""
    if not isinstance(doc, dict):
        return ["a canvas is a JSON object with nodes and edges"]
    problems: list[str] = []
    nodes = doc.get("nodes") or []
    edges = doc.get("edges") or []
    seen: set[str] = set()
    for item in [*nodes, *edges]:
        ident = item.get("id") if isinstance(item, dict) else None
        if not isinstance(ident, str) or not ident:
            problems.append(f"an item without an id: {item!r:.80}")
        elif ident in seen:
            problems.append(f"the id {ident} is used twice")
        else:
            seen.add(ident)
    by_id = {n["id"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), str)}
    for n in nodes:
        if n.get("type") not in ("text", "file", "link", "group"):
            problems.append(f"node {n.get('id')}: type {n.get('type')!r} is not text/file/link/group")
        for key in ("x", "y", "width", "height"):
            if not isinstance(n.get(key), int) or isinstance(n.get(key), bool):
                problems.append(f"node {n.get('id')}: {key} must be an integer")
        if isinstance(n.get("width"), int) and isinstance(n.get("height"), int) and (
                n["width"] <= 0 or n["height"] <= 0):
            problems.append(f"node {n.get('id')}: its size must be positive")
        if n.get("type") == "file" and not isinstance(n.get("file"), str):
            problems.append(f"node {n.get('id')}: a file node names its file")
        problems += _color(n, f"node {n.get('id')}")
    for e in edges:
        for end in ("fromNode", "toNode"):
            if e.get(end) not in by_id:
                problems.append(f"edge {e.get('id')}: {end} {e.get(end)!r} is no node")
        for side in ("fromSide", "toSide"):
            if side in e and e[side] not in SIDES:
                problems.append(f"edge {e.get('id')}: {side} {e[side]!r} is not one of {SIDES}")
        for end in ("fromEnd", "toEnd"):
            if end in e and e[end] not in ENDS:
                problems.append(f"edge {e.get('id')}: {end} {e[end]!r} is not none/arrow")
        problems += _color(e, f"edge {e.get('id')}")
    problems += _overlaps(nodes)
    return problems


def _color(item: dict, what: str) -> list[str]:
    color = item.get("color")
    if color is None or (isinstance(color, str) and (color in tuple("123456") or _HEX.fullmatch(color))):
        return []
    return [f"{what}: colour {color!r} is not a preset 1-6 or #RRGGBB"]


def _inside(n: dict, g: dict) -> bool:
    return (g["x"] <= n["x"] and n["x"] + n["width"] <= g["x"] + g["width"]
            and g["y"] <= n["y"] and n["y"] + n["height"] <= g["y"] + g["height"])


def _overlaps(nodes: list[dict]) -> list[str]:
    boxes = [n for n in nodes if all(isinstance(n.get(k), int) for k in ("x", "y", "width", "height"))]
    groups = [n for n in boxes if n.get("type") == "group"]
    problems = []
    for g in groups:
        inner = [n for n in boxes if n.get("type") != "group" and _inside(n, g)]
        for i, a in enumerate(inner):
            for b in inner[i + 1:]:
                if (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
                        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]):
                    problems.append(f"nodes {a['id']} and {b['id']} overlap in group {g['id']}")
    return problems


@dataclass(frozen=True)
class CanvasReport:
    written: tuple[str, ...]
    communities: int
    notes: int
    links: int

    def to_json(self) -> dict:
        return {"written": list(self.written), "communities": self.communities,
                "notes": self.notes, "links": self.links}


def write_canvases(vault: Vault, communities: Mapping[str, str], *, per_community: bool = False,
                   dry_run: bool = False) -> CanvasReport:
    """Write `meta/canvas/communities.canvas` (and one per community) in one changeset."""
    docs = {f"{CANVAS_DIR}/communities.canvas": communities_canvas(vault, communities)}
    if per_community:
        for cid in sorted(set(communities.values())):
            docs[f"{CANVAS_DIR}/community-{cid}.canvas"] = communities_canvas(vault, communities, only=cid)
    for path, doc in docs.items():
        problems = validate_canvas(doc)
        if problems:  # our own output: never written when it is not valid
            raise RemeError(f"{path} came out as invalid JSON Canvas ({'; '.join(problems[:3])}); "
                            "nothing was written. Please report this with the vault's meta/communities.json.")
    ops = []
    for path, doc in docs.items():
        data = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
        current = vault.store.read(path)
        if current is None:
            ops.append(Create(path, data))
        elif current[0] != data:
            ops.append(Edit(path, data, current[1]))
    if ops and not dry_run:
        vault.apply(Changeset(ops=tuple(ops), description="bridge: community canvases"))
    main = docs[f"{CANVAS_DIR}/communities.canvas"]
    return CanvasReport(tuple(op.path for op in ops),
                        sum(1 for n in main["nodes"] if n["type"] == "group"),
                        sum(1 for n in main["nodes"] if n["type"] == "file"), len(main["edges"]))
