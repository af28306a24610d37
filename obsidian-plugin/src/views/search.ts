// The search modal over POST /recall: a query, the scope (the notes, the sources, both),
// the hits as they come; clicking one opens it.
import { Modal } from "obsidian";
import type { Scope } from "../client";
import { type Host, messageOf } from "../host";
import { renderHits } from "./hits";

export const SCOPES: [Scope, string][] = [
  ["digest", "Notes"], ["sources", "Sources (daily/, resource/)"], ["all", "Notes and sources"],
];

export class SearchModal extends Modal {
  query = "";
  searchScope: Scope = "digest";
  inputEl!: HTMLInputElement;
  resultsEl!: HTMLElement;
  private asked = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: Host, initial = "") {
    super(host.app);
    this.query = initial;
  }

  onOpen(): void {
    this.modalEl.addClass("reme-search-modal");
    this.titleEl.setText("Search the memory");
    const bar = this.contentEl.createDiv("reme-search-bar");
    this.inputEl = bar.createEl("input", { type: "search", cls: "reme-search-input",
      placeholder: "What are you looking for?", value: this.query });
    const select = bar.createEl("select", { cls: "reme-search-scope dropdown" });
    for (const [value, text] of SCOPES) select.createEl("option", { value, text });
    select.value = this.searchScope;
    this.resultsEl = this.contentEl.createDiv("reme-search-results");
    this.inputEl.addEventListener("input", () => {
      this.query = this.inputEl.value;
      this.later();
    });
    this.inputEl.addEventListener("keydown", (event) => {
      if (event.key === "Enter") void this.search();
    });
    select.addEventListener("change", () => {
      this.searchScope = select.value as Scope;
      void this.search();
    });
    this.inputEl.focus();
    if (this.query.trim()) void this.search();
  }

  onClose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.contentEl.empty();
  }

  private later(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.search(), 300);
  }

  /** Ask for the query as it is now and show the answer (older answers are dropped). */
  async search(): Promise<void> {
    const query = this.query.trim();
    const asked = ++this.asked;
    const out = this.resultsEl;
    if (!query) {
      out.empty();
      return;
    }
    try {
      const answer = await this.host.connection.call((c) => c.recall(query, { k: 20, scope: this.searchScope }));
      if (asked !== this.asked) return;
      out.empty();
      if (answer.hits.length === 0) {
        out.createDiv({ cls: "reme-empty", text: `Nothing found for “${query}”.` });
      } else {
        renderHits(out, answer.hits, (path) => {
          this.close();
          void this.host.openPath(path);
        });
      }
      if (answer.note) out.createDiv({ cls: "reme-note", text: answer.note });
    } catch (error) {
      if (asked !== this.asked) return;
      out.empty();
      out.createDiv({ cls: "reme-empty reme-error", text: messageOf(error) });
    }
  }
}
