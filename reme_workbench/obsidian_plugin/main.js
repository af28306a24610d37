"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/main.ts
var main_exports = {};
__export(main_exports, {
  ApiError: () => ApiError,
  Connection: () => Connection,
  RemeClient: () => RemeClient,
  ServerProcess: () => ServerProcess,
  default: () => RemeWorkbenchPlugin,
  fetchTransport: () => fetchTransport,
  obsidianTransport: () => obsidianTransport,
  parseServeInfo: () => parseServeInfo
});
module.exports = __toCommonJS(main_exports);
var import_obsidian6 = require("obsidian");

// src/client.ts
var SERVE_JSON = ".reme/serve.json";
var ApiError = class extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
    this.name = "ApiError";
  }
};
function parseServeInfo(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ApiError(`${SERVE_JSON} is not JSON; stop the server and start it again (\`reme-workbench serve\`) to write it anew.`, 0);
  }
  const info = doc;
  if (!info || typeof info.token !== "string" || typeof info.port !== "number") {
    throw new ApiError(`${SERVE_JSON} has no port and token; start the server again (\`reme-workbench serve\`) to write it anew.`, 0);
  }
  const url = typeof info.url === "string" && info.url ? info.url : `http://127.0.0.1:${info.port}`;
  return {
    url: url.replace(/\/+$/, ""),
    port: info.port,
    token: info.token,
    pid: typeof info.pid === "number" ? info.pid : 0
  };
}
var fetchTransport = async (request) => {
  const answer = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body
  });
  return { status: answer.status, text: await answer.text() };
};
var RemeClient = class {
  constructor(info, transport) {
    this.info = info;
    this.transport = transport;
  }
  recall(query, options = {}) {
    return this.post("/recall", { query, k: options.k ?? 10, scope: options.scope ?? "digest" });
  }
  /** The notes related to `path` (its own text as the query, itself left out). */
  related(path, k = 8) {
    return this.post("/related", { path, k });
  }
  /** Reading is use: report that the person opened a digest note. */
  noteOpened(path) {
    return this.post("/note/opened", { path });
  }
  indexStatus() {
    return this.get("/index/status");
  }
  listProposals(state) {
    return this.get(state ? `/proposals?state=${encodeURIComponent(state)}` : "/proposals");
  }
  showProposal(id) {
    return this.get(`/proposals/${encodeURIComponent(id)}`);
  }
  /** What the proposal would write, file by file (the text a person edits before accepting). */
  proposalFiles(id) {
    return this.get(
      `/proposals/${encodeURIComponent(id)}/files`
    ).then((a) => a.files);
  }
  accept(id, edited) {
    return this.post("/proposals/accept", edited ? { id, edited } : { id });
  }
  reject(id, reason) {
    return this.post("/proposals/reject", { id, reason });
  }
  startJob(kind, body = {}) {
    return this.post(`/jobs/${kind}`, body);
  }
  job(id) {
    return this.get(`/jobs/${encodeURIComponent(id)}`);
  }
  jobs() {
    return this.get("/jobs");
  }
  appendDaily(text, title) {
    return this.post("/daily", title ? { text, title } : { text });
  }
  health() {
    return this.get("/health");
  }
  get(path) {
    return this.call({ url: this.info.url + path, method: "GET", headers: this.headers() });
  }
  post(path, body) {
    return this.call({
      url: this.info.url + path,
      method: "POST",
      body: JSON.stringify(body),
      headers: { ...this.headers(), "Content-Type": "application/json" }
    });
  }
  headers() {
    return { Authorization: `Bearer ${this.info.token}` };
  }
  async call(request) {
    let answer;
    try {
      answer = await this.transport(request);
    } catch (error) {
      throw new ApiError(`No reme-workbench server answers at ${this.info.url} (${describe(error)}); start it with \`reme-workbench serve\` in the vault, or with the command 'reme-workbench: Start the server'.`, 0);
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(answer.text);
      } catch {
        throw new ApiError(
          `The server at ${this.info.url} answered with something that is not JSON; is another program on that port? Start \`reme-workbench serve\` again.`,
          answer.status
        );
      }
    }
    throw new ApiError(errorMessage(answer), answer.status);
  }
};
function errorMessage(answer) {
  let body = {};
  try {
    body = JSON.parse(answer.text) ?? {};
  } catch {
    body = {};
  }
  if (answer.status === 401) {
    return "The server refused the token: it is not the one in .reme/serve.json (the server was restarted?). Reconnect with 'reme-workbench: Connect'.";
  }
  if (typeof body.error === "string") return body.error;
  if (answer.status === 422 && Array.isArray(body.detail)) {
    const problems = body.detail.map((d) => `${(d.loc ?? []).filter((p) => p !== "body").join(".") || "request"}: ${d.msg ?? "invalid"}`);
    return `The server refused the request: ${problems.join("; ")}.`;
  }
  if (answer.status === 404) {
    return "The server has no such route; update reme-workbench (`pip install -U reme-workbench`) so it matches this plugin.";
  }
  return `The server answered ${answer.status}; its log (the terminal running \`reme-workbench serve\`) says why.`;
}
function describe(error) {
  if (error instanceof Error) {
    const cause = error.cause;
    return cause?.code ?? error.message;
  }
  return String(error);
}

