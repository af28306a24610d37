"""The archive screen: the histogram of recency scores with the cut, the archived notes,
and thaw by hand (the note is in use again: recall finds it at once, and the next
archive batch keeps it out)."""

from __future__ import annotations

import ipywidgets as w

from ..errors import RemeError
from ..ops import ArchiveOverview, archive_overview, thaw, workspace_of
from .html import message_html, table_html
from .plots import figure_image, recency_figure

__all__ = ["ArchiveView"]


class ArchiveView(w.VBox):
    def __init__(self, where) -> None:
        """`where`: a Workspace, an open Vault or a vault's path."""
        self.ws = workspace_of(where)
        self.vault = self.ws.open_vault()
        self.plot = w.VBox()
        self.archived = w.Select(options=[], rows=8, layout=w.Layout(width="100%"))
        self.thaw_button = w.Button(description="Thaw", icon="sun-o")
        self.status = w.HTML()
        self.lowest = w.HTML()
        self.overview: ArchiveOverview | None = None
        self.thaw_button.on_click(lambda _b: self.thaw())
        super().__init__([w.HTML("<h3 style='margin:4px 0'>Archive</h3>"), self.plot,
                          w.HTML("<b>Archived notes</b> (recall leaves them out; dream still sees them)"),
                          self.archived, self.thaw_button, self.status, self.lowest])
        self.refresh()

    def refresh(self) -> None:
        ov = self.overview = archive_overview(self.ws)
        self.plot.children = [figure_image(recency_figure(ov))]
        self.archived.options = [(f"{p} · {ov.score(p) or 0:.3f}", p) for p in ov.archived]
        self.archived.value = ov.archived[0] if ov.archived else None
        self.thaw_button.disabled = not ov.archived
        lowest = sorted(((p, ov.score(p)) for p in ov.scores), key=lambda kv: (kv[1], kv[0]))[:10]
        if ov.warnings:
            self.status.value = "".join(message_html(m, ok=False) for m in ov.warnings)
        elif lowest and not ov.archived:  # a young or busy vault: say when the first one goes
            self.status.value = message_html(
                f"No note is archived: every one was used or changed lately. Untouched, the "
                f"coldest ({lowest[0][0]}) falls under the cut of {ov.threshold} in "
                f"{self._left(lowest[0][0])}.")
        self.lowest.value = ("<b>Lowest scores</b>" + table_html(
            ("note", "recency", "under the cut, untouched, in"),
            [(p, f"{s:.3f}", self._left(p)) for p, s in lowest]) if lowest else "")

    def _left(self, path: str) -> str:
        left = self.overview.days_left(path) if self.overview else None
        if left is None:
            return "—"
        days, at_least = left
        return f"{'at least ' if at_least else ''}{days:.0f} days"

    def thaw(self) -> ArchiveOverview | None:
        path = self.archived.value
        if path is None:
            return None
        try:
            overview = thaw(self.ws, path)
        except RemeError as exc:
            self.status.value = message_html(str(exc), ok=False)
            return None
        self.refresh()
        self.status.value = message_html(f"Thawed {path}: recall finds it again, and the next "
                                         "archive batch keeps it out.")
        return overview
