// The reme-workbench plugin: memory and review inside Obsidian, over the local API of
// `reme-workbench serve` (docs/obsidian.md, "The plugin"; the API: docs/api.md).
import {
  FileSystemAdapter, Notice, Plugin, requestUrl, type TFile, type WorkspaceLeaf,
} from "obsidian";
import { ApiError, type JobKind, type JobStatus, type Transport } from "./client";
import { Connection } from "./connection";
import { jobSummary, statusText, statusTitle } from "./format";
import { DEFAULT_SETTINGS, type Host, messageOf, type Settings } from "./host";
import { ConfirmModal, TextPromptModal } from "./modals";
import { ServerProcess } from "./server";
import { RemeSettingTab } from "./settings";
import { RELATED_VIEW, RelatedView } from "./views/related";
import { REVIEW_VIEW, ReviewView } from "./views/review";
import { SearchModal } from "./views/search";

// the client and the connection, for a script or the end-to-end test under Node
export { RemeClient, fetchTransport, parseServeInfo, ApiError } from "./client";
export { Connection } from "./connection";
export { ServerProcess } from "./server";

const STATUS_EVERY_MS = 3000;
const JOB_EVERY_MS = 1500;
const START_WAIT_MS = 60_000;

/** Obsidian's requestUrl as the client's transport (no CORS in the way, unlike fetch). */
export const obsidianTransport: Transport = async (request) => {
  const answer = await requestUrl({
    url: request.url, method: request.method, headers: request.headers,
    body: request.body, contentType: request.headers["Content-Type"], throw: false,
  });
  return { status: answer.status, text: answer.text };
};

export default class RemeWorkbenchPlugin extends Plugin implements Host {
  settings: Settings = { ...DEFAULT_SETTINGS };
  /** How requests go out: Obsidian's requestUrl (a test gives its own). */
  transport: Transport = obsidianTransport;
  connection!: Connection;
  server = new ServerProcess();
  statusEl!: HTMLElement;
  /** The job the plugin started and watches, until it ends. */
  job: JobStatus | null = null;
  private problem: string | null = null;
  private offered = false;
  private openFailed = false;

  async onload(): Promise<void> {
    this.settings = { ...DEFAULT_SETTINGS, ...((await this.loadData()) as Partial<Settings> | null) };
    this.connection = new Connection(this.app.vault.adapter, this.transport);
    this.registerView(RELATED_VIEW, (leaf: WorkspaceLeaf) => new RelatedView(leaf, this));
    this.registerView(REVIEW_VIEW, (leaf: WorkspaceLeaf) => new ReviewView(leaf, this));
    this.addSettingTab(new RemeSettingTab(this.app, this));
    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass("reme-status");
    this.statusEl.addEventListener("click", () => void this.connectOrOffer(true));
    this.addRibbonIcon("search", "Search the memory", () => new SearchModal(this).open());
    this.addRibbonIcon("git-pull-request", "Review proposals", () => void this.reveal(REVIEW_VIEW));
    this.addCommands();
    this.registerEvent(this.app.workspace.on("file-open", (file: TFile | null) => {
      if (file) void this.reportOpen(file.path);
    }));
    this.registerInterval(window.setInterval(() => void this.updateStatus(), STATUS_EVERY_MS));
    // the server this plugin started stops with Obsidian, even when the window closes
    // without unloading the plugin
    this.registerDomEvent(window, "beforeunload", () => this.server.stop());
    this.app.workspace.onLayoutReady(() => void this.connectOrOffer(false));
    this.showStatus(null);
  }

