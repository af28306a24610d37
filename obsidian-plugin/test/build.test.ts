// The build the Python package ships (reme_workbench/obsidian_plugin/) is the build of
// these sources: built again here into a temporary folder, every file is the same byte
// for byte. A change to src/, styles.css or manifest.json without `npm run build` fails.
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { build, SHIPPED } from "../esbuild.config.mjs";

it("the committed build is the build of the sources", async () => {
  const out = await mkdtemp(join(tmpdir(), "reme-plugin-build-"));
  try {
    await build(out);
    const built = (await readdir(out)).sort();
    expect(built).toEqual(["main.js", "manifest.json", "styles.css"]);
    for (const file of built) {
      const fresh = await readFile(join(out, file), "utf8");
      const shipped = await readFile(join(SHIPPED, file), "utf8");
      expect(shipped === fresh, `${file} differs from the build of the sources: run \`npm run build\` in obsidian-plugin/ and commit it`).toBe(true);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 60_000);
