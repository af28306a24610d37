"""The proposal queue screen: filter, read the story and the diffs, decide.

`ProposalQueueView(vault)` is an ipywidgets VBox: filters (action, bucket, material,
state), the list of proposals, the selected one's story and a diff per file with the
links it adds and removes, and the decisions — accept, reject, edit-then-accept (the
edited text is judged by the proposal's own checks before it applies), re-plan a stale
one, and batch accept of the filtered list after a confirmation that says how many.
Every action is an operation (`reme_workbench.ops`: decide, accept_many, replan — the same
accept and reject the CLI, HTTP and MCP call, through the proposal queue and the changeset
store), so a stale proposal is never applied over a person's change.

Driven from Python as from the screen: `view.select(id)`, then `view.accept_button.click()`.
"""

from __future__ import annotations

import html

import ipywidgets as w

from ..errors import RemeError
from ..ops import review_ops as rv
from ..ops import workspace_of
from .html import diff_html, message_html, sections_html

__all__ = ["ProposalQueueView", "ACTIONS"]

ACTIONS = (("every action", ""), ("dream (all)", "dream."), ("dream.create", "dream.create"),
           ("dream.corroborate", "dream.corroborate"), ("dream.refine", "dream.refine"),
           ("dream.correct", "dream.correct"), ("consolidate (all)", "consolidate."),
           ("consolidate.merge", "consolidate.merge"), ("consolidate.split", "consolidate.split"),
           ("consolidate.abstract", "consolidate.abstract"))
STATES = (("pending", "pending"), ("stale", "stale"), ("applied", "applied"),
          ("rejected", "rejected"), ("every state", ""))


