// The plugin's way of starting a server when none runs, under Node with the shipped
// main.js: ServerProcess starts `PROGRAM --vault VAULT serve`, the Connection waits for
// serve.json and asks the index status, then the plugin stops what it started.
//
//   node start_server.cjs MAIN_JS VAULT PROGRAM
//
// Prints {status, stopped_after_ms, serve_json_left}.
"use strict";
const Module = require("module");
const fs = require("fs/promises");
const path = require("path");

const [mainJs, vault, program] = process.argv.slice(2);
const stub = new Proxy({}, { get: (_target, name) => (name === "__esModule" ? false : class {}) });
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "obsidian" ? stub : load.call(this, request, ...rest);
};
const plugin = require(path.resolve(mainJs));
const serveJson = path.join(vault, ".reme", "serve.json");
const exists = (p) => fs.access(p).then(() => true, () => false);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const files = { exists: (p) => exists(path.join(vault, p)), read: (p) => fs.readFile(path.join(vault, p), "utf8") };
  const connection = new plugin.Connection(files, plugin.fetchTransport);
  const server = new plugin.ServerProcess();
  server.start(program, vault);
  let status = null;
  for (let i = 0; i < 600 && status === null; i++) {  // up to 5 minutes on a loaded machine
    await sleep(500);
    if (server.exited !== null) throw new Error(`the server stopped: ${server.lastWords}`);
    try {
      status = await (await connection.connect()).indexStatus();
    } catch {
      // not listening yet
    }
  }
  const start = Date.now();
  server.stop();
  while (await exists(serveJson) && Date.now() - start < 60_000) await sleep(100);
  process.stdout.write(JSON.stringify({ status, stopped_after_ms: Date.now() - start,
    serve_json_left: await exists(serveJson) }));
}

main().catch((error) => {
  process.stderr.write(String(error.stack ?? error));
  process.exit(1);
});
