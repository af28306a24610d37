// A small fake of the `obsidian` module: what the plugin's views, modals and commands use
// of it, in a plain DOM (happy-dom under vitest, Chromium in the harness page). Obsidian
// itself cannot run in a test. It keeps what a test asks about — the notices shown, the
// files opened, the commands added — and does what Obsidian does to the DOM: the
// `createEl` / `empty` / `setText` helpers on every element, a view's content element as
// the second child of its container, a modal's elements in the document.
/* eslint-disable @typescript-eslint/no-explicit-any */

type ElInfo = {
  cls?: string | string[]; text?: string; attr?: Record<string, string | number | boolean | null>;
  title?: string; value?: string; type?: string; placeholder?: string; href?: string;
  prepend?: boolean;
};

function applyInfo(el: HTMLElement, o?: ElInfo | string): void {
  if (o === undefined) return;
  if (typeof o === "string") {
    el.className = o;
    return;
  }
  if (o.cls) el.className = Array.isArray(o.cls) ? o.cls.join(" ") : o.cls;
  if (o.text !== undefined) el.textContent = o.text;
  if (o.title) el.title = o.title;
  if (o.placeholder) el.setAttribute("placeholder", o.placeholder);
  if (o.type) el.setAttribute("type", o.type);
  if (o.href) el.setAttribute("href", o.href);
  if (o.value !== undefined) (el as HTMLInputElement).value = o.value;
  for (const [key, value] of Object.entries(o.attr ?? {})) {
    if (value !== null && value !== false) el.setAttribute(key, String(value));
  }
}

function install(): void {
  const proto = (globalThis as any).Node?.prototype;
  if (!proto || proto.createEl) return;
  proto.createEl = function (this: Node, tag: string, o?: ElInfo | string,
    callback?: (el: HTMLElement) => void) {
    const el = document.createElement(tag);
    applyInfo(el, o);
    if (typeof o === "object" && o.prepend) this.insertBefore(el, this.firstChild);
    else this.appendChild(el);
    callback?.(el);
    return el;
  };
  proto.createDiv = function (this: Node, o?: ElInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as any).createEl("div", o, cb);
  };
  proto.createSpan = function (this: Node, o?: ElInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as any).createEl("span", o, cb);
  };
  proto.empty = function (this: Node) {
    while (this.firstChild) this.removeChild(this.firstChild);
  };
  proto.setText = function (this: Node, text: string) {
    this.textContent = text;
  };
  const el = (globalThis as any).HTMLElement.prototype;
  el.addClass = function (this: HTMLElement, ...c: string[]) { this.classList.add(...c); };
  el.removeClass = function (this: HTMLElement, ...c: string[]) { this.classList.remove(...c); };
  el.toggleClass = function (this: HTMLElement, c: string | string[], on: boolean) {
    for (const name of Array.isArray(c) ? c : [c]) this.classList.toggle(name, on);
  };
  el.hasClass = function (this: HTMLElement, c: string) { return this.classList.contains(c); };
}
install();

/** Every notice shown, in order (a test reads and clears it). */
export const notices: string[] = [];

export class Notice {
  noticeEl: HTMLElement;
  messageEl: HTMLElement;
  constructor(message: string | DocumentFragment, readonly duration?: number) {
    this.noticeEl = document.createElement("div");
    this.messageEl = this.noticeEl;
    this.setMessage(message);
  }
  setMessage(message: string | DocumentFragment): this {
    const text = typeof message === "string" ? message : message.textContent ?? "";
    this.noticeEl.textContent = text;
    notices.push(text);
    return this;
  }
  hide(): void {}
}

export class Events {
  private handlers = new Map<string, ((...args: any[]) => any)[]>();
  on(name: string, callback: (...args: any[]) => any) {
    const list = this.handlers.get(name) ?? [];
    list.push(callback);
    this.handlers.set(name, list);
    return { name, callback, owner: this };
  }
  offref(ref: { name: string; callback: (...args: any[]) => any }): void {
    const list = this.handlers.get(ref.name) ?? [];
    this.handlers.set(ref.name, list.filter((c) => c !== ref.callback));
  }
  trigger(name: string, ...args: any[]): void {
    for (const callback of this.handlers.get(name) ?? []) callback(...args);
  }
}

