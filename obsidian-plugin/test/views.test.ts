// The views as a person meets them, in a DOM over the fake obsidian module and the fake
// API: what they show, what a click does, what they send.
import { notices, openModals, WorkspaceLeaf } from "./fake-obsidian";
import { afterEach, describe, expect, it } from "vitest";
import { EditProposalModal, TextPromptModal } from "../src/modals";
import { RelatedView } from "../src/views/related";
import { ReviewView } from "../src/views/review";
import { SearchModal } from "../src/views/search";
import { makeHost, settle, texts, type TestHost } from "./helpers";

afterEach(() => {
  notices.length = 0;
  for (const modal of [...openModals]) modal.close();
});

// the views take Obsidian's leaf type; the fake's stands in for it
type Leaf = ConstructorParameters<typeof RelatedView>[0];

async function openView<T>(host: TestHost, make: (leaf: Leaf) => T): Promise<T> {
  const leaf = new WorkspaceLeaf(host.app as never) as never as Leaf;
  const view = make(leaf) as T & { onOpen(): Promise<void>; load(): void };
  view.load();
  await view.onOpen();
  await settle();
  return view;
}

describe("the related notes panel", () => {
  it("shows the notes related to the open note, itself left out, and follows the person", async () => {
    const host = makeHost();
    const workspace = (host.app as never as { workspace: { openFile(p: string | null): void } }).workspace;
    workspace.openFile("digest/wiki/pgbouncer-port.md");
    const view = await openView(host, (leaf) => new RelatedView(leaf, host));
    expect(texts(view.contentEl, ".reme-view-title")).toEqual(["Related to pgbouncer-port"]);
    const paths = [...view.contentEl.querySelectorAll(".reme-hit")].map((e) => e.getAttribute("data-path"));
    expect(paths).not.toContain("digest/wiki/pgbouncer-port.md");
    expect(paths.length).toBe(4);
    expect(host.api.calls.at(-1)).toEqual({ method: "POST", path: "/related",
      body: { path: "digest/wiki/pgbouncer-port.md", k: 8 } });
    workspace.openFile("digest/wiki/statement-timeout.md");
    await settle();
    expect(texts(view.contentEl, ".reme-view-title")).toEqual(["Related to statement-timeout"]);
    (view.contentEl.querySelector(".reme-hit") as HTMLElement).click();
    expect(host.opened).toEqual(["digest/wiki/pgbouncer-port.md"]);
  });

  it("drops an answer that comes after the person moved on", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new RelatedView(leaf, host));
    await host.connection.connect();
    let release: () => void = () => {};
    host.api.gate = new Promise((ok) => { release = ok; });
    const first = view.showFor("digest/wiki/pgbouncer-port.md"); // its answer is held back
    await view.showFor("digest/wiki/statement-timeout.md");
    release();
    await first;
    expect(texts(view.contentEl, ".reme-view-title")).toEqual(["Related to statement-timeout"]);
    expect(host.api.calls.filter((c) => c.path === "/related").length).toBe(2);
  });

  it("says what to do when no server runs", async () => {
    const host = makeHost({});
    const view = await openView(host, (leaf) => new RelatedView(leaf, host));
    await view.showFor("digest/wiki/pgbouncer-port.md");
    expect(texts(view.contentEl, ".reme-empty")[0]).toMatch(/No reme-workbench server is running.*reme-workbench serve/);
  });

  it("asks nothing for a file that is not a note", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new RelatedView(leaf, host));
    await view.showFor("resource/2026-10-05/diagram.png");
    expect(texts(view.contentEl, ".reme-empty")).toEqual(["Open a note to see the notes related to it."]);
    expect(host.api.calls.filter((c) => c.path === "/related")).toEqual([]);
  });
});

