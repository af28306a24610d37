// The settings tab: the program to start, whether to start it without asking, how many
// related notes to show, and whether opening a note counts as use.
import { PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import type { Settings } from "./host";

export interface SettingsOwner extends Plugin {
  settings: Settings;
  saveSettings(): Promise<void>;
}

export class RemeSettingTab extends PluginSettingTab {
  constructor(app: App, private readonly owner: SettingsOwner) {
    super(app, owner);
  }

  display(): void {
    const el = this.containerEl;
    el.empty();
    const s = this.owner.settings;
    const save = () => void this.owner.saveSettings();
    new Setting(el)
      .setName("reme-workbench program")
      .setDesc("What the plugin runs to start the server (`<program> --vault <this vault> serve`). " +
        "Obsidian may not see your shell's PATH: give the full path, e.g. /home/you/.venv/bin/reme-workbench.")
      .addText((t) => t.setPlaceholder("reme-workbench").setValue(s.command).onChange((v) => {
        s.command = v.trim() || "reme-workbench";
        save();
      }));
    new Setting(el)
      .setName("Start the server without asking")
      .setDesc("When no server runs for this vault, start one at once instead of offering to. " +
        "A server the plugin started stops when Obsidian closes.")
      .addToggle((t) => t.setValue(s.autoStart).onChange((v) => {
        s.autoStart = v;
        save();
      }));
    new Setting(el)
      .setName("Related notes shown")
      .setDesc("How many notes the related notes panel lists (1–50).")
      .addText((t) => t.setValue(String(s.relatedCount)).onChange((v) => {
        const n = Number.parseInt(v, 10);
        if (Number.isFinite(n) && n >= 1 && n <= 50) {
          s.relatedCount = n;
          save();
        }
      }));
    new Setting(el)
      .setName("Reading is use")
      .setDesc("Tell the server when you open a note in digest/, so the archive does not set " +
        "aside notes you read (one record per note per hour).")
      .addToggle((t) => t.setValue(s.reportOpens).onChange((v) => {
        s.reportOpens = v;
        save();
      }));
  }
}
