// Builds the plugin into the folder the Python package ships
// (reme_workbench/obsidian_plugin/): main.js from src/main.ts, with manifest.json and
// styles.css beside it — what `reme-workbench obsidian install` copies into a vault.
// `node esbuild.config.mjs --watch` rebuilds on every change (with `install --dev`, the
// vault's plugin folder is a link to that folder).
import { copyFile, mkdir } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
export const SHIPPED = resolve(here, "../reme_workbench/obsidian_plugin");

/** esbuild's options for main.js written to `outdir`; the same on every machine, so a
 * build of the committed sources gives the committed main.js byte for byte. */
export function options(outdir) {
  return {
    absWorkingDir: here,
    entryPoints: ["src/main.ts"],
    bundle: true,
    format: "cjs",
    platform: "browser",
    target: "es2020",
    // Obsidian provides these at run time; Node's built-ins are there on the desktop
    external: ["obsidian", "electron", "@codemirror/*", "@lezer/*",
               ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
    outfile: join(outdir, "main.js"),
    logLevel: "warning",
    legalComments: "none",
    charset: "utf8",
  };
}

/** main.js, manifest.json and styles.css in `outdir`. */
export async function build(outdir = SHIPPED) {
  await mkdir(outdir, { recursive: true });
  await esbuild.build(options(outdir));
  for (const file of ["manifest.json", "styles.css"]) {
    await copyFile(join(here, file), join(outdir, file));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--watch")) {
    const context = await esbuild.context(options(SHIPPED));
    await build(SHIPPED);
    await context.watch();
    console.log(`watching src/: main.js rebuilt into ${SHIPPED} on every change`);
  } else {
    await build(SHIPPED);
  }
}