  onunload(): void {
    this.server.stop(); // only a server this plugin started; one the person started stays
  }

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
  }

  fail(error: unknown): void {
    new Notice(`reme-workbench: ${messageOf(error)}`, 10_000);
  }

  async openPath(path: string): Promise<void> {
    await this.app.workspace.openLinkText(path, "", false);
  }

  private addCommands(): void {
    this.addCommand({ id: "search", name: "Search the memory", callback: () => new SearchModal(this).open() });
    this.addCommand({ id: "related", name: "Show related notes", callback: () => void this.reveal(RELATED_VIEW) });
    this.addCommand({ id: "review", name: "Review proposals", callback: () => void this.reveal(REVIEW_VIEW) });
    this.addCommand({ id: "dream", name: "Dream now", callback: () => void this.runJob("dream") });
    this.addCommand({ id: "consolidate", name: "Consolidate now", callback: () => void this.runJob("consolidate") });
    this.addCommand({ id: "append-daily", name: "Append the selection to today's daily log",
      callback: () => this.appendDaily() });
    this.addCommand({ id: "proposal-for-note", name: "Open the proposal for this note",
      callback: () => void this.proposalForNote() });
    this.addCommand({ id: "health", name: "Health check", callback: () => void this.healthCheck() });
    this.addCommand({ id: "connect", name: "Connect to the server", callback: () => void this.connectOrOffer(true) });
    this.addCommand({ id: "start-server", name: "Start the server", callback: () => void this.startServer() });
    this.addCommand({ id: "stop-server", name: "Stop the server this plugin started",
      callback: () => this.stopServer() });
  }

  /** Connect from serve.json; with no server, offer to start one (or start it, when the
   * settings say so). `asked`: the person asked, so every failure is told. */
  async connectOrOffer(asked: boolean): Promise<void> {
    try {
      await this.connection.connect();
      this.problem = null;
      if (asked) new Notice("reme-workbench: connected.");
      await this.updateStatus();
    } catch (error) {
      this.problem = messageOf(error);
      this.showStatus(null);
      const noServer = error instanceof ApiError && error.status === 0;
      if (noServer && this.settings.autoStart) return this.startServer();
      if (noServer && (asked || !this.offered)) {
        this.offered = true;
        new ConfirmModal(this.app, "Start reme-workbench?", `${messageOf(error)}\n\nStart ` +
          `\`${this.settings.command} serve\` for this vault now? It stops when Obsidian closes.`,
        "Start the server", () => void this.startServer()).open();
        return;
      }
      if (asked || !noServer) this.fail(error);
    }
  }

  /** Start `reme-workbench serve` for this vault and connect once it listens. */
  async startServer(): Promise<void> {
    const adapter = this.app.vault.adapter;
    if (!(adapter instanceof FileSystemAdapter)) {
      this.fail("this vault is not a folder on disk; run `reme-workbench serve` in it yourself.");
      return;
    }
    try {
      this.server.start(this.settings.command, adapter.getBasePath());
    } catch (error) {
      this.fail(`could not start \`${this.settings.command}\` (${messageOf(error)}); set its full ` +
        "path in Settings → reme-workbench.");
      return;
    }
    const notice = new Notice("reme-workbench: starting the server…", 0);
    const deadline = Date.now() + START_WAIT_MS;
    while (Date.now() < deadline) {
      await sleep(500);
      if (this.server.exited !== null) {
        notice.hide();
        this.fail(`the server stopped at once: ${this.server.lastWords || "it printed nothing"}`);
        return;
      }
      try {
        await this.connection.connect();
        notice.hide();
        this.problem = null;
        new Notice("reme-workbench: server started and connected.");
        await this.updateStatus();
        this.refreshViews();
        return;
      } catch {
        // not listening yet (or an old serve.json): wait and read it again
      }
    }
    notice.hide();
    this.fail(`the server did not answer within ${START_WAIT_MS / 1000} s; run \`${this.settings.command} ` +
      "serve` in the vault's folder to see why.");
  }

  stopServer(): void {
    if (!this.server.running) {
      new Notice("reme-workbench: this plugin started no server (one you started yourself stays running).");
      return;
    }
    this.server.stop();
    this.connection.forget();
    this.problem = "The server was stopped.";
    this.showStatus(null);
  }

  async updateStatus(): Promise<void> {
    if (!this.connection.connected) {
      this.showStatus(null);
      return;
    }
    try {
      const index = await this.connection.call((c) => c.indexStatus());
      // a job another client started on this server shows too
      const running = this.job ?? (await this.connection.call((c) => c.jobs()))
        .find((j) => j.state === "running") ?? null;
      this.problem = null;
      this.showStatus(index, running);
    } catch (error) {
      this.connection.forget();
      this.problem = messageOf(error);
      this.showStatus(null);
    }
  }

  private showStatus(index: Parameters<typeof statusText>[0], job: JobStatus | null = this.job): void {
    const problem = index ? null : this.problem;
    this.statusEl.setText(statusText(index, job, problem));
    this.statusEl.setAttribute("aria-label", statusTitle(index, job, problem));
    this.statusEl.title = statusTitle(index, job, problem);
  }

  /** Start dream or consolidate as a job, follow it in the status bar, tell how it ended,
   * and refresh the review view. */
  async runJob(kind: JobKind): Promise<void> {
    let job: JobStatus;
    try {
      job = await this.connection.call((c) => c.startJob(kind));
    } catch (error) {
      this.fail(error);
      return;
    }
    new Notice(`reme-workbench: ${kind} started.`);
    this.job = job;
    while (job.state === "running") {
      await sleep(JOB_EVERY_MS);
      try {
        job = await this.connection.call((c) => c.job(job.id));
      } catch (error) {
        this.fail(error);
        break;
      }
      this.job = job;
      await this.updateStatus();
    }
    this.job = null;
    await this.updateStatus();
    new Notice(`reme-workbench: ${jobSummary(job)}`, 10_000);
    this.refreshViews();
  }

  appendDaily(): void {
    const selection = this.app.workspace.activeEditor?.editor?.getSelection() ?? "";
    const send = async (text: string) => {
      try {
        const entry = await this.connection.call((c) => c.appendDaily(text));
        new Notice(`reme-workbench: added to ${entry.path}.`);
      } catch (error) {
        this.fail(error);
      }
    };
    if (selection.trim()) {
      void send(selection);
      return;
    }
    new TextPromptModal(this.app, "Append to today's daily log", "What happened, what you " +
      "learned or decided. Dream turns it into notes later.", "Append", (text) => void send(text),
    true).open();
  }

  async proposalForNote(): Promise<void> {
    const file = this.app.workspace.getActiveFile();
    if (!file) {
      new Notice("reme-workbench: open a note first.");
      return;
    }
    try {
      const pending = await this.connection.call((c) => c.listProposals("pending"));
      const mine = pending.filter((p) => p.files.includes(file.path));
      if (mine.length === 0) {
        new Notice(`reme-workbench: no pending proposal changes ${file.path}.`);
        return;
      }
      const view = await this.reveal(REVIEW_VIEW);
      if (view instanceof ReviewView) {
        view.state = "pending";
        await view.refresh();
        await view.show(mine[mine.length - 1].id);
      }
    } catch (error) {
      this.fail(error);
    }
  }

  async healthCheck(): Promise<void> {
    try {
      const h = await this.connection.call((c) => c.health());
      const text = h.ok ? "the links are sound: no broken link or provenance."
        : `${h.broken_links.length} broken link(s), ${h.broken_provenance.length} broken and ` +
          `${h.missing_provenance.length} missing provenance; \`reme-workbench health --fix\` ` +
          "repairs what it can and proposes the rest.";
      new Notice(`reme-workbench health: ${text}`, 10_000);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Reading is use: report a digest note opened (the server keeps one per hour). */
  async reportOpen(path: string): Promise<void> {
    if (!this.settings.reportOpens || !path.startsWith("digest/") || !path.endsWith(".md")) return;
    if (!this.connection.connected) return; // not connected: nothing to tell, no Notice per note
    try {
      await this.connection.call((c) => c.noteOpened(path));
    } catch (error) {
      if (!this.openFailed) this.fail(error); // once, not at every note
      this.openFailed = true;
    }
  }

  async reveal(type: string): Promise<unknown> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(type)[0];
    if (!leaf) {
      leaf = workspace.getRightLeaf(false) ?? workspace.getLeaf(true);
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
    return leaf.view;
  }

  private refreshViews(): void {
    for (const leaf of this.app.workspace.getLeavesOfType(REVIEW_VIEW)) {
      if (leaf.view instanceof ReviewView) void leaf.view.refresh();
    }
    for (const leaf of this.app.workspace.getLeavesOfType(RELATED_VIEW)) {
      if (leaf.view instanceof RelatedView) void leaf.view.showFor(leaf.view.path, true);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