export class Component {
  private cleanups: (() => void)[] = [];
  private children: Component[] = [];
  loaded = false;
  load(): void {
    this.loaded = true;
    void (this as any).onload?.();
  }
  unload(): void {
    for (const child of this.children) child.unload();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.loaded = false;
    (this as any).onunload?.();
  }
  addChild<T extends Component>(child: T): T {
    this.children.push(child);
    child.load();
    return child;
  }
  register(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }
  registerEvent(ref: { owner: Events; name: string; callback: (...a: any[]) => any }): void {
    this.cleanups.push(() => ref.owner.offref(ref));
  }
  registerInterval(id: number): number {
    this.cleanups.push(() => window.clearInterval(id));
    return id;
  }
  registerDomEvent(el: EventTarget, type: string, callback: (e: any) => any): void {
    el.addEventListener(type, callback);
    this.cleanups.push(() => el.removeEventListener(type, callback));
  }
}

export class TAbstractFile {
  constructor(readonly path: string) {}
  get name(): string {
    return this.path.split("/").pop() ?? this.path;
  }
}

export class TFile extends TAbstractFile {
  get basename(): string {
    return this.name.replace(/\.[^.]*$/, "");
  }
  get extension(): string {
    return this.name.includes(".") ? this.name.split(".").pop() ?? "" : "";
  }
}

export class WorkspaceLeaf {
  view: any = null;
  constructor(readonly app: App) {}
  async setViewState(state: { type: string }): Promise<void> {
    const make = this.app.workspace.viewFactories.get(state.type);
    if (!make) throw new Error(`no view ${state.type}`);
    this.view = make(this);
    this.app.workspace.leaves.push(this);
    await this.view.onOpen();
  }
  detach(): void {
    void this.view?.onClose();
    this.app.workspace.leaves = this.app.workspace.leaves.filter((l) => l !== this);
  }
}

export class FakeWorkspace extends Events {
  activeFile: TFile | null = null;
  opened: string[] = [];
  leaves: WorkspaceLeaf[] = [];
  viewFactories = new Map<string, (leaf: WorkspaceLeaf) => any>();
  constructor(private readonly app: App) {
    super();
  }
  getActiveFile(): TFile | null {
    return this.activeFile;
  }
  async openLinkText(link: string, _source: string, _newLeaf?: boolean): Promise<void> {
    this.opened.push(link);
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view?.getViewType() === type);
  }
  getRightLeaf(_split: boolean): WorkspaceLeaf {
    return new WorkspaceLeaf(this.app);
  }
  getLeaf(_newLeaf?: boolean): WorkspaceLeaf {
    return new WorkspaceLeaf(this.app);
  }
  async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}
  onLayoutReady(callback: () => void): void {
    callback();
  }
  detachLeavesOfType(type: string): void {
    for (const leaf of this.getLeavesOfType(type)) leaf.detach();
  }
  /** As Obsidian does when a note is opened: the active file changes, then `file-open`. */
  openFile(path: string | null): void {
    this.activeFile = path === null ? null : new TFile(path);
    this.trigger("file-open", this.activeFile);
  }
}

/** A vault's files in memory, read through the adapter as Obsidian's are. */
export class FakeAdapter {
  constructor(readonly files: Map<string, string>, readonly basePath = "/vault") {}
  async exists(path: string): Promise<boolean> {
    return this.files.has(path);
  }
  async read(path: string): Promise<string> {
    const text = this.files.get(path);
    if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
    return text;
  }
  getBasePath(): string {
    return this.basePath;
  }
}

export class FileSystemAdapter extends FakeAdapter {}

