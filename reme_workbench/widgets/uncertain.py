"""The uncertain duplicates screen: each pair of the dups_uncertain reports with its votes,
the suggestion and both notes side by side, and the three routes — merge anyway (a merge
proposal, shown here to accept), keep both, hand to dream as an update (a dream.refine
of the note chosen in "into")."""

from __future__ import annotations

import ipywidgets as w

from ..errors import RemeError
from ..ops import (
    Decision,
    UncertainEntry,
    decide,
    file_diffs,
    hand_to_dream,
    keep_both,
    load_proposal,
    merge_anyway,
    uncertain_entries,
    workspace_of,
)
from .html import diff_html, esc, message_html, side_by_side_html, table_html

__all__ = ["UncertainView"]


class UncertainView(w.VBox):
    def __init__(self, where, *, settings=None) -> None:
        """`where`: a Workspace (with the consolidate brain "merge anyway" asks: a
        notebook's experiment hands its own to it), an open Vault or a vault's path;
        `settings` replace the workspace's for this screen only."""
        self.ws = workspace_of(where)
        if settings is not None:
            self.ws = self.ws.with_settings(settings)
        self.vault, self.settings = self.ws.open_vault(), self.ws.settings
        self.list = w.Select(options=[], rows=6, layout=w.Layout(width="100%"))
        self.detail = w.HTML()
        self.status = w.HTML()
        self.merge_button = w.Button(description="Merge anyway", icon="compress")
        self.keep_button = w.Button(description="Keep both", icon="clone")
        self.into = w.Dropdown(description="into", options=[])
        self.dream_button = w.Button(description="Hand to dream as an update", icon="moon-o",
                                     layout=w.Layout(width="auto"))
        self.made = w.HTML()  # the proposal a route made, to accept here
        self.accept_made_button = w.Button(description="Accept it", button_style="success")
        self.accept_made_button.layout.display = "none"
        self.made_id: str | None = None
        self.entries: dict[str, UncertainEntry] = {}
        self.list.observe(lambda _c: self._show(), names="value")
        self.merge_button.on_click(lambda _b: self.merge_anyway())
        self.keep_button.on_click(lambda _b: self.keep_both())
        self.dream_button.on_click(lambda _b: self.hand_to_dream())
        self.accept_made_button.on_click(lambda _b: self.accept_made())
        super().__init__([w.HTML("<h3 style='margin:4px 0'>Uncertain duplicates</h3>"), self.list,
                          w.HBox([self.merge_button, self.keep_button, self.into, self.dream_button]),
                          self.status, self.made, self.accept_made_button, self.detail])
        self.refresh()

    def refresh(self) -> None:
        self.entries = {f"{e.a} ⟷ {e.b}": e for e in uncertain_entries(self.ws)}
        keep = self.list.value
        self.list.options = [(f"{e.names[0]} ⟷ {e.names[1]} ({e.report.split('/')[1]})", key)
                             for key, e in self.entries.items()]
        keys = list(self.entries)
        self.list.value = keep if keep in keys else (keys[0] if keys else None)
        self._show()

    @property
    def entry(self) -> UncertainEntry | None:
        return self.entries.get(self.list.value) if self.list.value else None

    def _show(self) -> None:
        e = self.entry
        for b in (self.merge_button, self.keep_button, self.dream_button):
            b.disabled = e is None
        if e is None:
            self.detail.value = "<i>No uncertain pair waits for a decision.</i>"
            self.into.options = []
            return
        self.into.options = [(e.names[0], e.a), (e.names[1], e.b)]
        self.into.value = e.a
        votes = table_html(("judge", "answer", "confidence", "reason"), [
            (v.judge, "yes (counts)" if v.agrees else ("yes" if v.is_same else "no"), v.confidence, v.reason)
            for v in e.votes])
        texts = [self._text(p) for p in (e.a, e.b)]
        self.detail.value = (
            f"<div>{esc(e.why)}</div><div>community {esc(e.community)} · description similarity "
            f"{e.description_similarity:.2f} · body overlap {e.body_overlap:.2f} · from {esc(e.report)}</div>"
            f"{votes}<div><b>Suggestion:</b> {esc(e.suggestion)}</div>"
            + side_by_side_html(texts[0], texts[1], e.a, e.b))

    def _text(self, path: str) -> str:
        try:
            return (self.vault.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return f"(cannot be read: {exc})"

    def _route(self, fn) -> str | None:
        e = self.entry
        if e is None:
            return None
        try:
            message, made = fn(e)
        except RemeError as exc:
            self.status.value = message_html(str(exc), ok=False)
            return None
        self.status.value = message_html(message)
        self.made_id = made
        self._show_made()
        self.refresh()
        return made

    def _show_made(self) -> None:
        if self.made_id is None:
            self.made.value, self.accept_made_button.layout.display = "", "none"
            return
        proposal = load_proposal(self.ws, self.made_id)
        diffs = "".join(diff_html(d) for d in file_diffs(proposal))
        self.made.value = (f"<h4 style='margin:8px 0 2px'>{esc(proposal.id)} ({esc(proposal.state)}): "
                           f"{esc(proposal.summary)}</h4>{diffs}")
        self.accept_made_button.layout.display = "" if proposal.state == "pending" else "none"

    def merge_anyway(self) -> str | None:
        def run(e):
            (pid,) = merge_anyway(self.ws, e)[:1]
            return f"Merge proposal {pid} made for {e.a} and {e.b}; accept it below or in the merge screen.", pid
        return self._route(run)

    def keep_both(self) -> str | None:
        def run(e):
            keep_both(self.ws, e)
            return f"Kept both: {e.a} and {e.b} are not reported again while both are unchanged.", None
        return self._route(run)

    def hand_to_dream(self) -> str | None:
        def run(e):
            pid = hand_to_dream(self.ws, e, into=self.into.value)
            return f"Update {pid} made: {self.into.value} lists the other note as an instance; accept it below.", pid
        return self._route(run)

    def accept_made(self) -> Decision | None:
        if self.made_id is None:
            return None
        try:
            done = decide(self.ws, self.made_id, "accept")
        except RemeError as exc:
            self.status.value = message_html(str(exc), ok=False)
            return None
        self.status.value = message_html(done.message, ok=done.ok)
        self._show_made()
        return done
