"""A preview of Obsidian's graph view of the vault: one self-contained HTML file.

Obsidian cannot run everywhere reme-workbench runs (a server, CI, a terminal over ssh),
and a person adopting a vault wants to see what its graph will look like before opening
it. `build_preview(vault)` draws what Obsidian's graph view draws, from the files and
Obsidian's own settings, and `render_html` writes it as one HTML file with an inline SVG:
no script, no network, no library download.

What is drawn, as Obsidian draws it:

* nodes are the Markdown notes Obsidian indexes: every `.md` file outside hidden
  folders (`.obsidian/`, `.reme/`, `.git/`), except those under "Excluded files" —
  `userIgnoreFilters` in `.obsidian/app.json`, where `import` puts the kept originals
  (docs/spec.md §3.6.5, `excluded_files.py`). Attachments are drawn only when graph.json's `showAttachments`
  is on;
* edges are links (embeds of notes too) that resolve, by Obsidian's rules through the
  vault's own resolver (`vault.resolve`: exact path, relative, the one file ending with
  it, then frontmatter aliases; docs/spec.md §2.4): one line per pair of notes. A link into an excluded
  file (a note's `derived_from::` link to its original) draws nothing, as in Obsidian;
  an ambiguous short link draws nothing either (Obsidian picks one file; the preview
  does not guess which) and is counted;
* graph.json's filter (`search`) is applied when it is made of `path:` and `-path:`
  terms (`-path:audit` hides reme-workbench's audit notes); any other is reported;
* a link that resolves to nothing — a note not yet written, a missing picture — is a
  faint node named as written, unless graph.json's `hideUnresolved` ("Existing files
  only") is on; orphans (no link at all) are left out when `showOrphans` is off;
* each note takes the colour of the first colour group of `.obsidian/graph.json` whose
  query matches it (groups higher in the list win, as in Obsidian). The preview reads
  the queries `graph.py` writes — `path:"…"` and `OR` of `path:` terms, a case-insensitive
  match anywhere in the file's path, as Obsidian's search does — and reports every other
  group (a tag, a word, a `-` or parentheses) as not drawn instead of guessing: a note
  such a group colours in Obsidian may show another colour here;
* node size grows with the number of notes linked to or from it; only the most-linked
  notes are labelled (the file name, as Obsidian labels them);
* the layout is a force layout (networkx's `spring_layout`) with a fixed seed: the same
  vault gives the same file, byte for byte. Obsidian's own layout is animated and
  differs in detail; clusters and hubs are what carries over.

`write_preview` writes the file where the person asked, but never into the vault's notes:
see its docstring.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reme_workbench.errors import NoteError, RemeError, UnsafePathError
from reme_workbench.vault.frontmatter import read_frontmatter
from reme_workbench.vault.layout import is_markdown
from reme_workbench.vault.links import Link, parse_links
from reme_workbench.vault.note import decode_note_bytes
from reme_workbench.vault.resolve import LinkResolver, aliases_of
from reme_workbench.vault.vault import Vault

from .excluded_files import APP_JSON, IGNORE_KEY
from .graph import GRAPH_JSON

__all__ = ["GENERATOR", "GraphPreview", "PreviewGroup", "PreviewNode", "build_preview",
           "check_preview_target", "excluded_by", "obsidian_files", "search_filter", "path_terms", "render_html", "write_preview"]

# the mark a preview carries: a file with it may be replaced by the next preview
GENERATOR = "reme-workbench graph preview"
WIDTH, HEIGHT = 1000, 1000
LABELS = 24  # the most-linked notes that get their name written beside them
SEED = 31
# Obsidian's look: default node grey, faint unresolved nodes, light lines
NODE_RGB, UNRESOLVED_RGB, ATTACHMENT_RGB = 0x8A8F98, 0xB8BCC4, 0xC9A227
_TERM = re.compile(r'\s*path:(?:"([^"]*)"|([^\s"()]+))\s*')
_OR = re.compile(r"OR(?=\s)")
# one term of the graph's filter: [-]path:"…" or [-]path:word (group 2; 3 the minus), or
# anything else
_FILTER_TERM = re.compile(r'\s*(((-?)(?:path:(?:"([^"]*)"|([^\s"()]+))))|\S+)')
_UNRESOLVED = "\x00"  # an unresolved node's id: the link as written after a NUL, never a path


@dataclass(frozen=True)
class PreviewGroup:
    query: str
    rgb: int
    alpha: float
    label: str  # what the legend says
    notes: int = 0  # how many notes it colours
    drawn: bool = True
    why_not: str = ""  # for a group not drawn: what the preview could not read


@dataclass(frozen=True)
class PreviewNode:
    id: str  # the vault path, or the link as written for an unresolved node
    label: str
    kind: str  # "note", "unresolved" or "attachment"
    degree: int  # notes (and unresolved names) it is linked with
    group: int | None  # index into GraphPreview.groups
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class GraphPreview:
    title: str
    nodes: tuple[PreviewNode, ...]
    edges: tuple[tuple[str, str], ...]
    groups: tuple[PreviewGroup, ...]
    excluded_notes: int  # Markdown notes under Excluded files, not drawn
    excluded_links: int  # links into them (provenance), not drawn
    ambiguous_links: int
    notices: tuple[str, ...] = ()
    settings: Mapping[str, bool] = field(default_factory=dict)
    labelled: frozenset[str] = frozenset()  # the nodes whose name is written beside them
    search: str = ""  # the graph's filter, when the preview applied it

    def to_json(self) -> dict:
        kinds = [n.kind for n in self.nodes]
        return {"notes": kinds.count("note"), "unresolved": kinds.count("unresolved"),
                "attachments": kinds.count("attachment"), "edges": len(self.edges),
                "excluded_notes": self.excluded_notes, "excluded_links": self.excluded_links,
                "ambiguous_links": self.ambiguous_links,
                "groups": [{"query": g.query, "label": g.label, "notes": g.notes,
                            "color": f"#{g.rgb:06x}", "drawn": g.drawn, "why_not": g.why_not}
                           for g in self.groups],
                "settings": dict(self.settings), "search": self.search,
                "notices": list(self.notices)}


# -- Obsidian's settings ------------------------------------------------------------------

def _json_object(root: Path, rel: str, notices: list[str]) -> dict:
    path = root / rel
    if not path.exists():
        return {}
    try:
        if path.is_symlink() or not path.is_file():
            raise ValueError("not a plain file")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        notices.append(f"{rel} cannot be read ({exc}); the preview uses Obsidian's defaults. "
                       "Fix or delete it (Obsidian writes a fresh one).")
        return {}
    if not isinstance(doc, dict):
        notices.append(f"{rel} is not a JSON object; the preview uses Obsidian's defaults.")
        return {}
    return doc


def excluded_by(filters: Sequence[str], rel: str) -> bool:
    """Whether Obsidian's "Excluded files" hide `rel`: an entry is a path the file's path
    starts with (a folder ends in `/`), or a `/regular expression/` searched in it."""
    for entry in filters:
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            if re.search(entry[1:-1], rel):
                return True
        elif entry and rel.startswith(entry):
            return True
    return False


def _filters(app: dict, notices: list[str]) -> list[str]:
    found = app.get(IGNORE_KEY) or []
    if not isinstance(found, list):
        notices.append(f"{APP_JSON}: {IGNORE_KEY} is not a list; nothing is treated as excluded.")
        return []
    usable = []
    for entry in found:
        if not isinstance(entry, str):
            continue
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            try:
                re.compile(entry[1:-1])
            except re.error as exc:
                notices.append(f"Excluded files entry {entry!r} is not a regular expression "
                               f"({exc}); the preview ignores it, as Obsidian would.")
                continue
        usable.append(entry)
    return usable


def path_terms(query: str) -> tuple[str, ...] | None:
    """The paths of a `path:"a" OR path:b` query, lowercased; None for any other query
    (the preview does not guess what Obsidian's search would match)."""
    terms, pos = [], 0
    while True:
        found = _TERM.match(query, pos)
        if found is None:
            return None
        term = found.group(1) if found.group(1) is not None else found.group(2)
        if not term:
            return None
        terms.append(term.lower())
        pos = found.end()
        if pos == len(query):
            return tuple(terms)
        joined = _OR.match(query, pos)
        if joined is None:
            return None
        pos = joined.end()


def search_filter(search: str) -> Callable[[str], bool] | None:
    """The graph's filter (graph.json `search`) as a test of a note's path, when it is made
    of `path:` and `-path:` terms only (all must hold, as in Obsidian's search); None for
    an empty filter or any other. A term matches anywhere in the path, in any case."""
    terms = []
    for found in _FILTER_TERM.finditer(search):
        if found.group(0).strip() == "":
            continue
        if found.group(2) is None:  # not a path: term
            return None
        value = found.group(4) if found.group(4) is not None else found.group(5)
        if not value:
            return None
        terms.append((found.group(3) == "-", value.lower()))
    if not terms:
        return None
    return lambda path: all((value in path.lower()) != negated for negated, value in terms)


def _rgb(color: object) -> tuple[int, float] | None:
    if not isinstance(color, dict):
        return None
    rgb, alpha = color.get("rgb"), color.get("a", 1)
    if isinstance(rgb, bool) or not isinstance(rgb, int) or not 0 <= rgb <= 0xFFFFFF:
        return None
    if isinstance(alpha, bool) or not isinstance(alpha, int | float):
        alpha = 1
    return rgb, float(min(max(alpha, 0.0), 1.0))


# -- the vault as Obsidian lists it ---------------------------------------------------------

def obsidian_files(root: Path) -> list[str]:
    """Every file Obsidian lists: all regular files outside hidden (dot) folders, sorted.
    Symlinks are left out (the vault's scan refuses them too)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not os.path.islink(os.path.join(folder, d)))
        rel_folder = os.path.relpath(folder, root)
        for name in files:
            full = os.path.join(folder, name)
            if name.startswith(".") or os.path.islink(full) or not os.path.isfile(full):
                continue
            found.append(name if rel_folder == "." else f"{Path(rel_folder).as_posix()}/{name}")
    return sorted(found)


def _links_and_aliases(vault: Vault, rel: str) -> tuple[tuple[Link, ...], tuple[str, ...]]:
    """A note's links and aliases: from the vault's scan where it covers the note (its
    cache), else read here (audit/, meta/, a note at the vault's top)."""
    record = vault.scan.records.get(rel)
    if record is not None:
        return (record.links, record.aliases) if record.readable else ((), ())
    try:
        text = decode_note_bytes((vault.root / rel).read_bytes(), rel,
                                 max_bytes=vault.max_note_bytes)
    except (OSError, NoteError):
        return (), ()
    try:
        aliases = aliases_of(read_frontmatter(text, rel)[0])
    except NoteError:
        aliases = ()
    return tuple(parse_links(text)), aliases


# -- building -------------------------------------------------------------------------------

def _label(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if is_markdown(name) else name


def _group_label(terms: tuple[str, ...], members: list[str], degree: Mapping[str, int]) -> str:
    if len(terms) == 1:
        return terms[0]
    top = sorted(members, key=lambda p: (-degree.get(p, 0), p))[:2]
    if not top:
        return f"{len(terms)} notes named, none drawn"
    return ", ".join(_label(p) for p in top) + (" …" if len(members) > 2 else "")


def build_preview(vault: Vault, *, labels: int = LABELS, title: str | None = None) -> GraphPreview:
    """What Obsidian's graph view shows of `vault` (see the module doc), laid out."""
    root = vault.root
    notices: list[str] = []
    app = _json_object(root, APP_JSON, notices)
    graph_doc = _json_object(root, GRAPH_JSON, notices)
    filters = _filters(app, notices)
    settings = {"hideUnresolved": graph_doc.get("hideUnresolved") is True,
                "showOrphans": graph_doc.get("showOrphans") is not False,
                "showAttachments": graph_doc.get("showAttachments") is True}
    search = graph_doc.get("search")
    wanted = search_filter(search) if isinstance(search, str) else None
    if isinstance(search, str) and search.strip() and wanted is None:
        notices.append(f"graph.json's filter {search.strip()!r} is not applied: the preview "
                       "reads only path: and -path: terms; it draws the whole vault.")
    if graph_doc.get("showTags") is True:
        notices.append("graph.json shows tags as nodes; the preview draws notes only.")

    files = obsidian_files(root)
    shown = {p for p in files if not excluded_by(filters, p)}
    notes = sorted(p for p in shown if is_markdown(p) and (wanted is None or wanted(p)))
    excluded_notes = sum(1 for p in files if is_markdown(p) and p not in shown)
    aliases: dict[str, tuple[str, ...]] = {}
    links: dict[str, tuple[Link, ...]] = {}
    for rel in files:
        if is_markdown(rel):
            found, names = _links_and_aliases(vault, rel)
            aliases[rel] = names
            if rel in shown:
                links[rel] = found
    resolver = LinkResolver(files, aliases)

    pairs: set[tuple[str, str]] = set()
    unresolved_names: dict[str, str] = {}  # lowercased link -> the first spelling seen
    excluded_links = ambiguous = 0
    for source in notes:
        for link in links[source]:
            if not link.target:
                continue
            found = resolver.resolve(link.target, source)
            if found.how == "ambiguous":
                ambiguous += 1
                continue
            if found.path is None:
                if settings["hideUnresolved"]:
                    continue
                key = " ".join(link.target.split()).lower()
                target = _UNRESOLVED + unresolved_names.setdefault(key, " ".join(link.target.split()))
            elif found.path not in shown:
                excluded_links += 1
                continue
            elif not is_markdown(found.path) and not settings["showAttachments"]:
                continue
            elif is_markdown(found.path) and wanted is not None and not wanted(found.path):
                continue  # a note the graph's filter hides
            else:
                target = found.path
            if target != source:
                pairs.add((min(source, target), max(source, target)))

    neighbours: dict[str, set[str]] = {p: set() for p in notes}
    for a, b in pairs:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    if not settings["showOrphans"]:
        neighbours = {p: n for p, n in neighbours.items() if n}
        pairs = {(a, b) for a, b in pairs if a in neighbours and b in neighbours}
    degree = {p: len(n) for p, n in neighbours.items()}

    groups, colour_of = _colour_groups(graph_doc, [p for p in notes if p in neighbours], degree)
    positions = _layout(sorted(neighbours), sorted(pairs))
    ranked = sorted((p for p in neighbours if not p.startswith(_UNRESOLVED)),
                    key=lambda p: (-degree[p], p))
    labelled = _placed_labels(ranked, positions, degree, max(labels, 0))
    nodes = tuple(PreviewNode(
        p, p[1:] if p.startswith(_UNRESOLVED) else _label(p),
        "unresolved" if p.startswith(_UNRESOLVED) else ("note" if is_markdown(p) else "attachment"),
        degree[p], colour_of.get(p), *positions[p]) for p in sorted(neighbours))
    return GraphPreview(title or root.resolve().name, nodes, tuple(sorted(pairs)), groups, excluded_notes,
                        excluded_links, ambiguous, tuple(notices), settings, labelled,
                        search.strip() if wanted is not None else "")


def _colour_groups(graph_doc: dict, notes: list[str], degree: Mapping[str, int]
                   ) -> tuple[tuple[PreviewGroup, ...], dict[str, int]]:
    """The groups of graph.json in order, each with the notes it colours (the first group
    matching a note wins), and {note: group index}."""
    raw = graph_doc.get("colorGroups") or []
    if not isinstance(raw, list):
        raw = []
    parsed = []
    for entry in raw:
        query = entry.get("query") if isinstance(entry, dict) else None
        colour = _rgb(entry.get("color")) if isinstance(entry, dict) else None
        terms = path_terms(query) if isinstance(query, str) else None
        why = ("" if terms is not None and colour is not None else
               "its colour is not {a, rgb}" if terms is not None else
               "the preview reads only path:\"…\" terms joined by OR")
        parsed.append((str(query) if query is not None else "", terms, colour or (NODE_RGB, 1.0), why))
    colour_of: dict[str, int] = {}
    members: dict[int, list[str]] = {i: [] for i in range(len(parsed))}
    for note in notes:
        low = note.lower()
        for i, (_, terms, _, why) in enumerate(parsed):
            if not why and any(t in low for t in terms):
                colour_of[note] = i
                members[i].append(note)
                break
    groups = tuple(
        PreviewGroup(query, rgb, alpha,
                     _group_label(terms, members[i], degree) if terms else query,
                     len(members[i]), not why, why)
        for i, (query, terms, (rgb, alpha), why) in enumerate(parsed))
    return groups, colour_of


def _placed_labels(ranked: list[str], positions: Mapping[str, tuple[float, float]],
                   degree: Mapping[str, int], most: int) -> frozenset[str]:
    """The most-linked notes whose names fit below them without covering a name already
    placed (a crowded cluster keeps its biggest names readable), at most `most`."""
    boxes: list[tuple[float, float, float, float]] = []
    chosen = []
    for path in ranked:
        if len(chosen) >= most:
            break
        x, y = positions[path]
        half = 3.4 * len(_label(path)) + 4  # 12px text: about 6.8px a letter
        top = y + _radius(degree[path]) + 1
        box = (x - half, top, x + half, top + 15)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes):
            continue
        boxes.append(box)
        chosen.append(path)
    return frozenset(chosen)


def _layout(nodes: list[str], pairs: list[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """A force layout with a fixed seed, scaled to the drawing; the same input gives the
    same positions (nodes and edges are added in sorted order)."""
    import networkx as nx

    if not nodes:
        return {}
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(pairs)
    if len(nodes) == 1:
        raw = {nodes[0]: (0.0, 0.0)}
    else:
        raw = {n: (float(x), float(y)) for n, (x, y) in nx.spring_layout(graph, seed=SEED).items()}
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    margin = 60
    scale = min(WIDTH, HEIGHT) - 2 * margin
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return {n: (round(WIDTH / 2 + (x - cx) / span * scale, 1),
                round(HEIGHT / 2 + (y - cy) / span * scale, 1)) for n, (x, y) in raw.items()}


# -- the HTML -------------------------------------------------------------------------------

def _hex(rgb: int) -> str:
    return f"#{rgb:06x}"


def _radius(degree: int) -> float:
    return round(3.0 + 1.6 * math.sqrt(degree), 1)


def render_html(preview: GraphPreview) -> str:
    """One HTML file, the graph as an inline SVG beside its legend; nothing loaded."""
    esc = html.escape
    by_id = {n.id: n for n in preview.nodes}
    labelled = preview.labelled
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="graph of {esc(preview.title)}">']
    solid, faint = [], []
    for a, b in preview.edges:
        na, nb = by_id[a], by_id[b]
        (faint if "unresolved" in (na.kind, nb.kind) else solid).append(
            f"M{na.x} {na.y}L{nb.x} {nb.y}")
    if faint:
        svg.append(f'<path class="edge faint" d="{"".join(faint)}"/>')
    if solid:
        svg.append(f'<path class="edge" d="{"".join(solid)}"/>')
    for node in sorted(preview.nodes, key=lambda n: (n.kind == "note", n.degree, n.id)):
        if node.kind == "note" and node.group is not None:
            group = preview.groups[node.group]
            fill, opacity = _hex(group.rgb), group.alpha
        else:
            fill = _hex({"note": NODE_RGB, "unresolved": UNRESOLVED_RGB}.get(node.kind, ATTACHMENT_RGB))
            opacity = 0.55 if node.kind == "unresolved" else 1.0
        title = (f"{node.label} — not yet written, linked from {node.degree} note(s)"
                 if node.kind == "unresolved" else f"{node.id} — {node.degree} link(s)")
        where = (f'data-name="{esc(node.label)}"' if node.kind == "unresolved"
                 else f'data-path="{esc(node.id)}"')
        svg.append(f'<circle class="node {node.kind}" {where} cx="{node.x}" '
                   f'cy="{node.y}" r="{_radius(node.degree)}" fill="{fill}" '
                   f'fill-opacity="{opacity:g}"><title>{esc(title)}</title></circle>')
    for node in preview.nodes:
        if node.id in labelled:
            svg.append(f'<text x="{node.x}" y="{round(node.y + _radius(node.degree) + 12, 1)}">'
                       f"{esc(node.label)}</text>")
    svg.append("</svg>")
    return _PAGE.format(title=esc(preview.title), generator=GENERATOR, svg="\n".join(svg),
                        legend=_legend(preview))


def _legend(preview: GraphPreview) -> str:
    esc = html.escape
    facts = preview.to_json()
    rows = [f"<p><b>{facts['notes']}</b> notes, <b>{facts['edges']}</b> lines"
            + (f", <b>{facts['unresolved']}</b> names not yet written (faint)"
               if not preview.settings.get("hideUnresolved") else "")
            + ".</p>"]
    if preview.excluded_notes:
        rows.append(f"<p>Left out, as in Obsidian: {preview.excluded_notes} notes under Excluded "
                    f"files and the {preview.excluded_links} links into them.</p>")
    if preview.search:
        rows.append(f"<p>Filter (graph.json): <code>{esc(preview.search)}</code></p>")
    if preview.ambiguous_links:
        rows.append(f"<p>{preview.ambiguous_links} short links name several files: not drawn "
                    "(Obsidian picks one).</p>")
    items = []
    for group in preview.groups:
        if group.drawn:
            muted = ' class="none"' if not group.notes else ""
            items.append(f'<li{muted}><span class="swatch" style="background:{_hex(group.rgb)}">'
                         f'</span>{esc(group.label)} <span class="count">{group.notes}</span></li>')
        else:
            items.append(f'<li class="not-drawn"><span class="swatch"></span>{esc(group.query)} '
                         f'<span class="count">not drawn: {esc(group.why_not)}</span></li>')
    uncoloured = sum(1 for n in preview.nodes if n.kind == "note" and n.group is None)
    items.append(f'<li><span class="swatch" style="background:{_hex(NODE_RGB)}"></span>'
                 f'no group <span class="count">{uncoloured}</span></li>')
    if not preview.settings.get("hideUnresolved"):
        items.append(f'<li><span class="swatch faint" style="background:{_hex(UNRESOLVED_RGB)}">'
                     f'</span>not yet written <span class="count">{facts["unresolved"]}</span></li>')
    rows.append("<h2>Colour groups (.obsidian/graph.json, first match wins)</h2>"
                f"<ul>{''.join(items)}</ul>")
    rows += [f'<p class="notice">{esc(n)}</p>' for n in preview.notices]
    return "\n".join(rows)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{generator}">
<title>Graph of {title}</title>
<style>
body {{ margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
        color: #2e3338; background: #ffffff; display: flex; }}
main {{ flex: 1 1 auto; min-width: 0; }}
svg {{ width: 100%; height: 100vh; display: block; }}
aside {{ flex: 0 0 330px; padding: 16px 20px; border-left: 1px solid #e3e3e3;
         background: #f6f6f6; max-height: 100vh; overflow-y: auto; box-sizing: border-box; }}
h1 {{ font-size: 18px; margin: 0 0 8px; }} h2 {{ font-size: 14px; margin: 16px 0 6px; }}
ul {{ list-style: none; padding: 0; margin: 0; }}
li {{ margin: 3px 0; display: flex; align-items: center; gap: 8px; }}
.swatch {{ flex: 0 0 12px; height: 12px; border-radius: 50%; border: 1px solid #0002; }}
.swatch.faint {{ opacity: .55; }}
.count {{ margin-left: auto; color: #6b7079; font-variant-numeric: tabular-nums; }}
.not-drawn, .none {{ color: #8a8f98; }} .notice {{ color: #9a5b00; font-size: 13px; }}
.edge {{ stroke: #b5bac1; stroke-width: .8; stroke-opacity: .7; fill: none; }}
.edge.faint {{ stroke-dasharray: 3 3; stroke-opacity: .45; }}
.node {{ stroke: #ffffff; stroke-width: .8; }}
text {{ font-size: 12px; text-anchor: middle; fill: #2e3338; paint-order: stroke;
        stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }}
</style>
</head>
<body>
<main>
{svg}
</main>
<aside>
<h1>Graph of {title}</h1>
<p>What Obsidian's graph view shows of this vault. Node size: links; hover a node for its path.</p>
{legend}
</aside>
</body>
</html>
"""


# -- writing --------------------------------------------------------------------------------

def check_preview_target(target: Path, vault_root: Path) -> Path:
    """`target` as the absolute path the preview goes to, or an error saying where to
    write it instead (the rules are `write_preview`'s)."""
    target = Path(os.path.abspath(os.path.expanduser(str(target))))
    shown = str(target)
    if target.suffix.lower() not in (".html", ".htm"):
        raise RemeError(f"{shown}: the preview is an HTML page; give a file name ending in "
                        ".html (e.g. graph.html).", path=shown)
    vault = Path(os.path.realpath(vault_root))
    real = Path(os.path.realpath(target.parent)) / target.name
    if real.is_relative_to(vault) and not real.is_relative_to(vault / "workbench"):
        raise UnsafePathError(
            f"{shown} is inside the vault, beside your notes and sources; write the preview "
            f"outside it (e.g. ~/graph.html) or under {vault / 'workbench'}/.", path=shown)
    if not target.parent.is_dir():
        raise RemeError(f"The folder {target.parent} does not exist; create it or give a file "
                        "in a folder that exists.", path=shown)
    if target.is_symlink():
        raise UnsafePathError(f"{shown} is a symbolic link; give the path of a plain file.",
                              path=shown)
    if target.exists() and (not target.is_file() or not _is_preview(target)):
        raise RemeError(f"{shown} exists and is not a graph preview written by reme-workbench; "
                        "it is left as it is. Give another file name, or move that file away "
                        "first.", path=shown)
    return target


def write_preview(target: Path, page: str, vault_root: Path) -> Path:
    """Write `page` to `target` (an `.html` file), replacing the file whole or not at all.

    Refused, with what to do instead: a name not ending in `.html`/`.htm` (so a note, a
    setting or a script is never written over); a place inside the vault other than its
    `workbench/` folder (the notes, the sources and Obsidian's settings are not ours to
    drop a file into); a folder that does not exist; a symlink; and an existing file that
    is not an earlier preview (it would be lost). An earlier preview — a file carrying
    `GENERATOR` — is replaced: running the command again refreshes it.
    """
    target = check_preview_target(target, vault_root)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _is_preview(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(2048)
    except OSError:
        return False
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head
