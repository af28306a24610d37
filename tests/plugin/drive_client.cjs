// Runs the shipped plugin's own client code (main.js, as `reme-workbench obsidian install`
// copies it) under Node against a real server: the end-to-end test's driver.
//
//   node drive_client.cjs MAIN_JS VAULT STEPS_JSON
//
// STEPS_JSON is a list of [method, ...args] of the Connection's client (RemeClient), run in
// order on one connection made from VAULT/.reme/serve.json, as the plugin makes it. Prints
// one JSON list: for each step {ok, value} or {ok: false, status, error}, with its time in ms.
// main.js imports `obsidian`, which only Obsidian provides: a stub stands in for it (every
// name a class), enough to load the module; the client and the connection import none of it.
"use strict";
const Module = require("module");
const fs = require("fs/promises");
const path = require("path");

const [mainJs, vault, stepsJson] = process.argv.slice(2);
const stub = new Proxy({}, { get: (_target, name) => (name === "__esModule" ? false : class {}) });
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "obsidian" ? stub : load.call(this, request, ...rest);
};
const plugin = require(path.resolve(mainJs));

const files = {
  exists: (p) => fs.access(path.join(vault, p)).then(() => true, () => false),
  read: (p) => fs.readFile(path.join(vault, p), "utf8"),
};

async function main() {
  const connection = new plugin.Connection(files, plugin.fetchTransport);
  const out = [];
  for (const [method, ...args] of JSON.parse(stepsJson)) {
    const start = process.hrtime.bigint();
    try {
      const value = await connection.call((client) => client[method](...args));
      out.push({ ok: true, value, ms: Number(process.hrtime.bigint() - start) / 1e6 });
    } catch (error) {
      out.push({ ok: false, status: error.status ?? null, error: String(error.message ?? error),
        ms: Number(process.hrtime.bigint() - start) / 1e6 });
    }
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(String(error.stack ?? error));
  process.exit(1);
});
