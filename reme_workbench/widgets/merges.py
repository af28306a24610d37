"""The merge votes screen: each merge proposal with both notes side by side, the three
votes (yes/no, confidence, reason), the planned winner and why, every inbound link that
would move to it, and the merged note's diff; accept or reject."""

from __future__ import annotations

import ipywidgets as w

from ..errors import RemeError
from ..ops import Decision, MergeReview, decide, file_diffs, merge_reviews, workspace_of
from .html import diff_html, esc, message_html, side_by_side_html, table_html

__all__ = ["MergeVotesView"]


class MergeVotesView(w.VBox):
    def __init__(self, where, *, state: str = "pending") -> None:
        """`where`: a Workspace, an open Vault or a vault's path."""
        self.ws = workspace_of(where)
        self.vault, self.state = self.ws.open_vault(), state
        self.list = w.Select(options=[], rows=6, layout=w.Layout(width="100%"))
        self.detail = w.HTML()
        self.status = w.HTML()
        self.accept_button = w.Button(description="Accept merge", button_style="success", icon="check")
        self.reject_button = w.Button(description="Reject", button_style="danger", icon="times")
        self.reason = w.Text(placeholder="why (optional)")
        self.reviews: dict[str, MergeReview] = {}
        self.list.observe(lambda _c: self._show(), names="value")
        self.accept_button.on_click(lambda _b: self.decide("accept"))
        self.reject_button.on_click(lambda _b: self.decide("reject"))
        super().__init__([w.HTML("<h3 style='margin:4px 0'>Merge votes</h3>"), self.list,
                          w.HBox([self.accept_button, self.reject_button, self.reason]),
                          self.status, self.detail])
        self.refresh()

    def refresh(self) -> None:
        self.reviews = {r.id: r for r in merge_reviews(self.ws, state=self.state)}
        keep = self.list.value
        self.list.options = [(f"{r.id} · {r.agree} of {len(r.votes)} votes · "
                              f"{r.loser.rsplit('/', 1)[-1]} → {r.winner.rsplit('/', 1)[-1]}", r.id)
                             for r in self.reviews.values()]
        ids = list(self.reviews)
        self.list.value = keep if keep in ids else (ids[0] if ids else None)
        self._show()

    def select(self, proposal_id: str) -> None:
        self.list.value = proposal_id

    def _show(self) -> None:
        review = self.reviews.get(self.list.value) if self.list.value else None
        self.accept_button.disabled = self.reject_button.disabled = review is None
        if review is None:
            self.detail.value = f"<i>No {esc(self.state)} merge proposal.</i>"
            return
        votes = table_html(("judge", "same?", "confidence", "counts", "reason"), [
            (int(v.get("judge", i)) + 1, "yes" if v.get("is_same") else "no", v.get("confidence"),
             "agrees" if v.get("agrees") else "—", v.get("reason", ""))
            for i, v in enumerate(review.votes)])
        person = " A person decided to merge this pair (uncertain report)." if review.decided_by_person else ""
        moves = (table_html(("file linking the loser", "links that move to the winner"),
                            sorted(review.moves.items()))
                 if review.moves else "<i>No other note links the loser.</i>")
        dropped = (("<h4 style='margin:8px 0 2px'>Sentences the merged note drops</h4>"
                    + table_html(("note", "sentence", "closest now"), [
                        (d.get("note", ""), d.get("sentence", ""), d.get("closest") or "—")
                        for d in review.dropped_statements]))
                   if review.dropped_statements else "")
        diffs = "".join(diff_html(d) for d in file_diffs(review.proposal))
        self.detail.value = (
            "<h4 style='margin:8px 0 2px'>The notes</h4>"
            + side_by_side_html(review.winner_text, review.loser_text,
                                f"winner: {review.winner}", f"loser (deleted): {review.loser}")
            + f"<h4 style='margin:8px 0 2px'>Votes: {review.agree} of {len(review.votes)} agree</h4>{votes}"
            + f"<div><b>Winner rule:</b> {esc(review.winner_rule)}{esc(person)}</div>"
            + f"<h4 style='margin:8px 0 2px'>Inbound links that move</h4>{moves}{dropped}"
            + f"<h4 style='margin:8px 0 2px'>The change</h4>{diffs}")

    def decide(self, decision: str) -> Decision | None:
        pid = self.list.value
        if pid is None:
            return None
        try:
            done = decide(self.ws, pid, decision, reason=self.reason.value)
        except RemeError as exc:
            self.status.value = message_html(str(exc), ok=False)
            return None
        self.status.value = message_html(done.message, ok=done.ok)
        self.refresh()
        return done
