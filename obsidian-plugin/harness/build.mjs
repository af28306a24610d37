// Builds the harness page's script (harness/out/harness.js): the views with the fake
// obsidian module in place of Obsidian's. `npm run harness` then screenshots each scene.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
await esbuild.build({
  entryPoints: [resolve(here, "harness.ts")],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  outfile: resolve(here, "out/harness.js"),
  alias: { obsidian: resolve(here, "../test/fake-obsidian.ts") },
  logLevel: "warning",
});
