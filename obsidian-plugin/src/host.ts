// What the views, modals and commands need of the plugin: the app, the connection to the
// server, the settings, and one way to show a failure. The plugin is the one Host; a test
// or the harness page makes its own.
import type { App } from "obsidian";
import type { Connection } from "./connection";

export interface Settings {
  /** The reme-workbench program the plugin starts (`<command> --vault <vault> serve`). */
  command: string;
  /** Start the server without asking when none is running. */
  autoStart: boolean;
  /** How many related notes the side panel shows. */
  relatedCount: number;
  /** Report the digest notes opened, so reading counts as use (docs/spec.md §7.3.2). */
  reportOpens: boolean;
}

export const DEFAULT_SETTINGS: Settings = {
  command: "reme-workbench",
  autoStart: false,
  relatedCount: 8,
  reportOpens: true,
};

export interface Host {
  app: App;
  connection: Connection;
  settings: Settings;
  /** Show a failure as a Notice saying what to do. */
  fail(error: unknown): void;
  /** Open a vault file in the editor. */
  openPath(path: string): Promise<void>;
}

/** The message of anything thrown, for a Notice. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
