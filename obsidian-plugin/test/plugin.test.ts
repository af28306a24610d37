// The plugin as Obsidian loads it, over the fake obsidian module and the fake API: its
// commands, the status bar, the offer to start a server, reading as use, jobs.
import { App, notices, openModals } from "./fake-obsidian";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SERVE_JSON } from "../src/client";
import RemeWorkbenchPlugin from "../src/main";
import { ConfirmModal } from "../src/modals";
import { REVIEW_VIEW, ReviewView } from "../src/views/review";
import { FakeApi, SERVE_INFO } from "./fake-api";
import { settle } from "./helpers";

afterEach(() => {
  notices.length = 0;
  for (const modal of [...openModals]) modal.close();
  vi.useRealTimers();
});

async function load(files: Record<string, string> = { [SERVE_JSON]: SERVE_INFO }) {
  const app = new App(files);
  const api = new FakeApi();
  const plugin = new RemeWorkbenchPlugin(app as never, { id: "reme-workbench", version: "0.1.0" } as never);
  plugin.transport = api.transport;
  await plugin.onload();
  await settle();
  return { app, api, plugin, statusBar: (plugin as never as { statusBar: HTMLElement[] }).statusBar[0] };
}

const command = (plugin: RemeWorkbenchPlugin, id: string) =>
  (plugin as never as { commands: { id: string; callback: () => unknown }[] }).commands.find((c) => c.id === id)!;

describe("the plugin", () => {
  it("connects from serve.json and shows the index in the status bar", async () => {
    const { statusBar } = await load();
    expect(statusBar.textContent).toBe("reme: embedding · vectors 12/37 files");
    expect(statusBar.title).toMatch(/By keyword: 37\/37 files/);
  });

  it("shows a job another client started", async () => {
    const { api, plugin, statusBar } = await load();
    await api.transport({ url: "http://127.0.0.1:8765/jobs/consolidate", method: "POST",
      headers: { Authorization: "Bearer fake-token" }, body: "{}" });
    await plugin.updateStatus();
    expect(statusBar.textContent).toBe("reme: embedding · vectors 12/37 files · consolidate 1/3");
  });

  it("has the commands of the issue", async () => {
    const { plugin } = await load();
    const names = (plugin as never as { commands: { name: string }[] }).commands.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["Dream now", "Consolidate now",
      "Append the selection to today's daily log", "Open the proposal for this note", "Health check",
      "Search the memory", "Show related notes", "Review proposals"]));
  });

  it("offers to start a server when none runs", async () => {
    const { statusBar } = await load({});
    expect(statusBar.textContent).toBe("reme: not connected");
    const offer = openModals.at(-1);
    expect(offer).toBeInstanceOf(ConfirmModal);
    expect(offer?.contentEl.textContent).toMatch(/No reme-workbench server is running.*Start `reme-workbench serve` for this vault now\?/s);
  });

  it("reports the digest notes opened, and nothing else", async () => {
    const { app, api } = await load();
    app.workspace.openFile("digest/wiki/pgbouncer-port.md");
    app.workspace.openFile("daily/2026-10-05/log.md");
    app.workspace.openFile("digest/wiki/pgbouncer-port.md");
    await settle();
    expect(api.calls.filter((c) => c.path === "/note/opened").map((c) => c.body))
      .toEqual([{ path: "digest/wiki/pgbouncer-port.md" }, { path: "digest/wiki/pgbouncer-port.md" }]);
    expect(api.opened).toEqual(["digest/wiki/pgbouncer-port.md"]);
  });

  it("reports no opens when the setting is off", async () => {
    const { app, api, plugin } = await load();
    plugin.settings.reportOpens = false;
    app.workspace.openFile("digest/wiki/pgbouncer-port.md");
    await settle();
    expect(api.calls.filter((c) => c.path === "/note/opened")).toEqual([]);
  });

  it("runs dream from the palette, follows it in the status bar and refreshes the review view", async () => {
    const { api, plugin, statusBar } = await load();
    await plugin.reveal(REVIEW_VIEW);
    vi.useFakeTimers();
    const running = plugin.runJob("dream");
    await vi.advanceTimersByTimeAsync(1600);
    expect(statusBar.textContent).toBe("reme: embedding · vectors 12/37 files · dream 1/3");
    await vi.advanceTimersByTimeAsync(1600);
    await running;
    expect(notices.at(-1)).toBe("reme-workbench: dream: 1 file(s), 2 unit(s); 1 proposal(s) wait for review.");
    expect(statusBar.textContent).toBe("reme: embedding · vectors 12/37 files");
    const lists = api.calls.filter((c) => c.path.startsWith("/proposals?state=pending"));
    expect(lists.length).toBe(2); // the view's first list, and again after the job
    const view = plugin.app.workspace.getLeavesOfType(REVIEW_VIEW)[0].view;
    expect(view).toBeInstanceOf(ReviewView);
  });

  it("opens the proposal for the open note", async () => {
    const { app, plugin } = await load();
    app.workspace.openFile("digest/wiki/pool-size.md");
    await command(plugin, "proposal-for-note").callback();
    await settle();
    const view = plugin.app.workspace.getLeavesOfType(REVIEW_VIEW)[0].view as ReviewView;
    expect(view.open?.id).toBe("p-20261207-060101-a1b2c3");
    app.workspace.openFile("digest/wiki/nothing-proposed.md");
    await command(plugin, "proposal-for-note").callback();
    await settle();
    expect(notices.at(-1)).toBe("reme-workbench: no pending proposal changes digest/wiki/nothing-proposed.md.");
  });

  it("appends a prompt's text to today's daily log when nothing is selected", async () => {
    const { api, plugin } = await load();
    command(plugin, "append-daily").callback();
    const prompt = openModals.at(-1) as never as { value: string; submit(): void };
    prompt.value = "Moved the replica to eu-west-2.";
    prompt.submit();
    await settle();
    expect(api.calls.find((c) => c.path === "/daily")?.body).toEqual({ text: "Moved the replica to eu-west-2." });
    expect(notices.at(-1)).toBe("reme-workbench: added to daily/2026-12-07/log.md.");
  });

  it("tells the health check's findings", async () => {
    const { plugin } = await load();
    await command(plugin, "health").callback();
    await settle();
    expect(notices.at(-1)).toMatch(/^reme-workbench health: 1 broken link\(s\), 0 broken and 1 missing provenance/);
  });

  it("says what to do when a job cannot start", async () => {
    const { api, plugin } = await load();
    api.down = true;
    await plugin.runJob("consolidate");
    expect(notices.at(-1)).toMatch(/^reme-workbench: No reme-workbench server answers/);
  });
});