export class App {
  workspace: FakeWorkspace;
  vault: { adapter: FakeAdapter; getAbstractFileByPath(p: string): TAbstractFile | null;
    getName(): string };
  constructor(files: Record<string, string> = {}) {
    const map = new Map(Object.entries(files));
    this.workspace = new FakeWorkspace(this);
    this.vault = {
      adapter: new FileSystemAdapter(map),
      getAbstractFileByPath: (p: string) => (map.has(p) ? new TFile(p) : null),
      getName: () => "vault",
    };
  }
}

export abstract class View extends Component {
  containerEl: HTMLElement;
  app: App;
  icon = "";
  navigation = false;
  constructor(readonly leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = document.createElement("div");
    this.containerEl.className = "workspace-leaf-content";
    this.containerEl.createDiv("view-header");
    this.containerEl.createDiv("view-content");
  }
  abstract getViewType(): string;
  getDisplayText(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export abstract class ItemView extends View {
  contentEl: HTMLElement;
  actions: { icon: string; title: string; callback: () => void }[] = [];
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.contentEl = this.containerEl.children[1] as HTMLElement;
  }
  addAction(icon: string, title: string, callback: () => void): HTMLElement {
    this.actions.push({ icon, title, callback });
    return this.containerEl.children[0].createEl("button", { title, cls: "view-action" });
  }
}

/** The modals open now, newest last. */
export const openModals: Modal[] = [];

export class Modal {
  containerEl: HTMLElement;
  modalEl: HTMLElement;
  titleEl: HTMLElement;
  contentEl: HTMLElement;
  scope = {};
  constructor(readonly app: App) {
    this.containerEl = document.createElement("div");
    this.containerEl.className = "modal-container";
    this.modalEl = this.containerEl.createDiv("modal");
    this.titleEl = this.modalEl.createDiv("modal-title");
    this.contentEl = this.modalEl.createDiv("modal-content");
  }
  open(): void {
    document.body.appendChild(this.containerEl);
    openModals.push(this);
    void (this as any).onOpen?.();
  }
  close(): void {
    const at = openModals.indexOf(this);
    if (at >= 0) openModals.splice(at, 1);
    this.containerEl.remove();
    void (this as any).onClose?.();
  }
  setTitle(title: string): this {
    this.titleEl.textContent = title;
    return this;
  }
}

type Cb<T> = (value: T) => any;

class TextLike {
  inputEl: HTMLInputElement | HTMLTextAreaElement;
  private change?: Cb<string>;
  constructor(parent: HTMLElement, tag: "input" | "textarea") {
    this.inputEl = parent.createEl(tag) as HTMLInputElement;
    this.inputEl.addEventListener("input", () => this.change?.(this.inputEl.value));
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setPlaceholder(text: string): this {
    this.inputEl.setAttribute("placeholder", text);
    return this;
  }
  onChange(callback: Cb<string>): this {
    this.change = callback;
    return this;
  }
}

class ToggleLike {
  toggleEl: HTMLInputElement;
  private change?: Cb<boolean>;
  constructor(parent: HTMLElement) {
    this.toggleEl = parent.createEl("input", { type: "checkbox" });
    this.toggleEl.addEventListener("change", () => this.change?.(this.toggleEl.checked));
  }
  setValue(on: boolean): this {
    this.toggleEl.checked = on;
    return this;
  }
  getValue(): boolean {
    return this.toggleEl.checked;
  }
  onChange(callback: Cb<boolean>): this {
    this.change = callback;
    return this;
  }
}

class DropdownLike {
  selectEl: HTMLSelectElement;
  private change?: Cb<string>;
  constructor(parent: HTMLElement) {
    this.selectEl = parent.createEl("select");
    this.selectEl.addEventListener("change", () => this.change?.(this.selectEl.value));
  }
  addOption(value: string, text: string): this {
    this.selectEl.createEl("option", { value, text });
    return this;
  }
  setValue(value: string): this {
    this.selectEl.value = value;
    return this;
  }
  getValue(): string {
    return this.selectEl.value;
  }
  onChange(callback: Cb<string>): this {
    this.change = callback;
    return this;
  }
}

class ButtonLike {
  buttonEl: HTMLButtonElement;
  constructor(parent: HTMLElement) {
    this.buttonEl = parent.createEl("button");
  }
  setButtonText(text: string): this {
    this.buttonEl.textContent = text;
    return this;
  }
  setCta(): this {
    this.buttonEl.classList.add("mod-cta");
    return this;
  }
  setWarning(): this {
    this.buttonEl.classList.add("mod-warning");
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.buttonEl.disabled = disabled;
    return this;
  }
  onClick(callback: Cb<MouseEvent>): this {
    this.buttonEl.addEventListener("click", (e) => callback(e as MouseEvent));
    return this;
  }
}

export class Setting {
  settingEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv("setting-item");
    const info = this.settingEl.createDiv("setting-item-info");
    this.nameEl = info.createDiv("setting-item-name");
    this.descEl = info.createDiv("setting-item-description");
    this.controlEl = this.settingEl.createDiv("setting-item-control");
  }
  setName(name: string): this {
    this.nameEl.textContent = name;
    return this;
  }
  setDesc(desc: string): this {
    this.descEl.textContent = desc;
    return this;
  }
  setHeading(): this {
    this.settingEl.classList.add("setting-item-heading");
    return this;
  }
  addText(cb: (c: TextLike) => any): this {
    cb(new TextLike(this.controlEl, "input"));
    return this;
  }
  addTextArea(cb: (c: TextLike) => any): this {
    cb(new TextLike(this.controlEl, "textarea"));
    return this;
  }
  addToggle(cb: (c: ToggleLike) => any): this {
    cb(new ToggleLike(this.controlEl));
    return this;
  }
  addDropdown(cb: (c: DropdownLike) => any): this {
    cb(new DropdownLike(this.controlEl));
    return this;
  }
  addButton(cb: (c: ButtonLike) => any): this {
    cb(new ButtonLike(this.controlEl));
    return this;
  }
}

export abstract class PluginSettingTab {
  containerEl: HTMLElement;
  constructor(readonly app: App, readonly plugin: unknown) {
    this.containerEl = document.createElement("div");
  }
  abstract display(): void;
  hide(): void {}
}

export interface Command {
  id: string;
  name: string;
  callback?: () => any;
  editorCallback?: (editor: any, view: any) => any;
}

export abstract class Plugin extends Component {
  commands: Command[] = [];
  statusBar: HTMLElement[] = [];
  settingTabs: PluginSettingTab[] = [];
  ribbon: { icon: string; title: string; callback: () => any }[] = [];
  stored: unknown = null;
  constructor(readonly app: App, readonly manifest: { id: string; version: string; dir?: string }) {
    super();
  }
  addCommand(command: Command): Command {
    this.commands.push(command);
    return command;
  }
  addStatusBarItem(): HTMLElement {
    const el = document.createElement("div");
    el.className = "status-bar-item";
    this.statusBar.push(el);
    return el;
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.settingTabs.push(tab);
  }
  addRibbonIcon(icon: string, title: string, callback: () => any): HTMLElement {
    this.ribbon.push({ icon, title, callback });
    return document.createElement("div");
  }
  registerView(type: string, make: (leaf: WorkspaceLeaf) => any): void {
    this.app.workspace.viewFactories.set(type, make);
  }
  async loadData(): Promise<unknown> {
    return this.stored;
  }
  async saveData(data: unknown): Promise<void> {
    this.stored = data;
  }
}

export function setIcon(el: HTMLElement, icon: string): void {
  el.setAttribute("data-icon", icon);
}

export function normalizePath(path: string): string {
  return path.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "");
}

export function debounce<T extends unknown[]>(cb: (...args: T) => unknown, timeout = 0) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (...args: T) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => cb(...args), timeout);
    return run;
  };
  run.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    return run;
  };
  return run;
}

/** requestUrl: no network in a test — a test gives the plugin its own transport. */
export async function requestUrl(): Promise<never> {
  throw new Error("the fake obsidian module has no network; give the client a transport");
}

export const Platform = { isDesktopApp: true, isMobile: false };
