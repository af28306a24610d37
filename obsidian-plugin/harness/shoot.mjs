// `npm run harness`: builds the harness page's script, then screenshots each scene with
// headless Chromium into docs/screenshots/07_plugin_<scene>.png (Debian's chromium).
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
execFileSync(process.execPath, [resolve(here, "build.mjs")], { stdio: "inherit" });
const page = pathToFileURL(resolve(here, "index.html")).href;
for (const scene of ["related", "search", "review"]) {
  const out = resolve(here, `../../docs/screenshots/07_plugin_${scene}.png`);
  execFileSync("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--window-size=1200,760", "--virtual-time-budget=3000", `--screenshot=${out}`,
    `${page}?scene=${scene}`], { stdio: ["ignore", "ignore", "ignore"] });
  process.stdout.write(`${out}\n`);
}