// src/connection.ts
var NO_SERVER = `No reme-workbench server is running for this vault (no ${SERVE_JSON}); start one with \`reme-workbench serve\` in the vault, or with the command 'reme-workbench: Start the server'.`;
var Connection = class {
  constructor(files, transport) {
    this.files = files;
    this.transport = transport;
    this.client = null;
  }
  get connected() {
    return this.client;
  }
  /** A client from serve.json as it is now, checked by one call (the index status). */
  async connect() {
    this.client = null;
    if (!await this.files.exists(SERVE_JSON)) throw new ApiError(NO_SERVER, 0);
    const client = new RemeClient(parseServeInfo(await this.files.read(SERVE_JSON)), this.transport);
    await client.indexStatus();
    this.client = client;
    return client;
  }
  forget() {
    this.client = null;
  }
  /** `run` with a client; when no server answered or it refused the token, serve.json is
   * read again once (the server may have been restarted on a new port) and `run` retried. */
  async call(run) {
    const first = this.client ?? await this.connect();
    try {
      return await run(first);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 0 && error.status !== 401) throw error;
      this.client = null;
      return run(await this.connect());
    }
  }
};

// src/format.ts
var STATE_WORDS = {
  starting: "starting",
  keyword: "keyword",
  vectors: "embedding",
  ready: "ready",
  failed: "index failed",
  stopped: "index stopped",
  empty: "empty index",
  "vectors pending": "keyword"
};
function statusText(index, job, problem = null) {
  if (problem !== null || index === null) return "reme: not connected";
  const parts = ["reme:", STATE_WORDS[index.state] ?? index.state];
  if (index.vectors) parts.push(`· vectors ${index.vectors}`);
  if (job && job.state === "running") {
    const { done, total } = job.progress;
    parts.push(`· ${job.kind}${total ? ` ${done}/${total}` : "…"}`);
  }
  return parts.join(" ");
}
function statusTitle(index, job, problem = null) {
  if (problem !== null) return `${problem}
Click to connect.`;
  if (index === null) return "Not connected. Click to connect.";
  const lines = [`Index: ${index.state}`];
  if (index.keyword) lines.push(`By keyword: ${index.keyword}`);
  if (index.vectors) lines.push(`With vectors: ${index.vectors}`);
  if (index.error) lines.push(`Error: ${index.error}`);
  if (job && job.state === "running" && job.progress.message) lines.push(`${job.kind}: ${job.progress.message}`);
  return lines.join("\n");
}
function proposalTarget(p) {
  return p.files[0] ?? "";
}
function actionName(action) {
  return action.includes(".") ? action.slice(action.indexOf(".") + 1) : action;
}
function diffLines(diff) {
  return diff.split("\n").filter((line, i, all) => i < all.length - 1 || line !== "").map((text) => {
    if (text.startsWith("+++") || text.startsWith("---")) return { kind: "file", text };
    if (text.startsWith("@@")) return { kind: "hunk", text };
    if (text.startsWith("+")) return { kind: "add", text };
    if (text.startsWith("-")) return { kind: "del", text };
    return { kind: "context", text };
  });
}
function storyText(value, limit = 600) {
  const text = storyLines(value);
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
}
function storyLines(value) {
  if (value === null || value === void 0) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map((v) => `• ${inline(v)}`).join("\n");
  return Object.entries(value).map(([k, v]) => `${k}: ${inline(v)}`).join("\n");
}
function inline(value) {
  if (value === null || value === void 0) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) {
    return value.map(String).join(", ");
  }
  if (!Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.every(([, v]) => typeof v !== "object" || v === null)) {
      return entries.map(([k, v]) => `${k}=${String(v)}`).join(", ");
    }
  }
  return JSON.stringify(value);
}
function decisionText(answer) {
  const head = `${answer.id}: ${answer.state}`;
  if (answer.state === "applied") return answer.note ? `${head} (${answer.note})` : head;
  if (answer.state === "stale") {
    return `${head}: a file it writes changed since it was planned${answer.error ? ` (${answer.error})` : ""}; dream or consolidate plans it again.`;
  }
  if (answer.replanned_as.length) return `${head}: planned again as ${answer.replanned_as.join(", ")}`;
  return answer.error ? `${head}: ${answer.error}` : head;
}
function jobSummary(job) {
  if (job.state === "failed") return `${job.kind} failed: ${job.error ?? "no reason given"}`;
  if (job.state === "running") return `${job.kind}: ${job.progress.message || "running"}`;
  const r = job.result ?? {};
  if (job.kind === "dream") {
    const materials = Array.isArray(r.materials) ? r.materials.length : 0;
    const outcomes = Array.isArray(r.outcomes) ? r.outcomes.length : 0;
    const pending = Array.isArray(r.pending) ? r.pending.length : 0;
    if (!materials) return "dream: nothing new to dream.";
    return `dream: ${materials} file(s), ${outcomes} unit(s); ${pending} proposal(s) wait for review.`;
  }
  if (job.kind === "consolidate") {
    const ran = Array.isArray(r.ran) ? r.ran : [];
    return ran.length ? `consolidate ran ${ran.join(", ")}.` : "consolidate: nothing was due.";
  }
  return `${job.kind} done.`;
}

