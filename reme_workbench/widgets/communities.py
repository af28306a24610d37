"""The communities screen: sizes and stability plots, the notes that sit among another
bucket's notes (maybe misfiled: the `rename` that would move each, never done here), then
one community at a time — its members, hub, the abstract gates it passes or fails with
their values, and a drawing (coloured by bucket, the hub ringed, archived notes faded).
Read-only: communities are recomputed by `reme-workbench consolidate`."""

from __future__ import annotations

import ipywidgets as w

from ..ops import CommunitiesOverview, communities_overview, community_drawing, workspace_of
from .html import esc, message_html, table_html
from .plots import community_figure, community_sizes_figure, figure_image, stability_figure

__all__ = ["CommunitiesView"]


class CommunitiesView(w.VBox):
    def __init__(self, where, *, settings=None) -> None:
        """`where`: a Workspace, an open Vault or a vault's path; `settings` replace the
        workspace's for this screen only."""
        self.ws = workspace_of(where)
        if settings is not None:
            self.ws = self.ws.with_settings(settings)
        self.vault, self.settings = self.ws.open_vault(), self.ws.settings
        self.plots = w.VBox()
        self.misfiled = w.HTML()
        self.community = w.Dropdown(description="community", options=[])
        self.detail = w.HTML()
        self.drawing = w.VBox()
        self.status = w.HTML()
        self.overview: CommunitiesOverview | None = None
        self.community.observe(lambda _c: self._show(), names="value")
        super().__init__([w.HTML("<h3 style='margin:4px 0'>Communities</h3>"), self.status,
                          self.plots, self.misfiled, self.community, self.detail, self.drawing])
        self.refresh()

    def refresh(self) -> None:
        self.overview = communities_overview(self.ws)
        ov = self.overview
        self.status.value = "".join(message_html(m, ok=False) for m in ov.warnings) or message_html(
            f"{len(ov.communities)} communities from the run of {(ov.computed_at or '?')[:19]}; "
            f"stability against {(ov.previous or 'no previous run')[:19]}.")
        self.plots.children = [
            figure_image(community_sizes_figure(ov)),
            figure_image(stability_figure(ov, self.settings.abstract.min_stability)),
        ] if ov.communities else []
        self.misfiled.value = self._misfiled_html(ov)
        self.community.options = [
            (f"{c.id} · {c.size} notes · {'hub ' + c.hub.rsplit('/', 1)[-1] if c.hub else 'no hub'}", c.id)
            for c in ov.communities]
        self.community.value = ov.communities[0].id if ov.communities else None
        self._show()

    @staticmethod
    def _misfiled_html(ov: CommunitiesOverview) -> str:
        """docs/spec.md §7.2.8: each note whose community is almost all another bucket,
        with the rename a person may run; nothing is moved from here."""
        if not ov.misfiled:
            return ""
        rows = [(m.path, m.bucket, f"{m.community} ({m.community_size} notes)",
                 f"{m.share:.0%} {m.dominant_bucket}",
                 f"reme-workbench rename {m.path} {m.rename_to}")
                for m in ov.misfiled]
        return ("<h4 style='margin:8px 0 2px'>Maybe misfiled — in a community of another "
                "bucket's notes (nothing is moved; a person decides)</h4>" + table_html(
                    ("note", "its bucket", "community", "the other members", "to move it"), rows))

    def _show(self) -> None:
        self.drawing.children = []
        if self.overview is None or self.community.value is None:
            self.detail.value = "<i>No community to show.</i>"
            return
        view = self.overview.get(self.community.value)
        # the comparison each gate makes: "no hub" passes while no member is the hub
        gates = table_html(("gate", "value", "passes when", "passed", "why"), [
            (g.name, "—" if g.value is None else g.value,
             f"{'<' if g.name == 'no_hub' else '≥'} {g.threshold}", "✓" if g.passed else "✗", g.reason)
            for g in view.gates.gates])
        # a screen never offers what a gate refused: a proposal made on an earlier run whose
        # community now fails a gate is named, with the gate, not offered
        if not view.gates.passed:
            verdict = f"stopped by {view.gates.failed.name}"
            if view.waiting_hub:
                verdict += (f"; the hub proposal {view.waiting_hub} of an earlier run no longer "
                            "passes — reject it in the queue, or wait for the gate")
        elif view.waiting_hub:  # the next run proposes no other
            verdict = f"its hub proposal {view.waiting_hub} waits for you"
        else:
            verdict = "passes every gate: a hub is proposed at the next weekly run"
        misfiled = {m.path: m for m in self.overview.misfiled if m.community == view.id}
        members = table_html(("member (most central first)", "bucket", "maybe belongs in"),
                             [(m, m.split("/")[1],
                               misfiled[m].dominant_bucket if m in misfiled else "")
                              for m in view.members])
        stability = "unknown (no previous run)" if view.stability is None else f"{view.stability:.2f}"
        self.detail.value = (
            f"<div><b>{esc(view.id)}</b>: {view.size} notes · stability {esc(stability)} · "
            f"hub: {esc(view.hub or 'none')}{' (your index of it)' if view.hub_is_index else ''} "
            f"(the member linking most others links {view.hub_share:.0%} of them)"
            f" · buckets {esc(view.buckets)}</div>"
            f"<h4 style='margin:8px 0 2px'>Abstract gates — {esc(verdict)}</h4>{gates}"
            f"<h4 style='margin:8px 0 2px'>Members</h4>{members}")
        self.drawing.children = [figure_image(community_figure(community_drawing(self.ws, view)))]