class ProposalQueueView(w.VBox):
    def __init__(self, where, *, settings=None, actions: str = "", state: str = "pending") -> None:
        """`where`: a Workspace (with the brains and embedder re-planning uses: a test's
        are handed to it), an open Vault or a vault's path; `settings` replace the
        workspace's for this screen only."""
        self.ws = workspace_of(where)
        if settings is not None:
            self.ws = self.ws.with_settings(settings)
        self.vault, self.settings = self.ws.open_vault(), self.ws.settings
        self.action = w.Dropdown(options=ACTIONS, value=actions, description="action")
        self.bucket = w.Dropdown(options=[("every bucket", "")] + [(b, b) for b in rv.BUCKETS],
                                 value="", description="bucket")
        self.material = w.Dropdown(options=[("every material", "")], value="", description="material")
        self.state = w.Dropdown(options=STATES, value=state, description="state")
        self.count = w.HTML()
        self.list = w.Select(options=[], rows=10, layout=w.Layout(width="100%"))
        self.detail = w.HTML()
        self.status = w.HTML()
        self.accept_button = w.Button(description="Accept", button_style="success", icon="check")
        self.reject_button = w.Button(description="Reject", button_style="danger", icon="times")
        self.reason = w.Text(placeholder="why (optional, for reject)", layout=w.Layout(width="30%"))
        self.edit_button = w.Button(description="Edit…", icon="pencil")
        self.replan_button = w.Button(description="Re-plan", icon="refresh")
        self.revert_button = w.Button(description="Revert", icon="undo")
        self.batch_button = w.Button(description="Accept all shown…", icon="check-square")
        self.confirm_button = w.Button(description="Confirm", button_style="warning")
        self.cancel_button = w.Button(description="Cancel")
        self.confirm_box = w.HBox([self.confirm_button, self.cancel_button])
        self.confirm_box.layout.display = "none"
        self.editors: dict[str, w.Textarea] = {}
        self.edit_box = w.VBox()
        self.accept_edited_button = w.Button(description="Accept edited", button_style="success")
        self.cancel_edit_button = w.Button(description="Cancel edit")
        self._batch: list[str] = []

        for control in (self.action, self.bucket, self.material, self.state):
            control.observe(lambda _change: self.refresh(), names="value")
        self.list.observe(lambda _change: self._selected(), names="value")
        self.accept_button.on_click(lambda _b: self.accept())
        self.reject_button.on_click(lambda _b: self.reject(self.reason.value))
        self.edit_button.on_click(lambda _b: self.start_edit())
        self.accept_edited_button.on_click(lambda _b: self.accept_edited())
        self.cancel_edit_button.on_click(lambda _b: self._end_edit())
        self.replan_button.on_click(lambda _b: self.replan())
        self.revert_button.on_click(lambda _b: self.revert())
        self.batch_button.on_click(lambda _b: self.ask_batch())
        self.confirm_button.on_click(lambda _b: self.confirm_batch())
        self.cancel_button.on_click(lambda _b: self._hide_confirm("Batch accept cancelled."))
        super().__init__([
            w.HTML("<h3 style='margin:4px 0'>Proposals</h3>"),
            w.HBox([self.action, self.bucket, self.state]), self.material, self.count, self.list,
            w.HBox([self.accept_button, self.reject_button, self.reason, self.edit_button,
                    self.replan_button, self.revert_button, self.batch_button]),
            self.confirm_box, self.status, self.edit_box, self.detail,
        ])
        self.refresh()

    # -- the list -----------------------------------------------------------------------------
    @property
    def filter(self) -> rv.ReviewFilter:
        return rv.ReviewFilter(state=self.state.value or None,
                               actions=(self.action.value,) if self.action.value else (),
                               bucket=self.bucket.value or None,
                               material=self.material.value or None)

    @property
    def shown(self) -> list[str]:
        """The ids the list shows now (the filtered selection)."""
        return [value for _, value in self.list.options]

    @property
    def selected(self) -> str | None:
        return self.list.value

    def refresh(self) -> None:
        """Read the queue again and show what the filters pick."""
        every = rv.proposals(self.ws)
        materials = sorted({m for p in every if (m := rv.material_of(p))})
        wanted = self.material.value
        self.material.options = [("every material", "")] + [(m, m) for m in materials]
        self.material.value = wanted if wanted in materials else ""
        picked = self.filter.pick(every)
        keep = self.list.value
        self.list.options = [(f"{p.id} · {p.action} · {p.summary}"[:160], p.id) for p in picked]
        self.list.value = keep if keep in self.shown else (self.shown[0] if self.shown else None)
        self.count.value = (f"<b>{len(picked)}</b> of {len(every)} proposals shown")
        self._show()

    def select(self, proposal_id: str) -> None:
        if proposal_id not in self.shown:
            raise RemeError(f"{proposal_id} is not in the list; change the filters to show it.")
        self.list.value = proposal_id

    def _selected(self) -> None:
        """Another proposal chosen: what was said and typed about the last one goes."""
        self.status.value = ""
        self.reason.value = ""
        self._show()

    def _show(self) -> None:
        pid = self.list.value
        self._end_edit()
        if pid is None:
            self.detail.value = "<i>No proposal matches the filters.</i>"
            for b in (self.accept_button, self.reject_button, self.edit_button, self.replan_button,
                      self.revert_button):
                b.disabled = True
            self.batch_button.disabled = not self.shown
            return
        proposal = rv.load_proposal(self.ws, pid)
        waiting = proposal.state in ("pending", "stale")
        self.accept_button.disabled = self.reject_button.disabled = not waiting
        self.edit_button.disabled = not waiting or not rv.writes_text(proposal)
        self.replan_button.disabled = proposal.state != "stale"
        self.revert_button.disabled = proposal.state != "applied"
        self.batch_button.disabled = not self.shown
        diffs = "".join(diff_html(d) for d in rv.file_diffs(proposal))
        self.detail.value = (sections_html(rv.story_sections(proposal))
                             + f"<h4 style='margin:8px 0 2px'>Changes</h4>{diffs}")

    def _say(self, text: str, ok: bool = True) -> None:
        self.status.value = message_html(text, ok=ok)

    # -- decisions ----------------------------------------------------------------------------
    def _decide(self, what, *args, **kwargs) -> rv.Decision | None:
        pid = self.list.value
        if pid is None:
            self._say("Select a proposal first.", ok=False)
            return None
        try:
            done = what(self.ws, pid, *args, **kwargs)
        except RemeError as exc:
            self._say(str(exc), ok=False)
            return None
        self.refresh()
        if done.new_ids and done.new_ids[0] in self.shown:
            self.list.value = done.new_ids[0]
        self._say(done.message, ok=done.ok)  # after the list moved on: it is about this one
        if done.ok:
            self.reason.value = ""
        return done

    def accept(self) -> rv.Decision | None:
        return self._decide(rv.decide, "accept")

    def reject(self, reason: str = "") -> rv.Decision | None:
        return self._decide(rv.decide, "reject", reason=reason)

    def revert(self) -> rv.Decision | None:
        return self._decide(rv.decide, "revert")

    def replan(self) -> rv.Decision | None:
        if self.state.value == "stale":  # the re-planned proposal is pending: show it
            self.state.value = ""
        return self._decide(rv.replan)

    def start_edit(self) -> None:
        """One text box per file the proposal writes, holding what it would write."""
        pid = self.list.value
        if pid is None:
            return
        proposal = rv.load_proposal(self.ws, pid)
        self.editors = {path: w.Textarea(value=text, layout=w.Layout(width="100%", height="240px"))
                        for path, text in rv.writes_text(proposal).items()}
        # each box under its whole path: a split's children share a long prefix
        self.edit_box.children = [w.HTML("<b>Edit, then accept: the proposal's checks judge "
                                         "your version before it is written.</b>"),
                                  *(w.VBox([w.HTML(f"<code>{html.escape(path)}</code>"), box])
                                    for path, box in self.editors.items()),
                                  w.HBox([self.accept_edited_button, self.cancel_edit_button])]

    def accept_edited(self) -> rv.Decision | None:
        edited = {path: box.value for path, box in self.editors.items()}
        return self._decide(rv.decide, "accept", edited=edited)

    def _end_edit(self) -> None:
        self.editors = {}
        self.edit_box.children = []

    # -- batch --------------------------------------------------------------------------------
    def ask_batch(self) -> None:
        self._batch = list(self.shown)
        if not self._batch:
            self._say("Nothing to accept: the list is empty.", ok=False)
            return
        self.confirm_box.layout.display = "flex"
        self.confirm_button.description = f"Accept {len(self._batch)}"
        self._say(f"Accept all {len(self._batch)} proposals shown? Each is checked again "
                  "against the files as they are now.")

    def confirm_batch(self) -> list[rv.Decision]:
        results = rv.accept_many(self.ws, self._batch)
        self._batch = []
        applied = sum(r.state == "applied" for r in results)
        problems = [r for r in results if r.state != "applied"]
        self.confirm_box.layout.display = "none"
        self.refresh()
        self._say(f"{applied} of {len(results)} applied."
                  + ("" if not problems else " Not applied: " + "; ".join(r.message for r in problems[:5])),
                  ok=not problems)
        return results

    def _hide_confirm(self, message: str) -> None:
        self.confirm_box.layout.display = "none"
        self._say(message)