// src/host.ts
var DEFAULT_SETTINGS = {
  command: "reme-workbench",
  autoStart: false,
  relatedCount: 8,
  reportOpens: true
};
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

// src/modals.ts
var import_obsidian = require("obsidian");
var TextPromptModal = class extends import_obsidian.Modal {
  constructor(app, title, description, confirm, done, multiline = false, initial = "") {
    super(app);
    this.title = title;
    this.description = description;
    this.confirm = confirm;
    this.done = done;
    this.multiline = multiline;
    this.value = "";
    this.value = initial;
  }
  onOpen() {
    this.modalEl.addClass("reme-prompt-modal");
    this.titleEl.setText(this.title);
    this.contentEl.createEl("p", { cls: "reme-prompt-description", text: this.description });
    const field = this.multiline ? this.contentEl.createEl("textarea", { cls: "reme-prompt-input", attr: { rows: 6 } }) : this.contentEl.createEl("input", { cls: "reme-prompt-input", type: "text" });
    field.value = this.value;
    field.addEventListener("input", () => {
      this.value = field.value;
    });
    field.addEventListener("keydown", (event) => {
      const e = event;
      if (e.key === "Enter" && (!this.multiline || e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.submit();
      }
    });
    new import_obsidian.Setting(this.contentEl).addButton((b) => b.setButtonText("Cancel").onClick(() => this.close())).addButton((b) => b.setButtonText(this.confirm).setCta().onClick(() => this.submit()));
    field.focus();
  }
  submit() {
    const text = this.value.trim();
    if (!text) return;
    this.close();
    this.done(text);
  }
  onClose() {
    this.contentEl.empty();
  }
};
var ConfirmModal = class extends import_obsidian.Modal {
  constructor(app, title, text, action, yes) {
    super(app);
    this.title = title;
    this.text = text;
    this.action = action;
    this.yes = yes;
  }
  onOpen() {
    this.titleEl.setText(this.title);
    this.contentEl.createEl("p", { text: this.text });
    new import_obsidian.Setting(this.contentEl).addButton((b) => b.setButtonText("Not now").onClick(() => this.close())).addButton((b) => b.setButtonText(this.action).setCta().onClick(() => {
      this.close();
      this.yes();
    }));
  }
  onClose() {
    this.contentEl.empty();
  }
};
var EditProposalModal = class extends import_obsidian.Modal {
  constructor(app, id, files, accept) {
    super(app);
    this.id = id;
    this.files = files;
    this.accept = accept;
    this.texts = new Map(Object.entries(files));
  }
  onOpen() {
    this.modalEl.addClass("reme-edit-modal");
    this.titleEl.setText(`Edit, then accept ${this.id}`);
    this.contentEl.createEl("p", {
      cls: "reme-prompt-description",
      text: "Change what the proposal writes; its checks run on your text before anything is written."
    });
    for (const [path, text] of this.texts) {
      this.contentEl.createDiv({ cls: "reme-edit-path", text: path });
      const area = this.contentEl.createEl("textarea", { cls: "reme-edit-text", attr: { rows: 14, "data-path": path } });
      area.value = text;
      area.addEventListener("input", () => this.texts.set(path, area.value));
    }
    new import_obsidian.Setting(this.contentEl).addButton((b) => b.setButtonText("Cancel").onClick(() => this.close())).addButton((b) => b.setButtonText("Accept with my edits").setCta().onClick(() => this.submit()));
  }
  submit() {
    const edited = {};
    for (const [path, text] of this.texts) if (text !== this.files[path]) edited[path] = text;
    this.close();
    this.accept(edited);
  }
  onClose() {
    this.contentEl.empty();
  }
};

// src/server.ts
var import_child_process = require("child_process");
var ServerProcess = class {
  constructor() {
    this.child = null;
    this.output = "";
    this.exited = null;
  }
  /** Start `<command> --vault <vault> serve`; the server writes .reme/serve.json when it
   * listens. Throws when the program cannot be started, saying where to set its path. */
  start(command, vault) {
    this.stop();
    this.output = "";
    this.exited = null;
    const child = (0, import_child_process.spawn)(command, ["--vault", vault, "serve"], {
      cwd: vault,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true
    });
    child.stdout?.on("data", (data) => this.keep(data));
    child.stderr?.on("data", (data) => this.keep(data));
    child.on("exit", (code) => {
      this.exited = code ?? -1;
      if (this.child === child) this.child = null;
    });
    child.on("error", (error) => {
      this.exited = -1;
      this.output += error.code === "ENOENT" ? `\`${command}\` was not found; give its full path in Settings → reme-workbench (e.g. /home/you/.venv/bin/reme-workbench).` : error.message;
      if (this.child === child) this.child = null;
    });
    this.child = child;
  }
  get running() {
    return this.child !== null && this.exited === null;
  }
  /** The end of what the server printed: why it stopped, when it did. */
  get lastWords() {
    return this.output.trim().split("\n").slice(-3).join("\n");
  }
  stop() {
    if (this.child && this.exited === null) this.child.kill("SIGTERM");
    this.child = null;
  }
  keep(data) {
    this.output = (this.output + data.toString("utf8")).slice(-4e3);
  }
};

// src/settings.ts
var import_obsidian2 = require("obsidian");
var RemeSettingTab = class extends import_obsidian2.PluginSettingTab {
  constructor(app, owner) {
    super(app, owner);
    this.owner = owner;
  }
  display() {
    const el = this.containerEl;
    el.empty();
    const s = this.owner.settings;
    const save = () => void this.owner.saveSettings();
    new import_obsidian2.Setting(el).setName("reme-workbench program").setDesc("What the plugin runs to start the server (`<program> --vault <this vault> serve`). Obsidian may not see your shell's PATH: give the full path, e.g. /home/you/.venv/bin/reme-workbench.").addText((t) => t.setPlaceholder("reme-workbench").setValue(s.command).onChange((v) => {
      s.command = v.trim() || "reme-workbench";
      save();
    }));
    new import_obsidian2.Setting(el).setName("Start the server without asking").setDesc("When no server runs for this vault, start one at once instead of offering to. A server the plugin started stops when Obsidian closes.").addToggle((t) => t.setValue(s.autoStart).onChange((v) => {
      s.autoStart = v;
      save();
    }));
    new import_obsidian2.Setting(el).setName("Related notes shown").setDesc("How many notes the related notes panel lists (1–50).").addText((t) => t.setValue(String(s.relatedCount)).onChange((v) => {
      const n = Number.parseInt(v, 10);
      if (Number.isFinite(n) && n >= 1 && n <= 50) {
        s.relatedCount = n;
        save();
      }
    }));
    new import_obsidian2.Setting(el).setName("Reading is use").setDesc("Tell the server when you open a note in digest/, so the archive does not set aside notes you read (one record per note per hour).").addToggle((t) => t.setValue(s.reportOpens).onChange((v) => {
      s.reportOpens = v;
      save();
    }));
  }
};

// src/views/related.ts
var import_obsidian3 = require("obsidian");

// src/views/hits.ts
function renderHits(parent, hits, open) {
  const list = parent.createDiv("reme-hits");
  for (const hit of hits) {
    const item = list.createDiv({ cls: "reme-hit", attr: { "data-path": hit.path, tabindex: 0 } });
    const head = item.createDiv("reme-hit-head");
    head.createSpan({ cls: "reme-hit-name", text: hit.name ?? basename(hit.path) });
    if (hit.via === "link") {
      head.createSpan({ cls: "reme-hit-via", text: "linked", title: "Found through a link from a note found by search" });
    }
    if (hit.description) item.createDiv({ cls: "reme-hit-description", text: hit.description });
    const passage = hit.chunks[0]?.text.trim();
    if (passage && passage !== hit.description) {
      item.createDiv({ cls: "reme-hit-passage", text: clip(passage, 220) });
    }
    item.createDiv({ cls: "reme-hit-path", text: hit.path });
    item.addEventListener("click", () => open(hit.path));
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter") open(hit.path);
    });
  }
}
function basename(path) {
  return (path.split("/").pop() ?? path).replace(/\.md$/, "");
}
function clip(text, limit) {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > limit ? `${flat.slice(0, flat.lastIndexOf(" ", limit))} …` : flat;
}

