// The review view: the proposals dream and consolidate made (action, target, why), each
// opening its story and a readable diff, with accept, reject with a reason, and edit then
// accept. A decision's answer is shown as the API gives it (applied, rejected with the
// failed checks, stale).
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { ProposalDetail, ProposalSummary } from "../client";
import { actionName, decisionText, diffLines, proposalTarget, storyText } from "../format";
import { type Host, messageOf } from "../host";
import { EditProposalModal, TextPromptModal } from "../modals";

export const REVIEW_VIEW = "reme-review";

export const STATES = ["pending", "stale", "rejected", "applied", "all"] as const;
export type StateFilter = (typeof STATES)[number];

export class ReviewView extends ItemView {
  state: StateFilter = "pending";
  proposals: ProposalSummary[] = [];
  /** The proposal opened, with its story and diff. */
  open: ProposalDetail | null = null;
  /** The last decision's answer, shown above the list. */
  answer: ProposalSummary | null = null;
  private listEl!: HTMLElement;

  constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
    super(leaf);
  }

  getViewType(): string {
    return REVIEW_VIEW;
  }

  getDisplayText(): string {
    return "Proposals to review";
  }

  getIcon(): string {
    return "git-pull-request";
  }

  async onOpen(): Promise<void> {
    this.contentEl.addClass("reme-view", "reme-review");
    await this.refresh();
  }

  /** Ask for the proposals in the chosen state and show them. */
  async refresh(): Promise<void> {
    try {
      this.proposals = await this.host.connection.call((c) =>
        c.listProposals(this.state === "all" ? undefined : this.state));
      this.proposals = [...this.proposals].reverse(); // the newest first
      if (this.open && !this.proposals.some((p) => p.id === this.open?.id)) this.open = null;
      this.render(null);
    } catch (error) {
      this.proposals = [];
      this.render(messageOf(error));
    }
  }

  async show(id: string): Promise<void> {
    if (this.open?.id === id) {
      this.open = null;
      this.render(null);
      return;
    }
    try {
      this.open = await this.host.connection.call((c) => c.showProposal(id));
      this.render(null);
    } catch (error) {
      this.host.fail(error);
    }
  }

  async accept(id: string, edited?: Record<string, string>): Promise<void> {
    await this.decide(() => this.host.connection.call((c) => c.accept(id, edited)));
  }

  async reject(id: string, reason: string): Promise<void> {
    await this.decide(() => this.host.connection.call((c) => c.reject(id, reason)));
  }

  askReject(id: string): void {
    new TextPromptModal(this.app, `Reject ${id}`, "Why? The reason is kept with the proposal, " +
      "and dream and consolidate read it before proposing the same again.", "Reject",
    (reason) => void this.reject(id, reason)).open();
  }

  async askEdit(id: string): Promise<void> {
    try {
      const files = await this.host.connection.call((c) => c.proposalFiles(id));
      new EditProposalModal(this.app, id, files, (edited) =>
        void this.accept(id, Object.keys(edited).length ? edited : undefined)).open();
    } catch (error) {
      this.host.fail(error);
    }
  }

  private async decide(run: () => Promise<ProposalSummary>): Promise<void> {
    try {
      this.answer = await run();
      this.open = null;
    } catch (error) {
      this.host.fail(error);
      return;
    }
    await this.refresh();
  }

  private render(problem: string | null): void {
    const el = this.contentEl;
    el.empty();
    const head = el.createDiv("reme-view-head");
    head.createDiv({ cls: "reme-view-title", text: "Proposals" });
    const select = head.createEl("select", { cls: "reme-state dropdown" });
    for (const state of STATES) select.createEl("option", { value: state, text: state });
    select.value = this.state;
    select.addEventListener("change", () => {
      this.state = select.value as StateFilter;
      void this.refresh();
    });
    head.createEl("button", { cls: "reme-refresh", text: "Refresh" })
      .addEventListener("click", () => void this.refresh());
    if (this.answer) {
      el.createDiv({ cls: `reme-answer reme-state-${this.answer.state}`, text: decisionText(this.answer) });
    }
    if (problem !== null) {
      el.createDiv({ cls: "reme-empty reme-error", text: problem });
      return;
    }
    if (this.proposals.length === 0) {
      el.createDiv({ cls: "reme-empty", text: this.state === "pending"
        ? "Nothing waits for review. Dream and consolidate put their proposals here."
        : `No ${this.state === "all" ? "" : `${this.state} `}proposals.` });
      return;
    }
    this.listEl = el.createDiv("reme-proposals");
    for (const p of this.proposals) this.renderItem(p);
  }

  private renderItem(p: ProposalSummary): void {
    const item = this.listEl.createDiv({ cls: "reme-proposal", attr: { "data-id": p.id } });
    const head = item.createDiv("reme-proposal-head");
    head.createSpan({ cls: `reme-action reme-action-${actionName(p.action)}`, text: actionName(p.action) });
    head.createSpan({ cls: "reme-proposal-target", text: proposalTarget(p) });
    if (p.state !== "pending") head.createSpan({ cls: `reme-badge reme-state-${p.state}`, text: p.state });
    item.createDiv({ cls: "reme-proposal-why", text: p.summary });
    if (p.error) item.createDiv({ cls: "reme-proposal-error", text: p.error });
    head.addEventListener("click", () => void this.show(p.id));
    item.querySelector(".reme-proposal-why")?.addEventListener("click", () => void this.show(p.id));
    if (this.open?.id === p.id) this.renderDetail(item, this.open);
  }

  private renderDetail(item: HTMLElement, p: ProposalDetail): void {
    item.addClass("is-open");
    const detail = item.createDiv("reme-proposal-detail");
    if (p.state === "pending" || p.state === "stale") {
      const buttons = detail.createDiv("reme-buttons");
      buttons.createEl("button", { cls: "mod-cta reme-accept", text: "Accept" })
        .addEventListener("click", () => void this.accept(p.id));
      buttons.createEl("button", { cls: "reme-edit", text: "Edit, then accept…" })
        .addEventListener("click", () => void this.askEdit(p.id));
      buttons.createEl("button", { cls: "mod-warning reme-reject", text: "Reject…" })
        .addEventListener("click", () => this.askReject(p.id));
    }
    detail.createDiv({ cls: "reme-section-title", text: "Why" });
    const story = detail.createDiv("reme-story");
    for (const [key, value] of Object.entries(p.story)) {
      const row = story.createDiv("reme-story-row");
      row.createDiv({ cls: "reme-story-key", text: key.replace(/_/g, " ") });
      row.createDiv({ cls: "reme-story-value", text: storyText(value) });
    }
    detail.createDiv({ cls: "reme-section-title", text: "What it changes" });
    const diff = detail.createDiv("reme-diff");
    for (const line of diffLines(p.diff)) diff.createDiv({ cls: `reme-diff-${line.kind}`, text: line.text || " " });
  }
}
