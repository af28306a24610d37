// The small modals: a line or a paragraph asked of the person, a yes/no question, and the
// editor of a proposal's files before it is accepted.
import { Modal, Setting, type App } from "obsidian";

/** Ask for text; `done` gets it (trimmed, never empty) when the person confirms. */
export class TextPromptModal extends Modal {
  value = "";

  constructor(app: App, private readonly title: string, private readonly description: string,
    private readonly confirm: string, private readonly done: (text: string) => void,
    private readonly multiline = false, initial = "") {
    super(app);
    this.value = initial;
  }

  onOpen(): void {
    this.modalEl.addClass("reme-prompt-modal");
    this.titleEl.setText(this.title);
    this.contentEl.createEl("p", { cls: "reme-prompt-description", text: this.description });
    const field = this.multiline
      ? this.contentEl.createEl("textarea", { cls: "reme-prompt-input", attr: { rows: 6 } })
      : this.contentEl.createEl("input", { cls: "reme-prompt-input", type: "text" });
    field.value = this.value;
    field.addEventListener("input", () => {
      this.value = field.value;
    });
    field.addEventListener("keydown", (event) => {
      const e = event as KeyboardEvent;
      if (e.key === "Enter" && (!this.multiline || e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.submit();
      }
    });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) => b.setButtonText(this.confirm).setCta().onClick(() => this.submit()));
    field.focus();
  }

  submit(): void {
    const text = this.value.trim();
    if (!text) return;
    this.close();
    this.done(text);
  }

  onClose(): void {
    this.contentEl.empty();
  }
}

/** A question with one action; `yes` runs when the person takes it. */
export class ConfirmModal extends Modal {
  constructor(app: App, private readonly title: string, private readonly text: string,
    private readonly action: string, private readonly yes: () => void) {
    super(app);
  }

  onOpen(): void {
    this.titleEl.setText(this.title);
    this.contentEl.createEl("p", { text: this.text });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Not now").onClick(() => this.close()))
      .addButton((b) => b.setButtonText(this.action).setCta().onClick(() => {
        this.close();
        this.yes();
      }));
  }

  onClose(): void {
    this.contentEl.empty();
  }
}

/** The files a proposal writes, each in a text area; `accept` gets the ones changed. */
export class EditProposalModal extends Modal {
  readonly texts: Map<string, string>;

  constructor(app: App, private readonly id: string, private readonly files: Record<string, string>,
    private readonly accept: (edited: Record<string, string>) => void) {
    super(app);
    this.texts = new Map(Object.entries(files));
  }

  onOpen(): void {
    this.modalEl.addClass("reme-edit-modal");
    this.titleEl.setText(`Edit, then accept ${this.id}`);
    this.contentEl.createEl("p", { cls: "reme-prompt-description",
      text: "Change what the proposal writes; its checks run on your text before anything is written." });
    for (const [path, text] of this.texts) {
      this.contentEl.createDiv({ cls: "reme-edit-path", text: path });
      const area = this.contentEl.createEl("textarea", { cls: "reme-edit-text", attr: { rows: 14, "data-path": path } });
      area.value = text;
      area.addEventListener("input", () => this.texts.set(path, area.value));
    }
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) => b.setButtonText("Accept with my edits").setCta().onClick(() => this.submit()));
  }

  submit(): void {
    const edited: Record<string, string> = {};
    for (const [path, text] of this.texts) if (text !== this.files[path]) edited[path] = text;
    this.close();
    this.accept(edited);
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