describe("the search modal", () => {
  it("searches as the person types, in the scope chosen, and opens a hit", async () => {
    const host = makeHost();
    const modal = new SearchModal(host);
    modal.open();
    modal.inputEl.value = "pool size";
    modal.inputEl.dispatchEvent(new Event("input"));
    modal.inputEl.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await settle();
    expect(texts(modal.resultsEl, ".reme-hit-name")[0]).toBe("raise-the-pool-size");
    const select = modal.contentEl.querySelector("select") as HTMLSelectElement;
    select.value = "all";
    select.dispatchEvent(new Event("change"));
    await settle();
    expect(host.api.calls.at(-1)?.body).toEqual({ query: "pool size", k: 20, scope: "all" });
    (modal.resultsEl.querySelector(".reme-hit") as HTMLElement).click();
    expect(host.opened).toEqual(["digest/procedure/raise-the-pool-size.md"]);
    expect(openModals).not.toContain(modal);
  });

  it("says when nothing is found", async () => {
    const host = makeHost();
    const modal = new SearchModal(host, "zebra");
    modal.open();
    await settle();
    expect(texts(modal.resultsEl, ".reme-empty")).toEqual(["Nothing found for “zebra”."]);
  });
});

describe("the review view", () => {
  it("lists the pending proposals newest first with action, target and why", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    expect(texts(view.contentEl, ".reme-action")).toEqual(["hub", "merge", "refine"]);
    expect(texts(view.contentEl, ".reme-proposal-target")[2]).toBe("digest/wiki/pool-size.md");
    expect(texts(view.contentEl, ".reme-proposal-why")[2]).toMatch(/refine pool-size with the incident/);
  });

  it("opens a proposal's story and diff, and accepts it", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    const item = () => view.contentEl.querySelector('[data-id="p-20261207-060101-a1b2c3"]') as HTMLElement;
    (item().querySelector(".reme-proposal-head") as HTMLElement).click();
    await settle();
    expect(texts(item(), ".reme-story-key")).toContain("material");
    expect(texts(item(), ".reme-diff-add")[0]).toMatch(/^\+description: The payments-api DB pool size is 40/);
    expect(texts(item(), ".reme-diff-del")[0]).toMatch(/^-description/);
    (item().querySelector(".reme-accept") as HTMLElement).click();
    await settle();
    expect(texts(view.contentEl, ".reme-answer")).toEqual(["p-20261207-060101-a1b2c3: applied"]);
    expect(texts(view.contentEl, ".reme-action")).toEqual(["hub", "merge"]);
  });

  it("rejects with the reason the person gives", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    await view.show("p-20261207-060102-d4e5f6");
    (view.contentEl.querySelector(".reme-reject") as HTMLElement).click();
    const prompt = openModals.at(-1) as unknown as TextPromptModal;
    expect(prompt).toBeInstanceOf(TextPromptModal);
    const input = prompt.contentEl.querySelector("input") as HTMLInputElement;
    input.value = "two different services";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await settle();
    expect(host.api.calls.find((c) => c.path === "/proposals/reject")?.body)
      .toEqual({ id: "p-20261207-060102-d4e5f6", reason: "two different services" });
    expect(texts(view.contentEl, ".reme-answer")[0]).toBe("p-20261207-060102-d4e5f6: rejected: rejected: two different services");
  });

  it("sends only the files the person edited", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    await view.askEdit("p-20261207-060102-d4e5f6");
    const editor = openModals.at(-1) as unknown as EditProposalModal;
    const areas = editor.contentEl.querySelectorAll("textarea");
    expect(areas.length).toBe(2);
    areas[0].value = "my text\n";
    areas[0].dispatchEvent(new Event("input"));
    editor.submit();
    await settle();
    expect(host.api.calls.find((c) => c.path === "/proposals/accept")?.body)
      .toEqual({ id: "p-20261207-060102-d4e5f6", edited: { "digest/wiki/pgbouncer-port.md": "my text\n" } });
  });

  it("shows a stale answer as the API gives it, and the other states on request", async () => {
    const host = makeHost();
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    view.state = "stale";
    await view.refresh();
    expect(texts(view.contentEl, ".reme-badge")).toEqual(["stale"]);
    await view.accept("p-20261206-221500-99aa88");
    expect(texts(view.contentEl, ".reme-answer")[0]).toMatch(/^p-20261206-221500-99aa88: stale: a file it writes changed/);
  });

  it("says what to do when the server is gone", async () => {
    const host = makeHost();
    host.api.down = true;
    const view = await openView(host, (leaf) => new ReviewView(leaf, host));
    expect(texts(view.contentEl, ".reme-error")[0]).toMatch(/No reme-workbench server answers/);
  });
});
