"""Obsidian-native output for a reme-workbench vault: links in vault-path form, graph
colour groups, JSON Canvas maps of the communities.

Depends on `reme_workbench.vault` only (tests/integration/test_architecture.py holds it to that) and
writes through the vault's changesets, like every writer of the project.

* `normalize_links` — short links a person wrote in `digest/` to full vault paths, when
  they resolve to exactly one file by Obsidian's rules; the others are reported;
* `update_graph` — colour groups per bucket (and per community) merged into
  `.obsidian/graph.json`, keeping every other setting and every group a person made;
* `write_canvases` — `meta/canvas/communities.canvas` (JSON Canvas 1.0), and one canvas
  per community on request;
* `plan_excluded` — a folder added to Obsidian's "Excluded files" in
  `.obsidian/app.json`, keeping every other setting (an `import` keeps the originals it
  copies out of Obsidian's search and graph so).

`run_bridge(vault, ...)` runs what the `reme-workbench bridge` command asks for. Note
frontmatter is never touched: community ids and scores stay in `meta/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from reme_workbench.vault.meta import read_meta
from reme_workbench.vault.vault import Vault

from .canvas import CanvasReport, communities_canvas, validate_canvas, write_canvases
from .excluded_files import APP_JSON, ExcludedPlan, merge_excluded, plan_excluded
from .graph import (
    GRAPH_JSON,
    GraphReport,
    bucket_groups,
    community_groups,
    merge_groups,
    update_graph,
)
from .links import LinkChange, NormalizeReport, normalize_links, plan_normalize

__all__ = [
    "APP_JSON",
    "BridgeReport",
    "CanvasReport",
    "ExcludedPlan",
    "GRAPH_JSON",
    "GraphReport",
    "LinkChange",
    "NormalizeReport",
    "bucket_groups",
    "communities_canvas",
    "community_groups",
    "load_communities",
    "merge_excluded",
    "merge_groups",
    "normalize_links",
    "plan_excluded",
    "plan_normalize",
    "run_bridge",
    "update_graph",
    "validate_canvas",
    "write_canvases",
]


def load_communities(vault: Vault) -> tuple[dict[str, str] | None, str | None]:
    """({path: community id} from meta/communities.json, or None; a warning when unusable)."""
    read = read_meta(vault.root, "communities", version=1,
                     rebuild="reme-workbench consolidate --only communities --force")
    found = (read.data or {}).get("communities")
    if not isinstance(found, dict):
        return None, (read.warning if read.exists else
                      "No communities yet: run `reme-workbench consolidate` first.")
    return {str(k): str(v) for k, v in found.items()}, None


@dataclass(frozen=True)
class BridgeReport:
    graph: GraphReport | None = None
    canvas: CanvasReport | None = None
    normalize: NormalizeReport | None = None
    notices: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"graph": self.graph.to_json() if self.graph else None,
                "canvas": self.canvas.to_json() if self.canvas else None,
                "normalize": self.normalize.to_json() if self.normalize else None,
                "notices": list(self.notices)}


def run_bridge(vault: Vault, *, communities: bool = False, canvas: bool = False,
               per_community: bool = False, normalize: bool = False, graph: bool = True,
               dry_run: bool = False) -> BridgeReport:
    """Links first (so the graph and the canvas see the rewritten ones), then the graph
    colour groups, then the canvases."""
    notices: list[str] = []
    norm = normalize_links(vault, dry_run=dry_run) if normalize else None
    found, warning = (load_communities(vault) if (communities or canvas) else (None, None))
    if warning and (communities or canvas):
        notices.append(warning)
    graph_report = update_graph(vault, communities=found if communities else None,
                                dry_run=dry_run) if graph else None
    if graph_report is not None and not graph_report.changed and graph_report.message.endswith("again."):
        notices.append(graph_report.message)
    canvas_report = (write_canvases(vault, found, per_community=per_community, dry_run=dry_run)
                     if canvas and found else None)
    return BridgeReport(graph_report, canvas_report, norm, tuple(notices))
