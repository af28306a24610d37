// A Host over the fake API and the fake app, for the views' tests and the harness page.
import { App, notices } from "./fake-obsidian";
import { SERVE_JSON } from "../src/client";
import { Connection } from "../src/connection";
import { DEFAULT_SETTINGS, type Host, messageOf } from "../src/host";
import { FakeApi, SERVE_INFO } from "./fake-api";

export interface TestHost extends Host {
  api: FakeApi;
  opened: string[];
}

export function makeHost(files: Record<string, string> = { [SERVE_JSON]: SERVE_INFO }): TestHost {
  const app = new App(files);
  const api = new FakeApi();
  const opened: string[] = [];
  return {
    app: app as never, api, opened,
    connection: new Connection((app as never as { vault: { adapter: never } }).vault.adapter, api.transport),
    settings: { ...DEFAULT_SETTINGS },
    fail: (error: unknown) => notices.push(`reme-workbench: ${messageOf(error)}`),
    openPath: async (path: string) => {
      opened.push(path);
    },
  };
}

/** Let the promises the views started settle. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
}

export function texts(root: HTMLElement, selector: string): string[] {
  return [...root.querySelectorAll(selector)].map((e) => e.textContent ?? "");
}
