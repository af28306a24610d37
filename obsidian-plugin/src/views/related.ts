// The side panel of the notes related to the open note: its description and body are the
// query (POST /related), itself left out; it follows the person from note to note.
import { ItemView, type TFile, type WorkspaceLeaf } from "obsidian";
import type { RecallAnswer } from "../client";
import { type Host, messageOf } from "../host";
import { basename, renderHits } from "./hits";

export const RELATED_VIEW = "reme-related";

export class RelatedView extends ItemView {
  /** The note shown now (null: none open). */
  path: string | null = null;
  private asked = 0; // answers to an older question than the last are dropped

  constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
    super(leaf);
  }

  getViewType(): string {
    return RELATED_VIEW;
  }

  getDisplayText(): string {
    return "Related notes";
  }

  getIcon(): string {
    return "links-coming-in";
  }

  async onOpen(): Promise<void> {
    this.contentEl.addClass("reme-view");
    this.registerEvent(this.app.workspace.on("file-open", (file: TFile | null) => {
      void this.showFor(file?.path ?? null);
    }));
    await this.showFor(this.app.workspace.getActiveFile()?.path ?? null);
  }

  /** Ask for the notes related to `path` and show them (or why there are none). */
  async showFor(path: string | null, force = false): Promise<void> {
    if (path === this.path && !force) return;
    this.path = path;
    const asked = ++this.asked;
    if (path === null || !path.endsWith(".md")) {
      this.render(path, null, "Open a note to see the notes related to it.");
      return;
    }
    this.render(path, null, "Looking for related notes…");
    try {
      const answer = await this.host.connection.call((c) => c.related(path, this.host.settings.relatedCount));
      if (asked === this.asked) this.render(path, answer, null);
    } catch (error) {
      if (asked === this.asked) this.render(path, null, messageOf(error));
    }
  }

  private render(path: string | null, answer: RecallAnswer | null, message: string | null): void {
    const el = this.contentEl;
    el.empty();
    const head = el.createDiv("reme-view-head");
    head.createDiv({ cls: "reme-view-title", text: path ? `Related to ${basename(path)}` : "Related notes" });
    const refresh = head.createEl("button", { cls: "reme-refresh", text: "Refresh",
      attr: { "aria-label": "Ask again" } });
    refresh.addEventListener("click", () => void this.showFor(this.path, true));
    if (message !== null) {
      el.createDiv({ cls: "reme-empty", text: message });
      return;
    }
    if (answer === null) return;
    if (answer.hits.length === 0) {
      el.createDiv({ cls: "reme-empty", text: "No related notes: nothing else in the memory is near this note yet." });
    } else {
      renderHits(el, answer.hits, (p) => void this.host.openPath(p));
    }
    if (answer.note) el.createDiv({ cls: "reme-note", text: answer.note });
  }
}