// src/views/related.ts
var RELATED_VIEW = "reme-related";
var RelatedView = class extends import_obsidian3.ItemView {
  // answers to an older question than the last are dropped
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
    /** The note shown now (null: none open). */
    this.path = null;
    this.asked = 0;
  }
  getViewType() {
    return RELATED_VIEW;
  }
  getDisplayText() {
    return "Related notes";
  }
  getIcon() {
    return "links-coming-in";
  }
  async onOpen() {
    this.contentEl.addClass("reme-view");
    this.registerEvent(this.app.workspace.on("file-open", (file) => {
      void this.showFor(file?.path ?? null);
    }));
    await this.showFor(this.app.workspace.getActiveFile()?.path ?? null);
  }
  /** Ask for the notes related to `path` and show them (or why there are none). */
  async showFor(path, force = false) {
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
  render(path, answer, message) {
    const el = this.contentEl;
    el.empty();
    const head = el.createDiv("reme-view-head");
    head.createDiv({ cls: "reme-view-title", text: path ? `Related to ${basename(path)}` : "Related notes" });
    const refresh = head.createEl("button", {
      cls: "reme-refresh",
      text: "Refresh",
      attr: { "aria-label": "Ask again" }
    });
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
};

// src/views/review.ts
var import_obsidian4 = require("obsidian");
var REVIEW_VIEW = "reme-review";
var STATES = ["pending", "stale", "rejected", "applied", "all"];
var ReviewView = class extends import_obsidian4.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
    this.state = "pending";
    this.proposals = [];
    /** The proposal opened, with its story and diff. */
    this.open = null;
    /** The last decision's answer, shown above the list. */
    this.answer = null;
  }
  getViewType() {
    return REVIEW_VIEW;
  }
  getDisplayText() {
    return "Proposals to review";
  }
  getIcon() {
    return "git-pull-request";
  }
  async onOpen() {
    this.contentEl.addClass("reme-view", "reme-review");
    await this.refresh();
  }
  /** Ask for the proposals in the chosen state and show them. */
  async refresh() {
    try {
      this.proposals = await this.host.connection.call((c) => c.listProposals(this.state === "all" ? void 0 : this.state));
      this.proposals = [...this.proposals].reverse();
      if (this.open && !this.proposals.some((p) => p.id === this.open?.id)) this.open = null;
      this.render(null);
    } catch (error) {
      this.proposals = [];
      this.render(messageOf(error));
    }
  }
  async show(id) {
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
  async accept(id, edited) {
    await this.decide(() => this.host.connection.call((c) => c.accept(id, edited)));
  }
  async reject(id, reason) {
    await this.decide(() => this.host.connection.call((c) => c.reject(id, reason)));
  }
  askReject(id) {
    new TextPromptModal(
      this.app,
      `Reject ${id}`,
      "Why? The reason is kept with the proposal, and dream and consolidate read it before proposing the same again.",
      "Reject",
      (reason) => void this.reject(id, reason)
    ).open();
  }
  async askEdit(id) {
    try {
      const files = await this.host.connection.call((c) => c.proposalFiles(id));
      new EditProposalModal(this.app, id, files, (edited) => void this.accept(id, Object.keys(edited).length ? edited : void 0)).open();
    } catch (error) {
      this.host.fail(error);
    }
  }
  async decide(run) {
    try {
      this.answer = await run();
      this.open = null;
    } catch (error) {
      this.host.fail(error);
      return;
    }
    await this.refresh();
  }
  render(problem) {
    const el = this.contentEl;
    el.empty();
    const head = el.createDiv("reme-view-head");
    head.createDiv({ cls: "reme-view-title", text: "Proposals" });
    const select = head.createEl("select", { cls: "reme-state dropdown" });
    for (const state of STATES) select.createEl("option", { value: state, text: state });
    select.value = this.state;
    select.addEventListener("change", () => {
      this.state = select.value;
      void this.refresh();
    });
    head.createEl("button", { cls: "reme-refresh", text: "Refresh" }).addEventListener("click", () => void this.refresh());
    if (this.answer) {
      el.createDiv({ cls: `reme-answer reme-state-${this.answer.state}`, text: decisionText(this.answer) });
    }
    if (problem !== null) {
      el.createDiv({ cls: "reme-empty reme-error", text: problem });
      return;
    }
    if (this.proposals.length === 0) {
      el.createDiv({ cls: "reme-empty", text: this.state === "pending" ? "Nothing waits for review. Dream and consolidate put their proposals here." : `No ${this.state === "all" ? "" : `${this.state} `}proposals.` });
      return;
    }
    this.listEl = el.createDiv("reme-proposals");
    for (const p of this.proposals) this.renderItem(p);
  }
  renderItem(p) {
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
  renderDetail(item, p) {
    item.addClass("is-open");
    const detail = item.createDiv("reme-proposal-detail");
    if (p.state === "pending" || p.state === "stale") {
      const buttons = detail.createDiv("reme-buttons");
      buttons.createEl("button", { cls: "mod-cta reme-accept", text: "Accept" }).addEventListener("click", () => void this.accept(p.id));
      buttons.createEl("button", { cls: "reme-edit", text: "Edit, then accept…" }).addEventListener("click", () => void this.askEdit(p.id));
      buttons.createEl("button", { cls: "mod-warning reme-reject", text: "Reject…" }).addEventListener("click", () => this.askReject(p.id));
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
};

// src/views/search.ts
var import_obsidian5 = require("obsidian");
var SCOPES = [
  ["digest", "Notes"],
  ["sources", "Sources (daily/, resource/)"],
  ["all", "Notes and sources"]
];
var SearchModal = class extends import_obsidian5.Modal {
  constructor(host, initial = "") {
    super(host.app);
    this.host = host;
    this.query = "";
    this.searchScope = "digest";
    this.asked = 0;
    this.query = initial;
  }
  onOpen() {
    this.modalEl.addClass("reme-search-modal");
    this.titleEl.setText("Search the memory");
    const bar = this.contentEl.createDiv("reme-search-bar");
    this.inputEl = bar.createEl("input", {
      type: "search",
      cls: "reme-search-input",
      placeholder: "What are you looking for?",
      value: this.query
    });
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
      this.searchScope = select.value;
      void this.search();
    });
    this.inputEl.focus();
    if (this.query.trim()) void this.search();
  }
  onClose() {
    if (this.timer !== void 0) clearTimeout(this.timer);
    this.contentEl.empty();
  }
  later() {
    if (this.timer !== void 0) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.search(), 300);
  }
  /** Ask for the query as it is now and show the answer (older answers are dropped). */
  async search() {
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
};

// src/main.ts
var STATUS_EVERY_MS = 3e3;
var JOB_EVERY_MS = 1500;
var START_WAIT_MS = 6e4;
var obsidianTransport = async (request) => {
  const answer = await (0, import_obsidian6.requestUrl)({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    contentType: request.headers["Content-Type"],
    throw: false
  });
  return { status: answer.status, text: answer.text };
};
var RemeWorkbenchPlugin = class extends import_obsidian6.Plugin {
  constructor() {
    super(...arguments);
    this.settings = { ...DEFAULT_SETTINGS };
    /** How requests go out: Obsidian's requestUrl (a test gives its own). */
    this.transport = obsidianTransport;
    this.server = new ServerProcess();
    /** The job the plugin started and watches, until it ends. */
    this.job = null;
    this.problem = null;
    this.offered = false;
    this.openFailed = false;
  }
  async onload() {
    this.settings = { ...DEFAULT_SETTINGS, ...await this.loadData() };
    this.connection = new Connection(this.app.vault.adapter, this.transport);
    this.registerView(RELATED_VIEW, (leaf) => new RelatedView(leaf, this));
    this.registerView(REVIEW_VIEW, (leaf) => new ReviewView(leaf, this));
    this.addSettingTab(new RemeSettingTab(this.app, this));
    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass("reme-status");
    this.statusEl.addEventListener("click", () => void this.connectOrOffer(true));
    this.addRibbonIcon("search", "Search the memory", () => new SearchModal(this).open());
    this.addRibbonIcon("git-pull-request", "Review proposals", () => void this.reveal(REVIEW_VIEW));
    this.addCommands();
    this.registerEvent(this.app.workspace.on("file-open", (file) => {
      if (file) void this.reportOpen(file.path);
    }));
    this.registerInterval(window.setInterval(() => void this.updateStatus(), STATUS_EVERY_MS));
    this.registerDomEvent(window, "beforeunload", () => this.server.stop());
    this.app.workspace.onLayoutReady(() => void this.connectOrOffer(false));
    this.showStatus(null);
  }
  onunload() {
    this.server.stop();
  }
  async saveSettings() {
    await this.saveData(this.settings);
  }
  fail(error) {
    new import_obsidian6.Notice(`reme-workbench: ${messageOf(error)}`, 1e4);
  }
  async openPath(path) {
    await this.app.workspace.openLinkText(path, "", false);
  }
  addCommands() {
    this.addCommand({ id: "search", name: "Search the memory", callback: () => new SearchModal(this).open() });
    this.addCommand({ id: "related", name: "Show related notes", callback: () => void this.reveal(RELATED_VIEW) });
    this.addCommand({ id: "review", name: "Review proposals", callback: () => void this.reveal(REVIEW_VIEW) });
    this.addCommand({ id: "dream", name: "Dream now", callback: () => void this.runJob("dream") });
    this.addCommand({ id: "consolidate", name: "Consolidate now", callback: () => void this.runJob("consolidate") });
    this.addCommand({
      id: "append-daily",
      name: "Append the selection to today's daily log",
      callback: () => this.appendDaily()
    });
    this.addCommand({
      id: "proposal-for-note",
      name: "Open the proposal for this note",
      callback: () => void this.proposalForNote()
    });
    this.addCommand({ id: "health", name: "Health check", callback: () => void this.healthCheck() });
    this.addCommand({ id: "connect", name: "Connect to the server", callback: () => void this.connectOrOffer(true) });
    this.addCommand({ id: "start-server", name: "Start the server", callback: () => void this.startServer() });
    this.addCommand({
      id: "stop-server",
      name: "Stop the server this plugin started",
      callback: () => this.stopServer()
    });
  }
  /** Connect from serve.json; with no server, offer to start one (or start it, when the
   * settings say so). `asked`: the person asked, so every failure is told. */
  async connectOrOffer(asked) {
    try {
      await this.connection.connect();
      this.problem = null;
      if (asked) new import_obsidian6.Notice("reme-workbench: connected.");
      await this.updateStatus();
    } catch (error) {
      this.problem = messageOf(error);
      this.showStatus(null);
      const noServer = error instanceof ApiError && error.status === 0;
      if (noServer && this.settings.autoStart) return this.startServer();
      if (noServer && (asked || !this.offered)) {
        this.offered = true;
        new ConfirmModal(
          this.app,
          "Start reme-workbench?",
          `${messageOf(error)}

Start \`${this.settings.command} serve\` for this vault now? It stops when Obsidian closes.`,
          "Start the server",
          () => void this.startServer()
        ).open();
        return;
      }
      if (asked || !noServer) this.fail(error);
    }
  }
  /** Start `reme-workbench serve` for this vault and connect once it listens. */
  async startServer() {
    const adapter = this.app.vault.adapter;
    if (!(adapter instanceof import_obsidian6.FileSystemAdapter)) {
      this.fail("this vault is not a folder on disk; run `reme-workbench serve` in it yourself.");
      return;
    }
    try {
      this.server.start(this.settings.command, adapter.getBasePath());
    } catch (error) {
      this.fail(`could not start \`${this.settings.command}\` (${messageOf(error)}); set its full path in Settings → reme-workbench.`);
      return;
    }
    const notice = new import_obsidian6.Notice("reme-workbench: starting the server…", 0);
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
        new import_obsidian6.Notice("reme-workbench: server started and connected.");
        await this.updateStatus();
        this.refreshViews();
        return;
      } catch {
      }
    }
    notice.hide();
    this.fail(`the server did not answer within ${START_WAIT_MS / 1e3} s; run \`${this.settings.command} serve\` in the vault's folder to see why.`);
  }
  stopServer() {
    if (!this.server.running) {
      new import_obsidian6.Notice("reme-workbench: this plugin started no server (one you started yourself stays running).");
      return;
    }
    this.server.stop();
    this.connection.forget();
    this.problem = "The server was stopped.";
    this.showStatus(null);
  }
  async updateStatus() {
    if (!this.connection.connected) {
      this.showStatus(null);
      return;
    }
    try {
      const index = await this.connection.call((c) => c.indexStatus());
      const running = this.job ?? (await this.connection.call((c) => c.jobs())).find((j) => j.state === "running") ?? null;
      this.problem = null;
      this.showStatus(index, running);
    } catch (error) {
      this.connection.forget();
      this.problem = messageOf(error);
      this.showStatus(null);
    }
  }
  showStatus(index, job = this.job) {
    const problem = index ? null : this.problem;
    this.statusEl.setText(statusText(index, job, problem));
    this.statusEl.setAttribute("aria-label", statusTitle(index, job, problem));
    this.statusEl.title = statusTitle(index, job, problem);
  }
  /** Start dream or consolidate as a job, follow it in the status bar, tell how it ended,
   * and refresh the review view. */
  async runJob(kind) {
    let job;
    try {
      job = await this.connection.call((c) => c.startJob(kind));
    } catch (error) {
      this.fail(error);
      return;
    }
    new import_obsidian6.Notice(`reme-workbench: ${kind} started.`);
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
    new import_obsidian6.Notice(`reme-workbench: ${jobSummary(job)}`, 1e4);
    this.refreshViews();
  }
  appendDaily() {
    const selection = this.app.workspace.activeEditor?.editor?.getSelection() ?? "";
    const send = async (text) => {
      try {
        const entry = await this.connection.call((c) => c.appendDaily(text));
        new import_obsidian6.Notice(`reme-workbench: added to ${entry.path}.`);
      } catch (error) {
        this.fail(error);
      }
    };
    if (selection.trim()) {
      void send(selection);
      return;
    }
    new TextPromptModal(
      this.app,
      "Append to today's daily log",
      "What happened, what you learned or decided. Dream turns it into notes later.",
      "Append",
      (text) => void send(text),
      true
    ).open();
  }
  async proposalForNote() {
    const file = this.app.workspace.getActiveFile();
    if (!file) {
      new import_obsidian6.Notice("reme-workbench: open a note first.");
      return;
    }
    try {
      const pending = await this.connection.call((c) => c.listProposals("pending"));
      const mine = pending.filter((p) => p.files.includes(file.path));
      if (mine.length === 0) {
        new import_obsidian6.Notice(`reme-workbench: no pending proposal changes ${file.path}.`);
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
  async healthCheck() {
    try {
      const h = await this.connection.call((c) => c.health());
      const text = h.ok ? "the links are sound: no broken link or provenance." : `${h.broken_links.length} broken link(s), ${h.broken_provenance.length} broken and ${h.missing_provenance.length} missing provenance; \`reme-workbench health --fix\` repairs what it can and proposes the rest.`;
      new import_obsidian6.Notice(`reme-workbench health: ${text}`, 1e4);
    } catch (error) {
      this.fail(error);
    }
  }
  /** Reading is use: report a digest note opened (the server keeps one per hour). */
  async reportOpen(path) {
    if (!this.settings.reportOpens || !path.startsWith("digest/") || !path.endsWith(".md")) return;
    if (!this.connection.connected) return;
    try {
      await this.connection.call((c) => c.noteOpened(path));
    } catch (error) {
      if (!this.openFailed) this.fail(error);
      this.openFailed = true;
    }
  }
  async reveal(type) {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(type)[0];
    if (!leaf) {
      leaf = workspace.getRightLeaf(false) ?? workspace.getLeaf(true);
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
    return leaf.view;
  }
  refreshViews() {
    for (const leaf of this.app.workspace.getLeavesOfType(REVIEW_VIEW)) {
      if (leaf.view instanceof ReviewView) void leaf.view.refresh();
    }
    for (const leaf of this.app.workspace.getLeavesOfType(RELATED_VIEW)) {
      if (leaf.view instanceof RelatedView) void leaf.view.showFor(leaf.view.path, true);
    }
  }
};
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
