// Starting and stopping the server process, with a stand-in program in place of
// reme-workbench (the real one: tests/plugin/test_plugin_e2e.py).
// @vitest-environment node
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ServerProcess } from "../src/server";

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const until = async (ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

it("starts `<program> --vault <vault> serve` and stops it", async () => {
  dir = await mkdtemp(join(tmpdir(), "reme-server-"));
  const program = join(dir, "reme-workbench");
  // writes its arguments, then waits to be stopped
  await writeFile(program, `#!/bin/sh\necho "$@" > "${dir}/args"\nexec sleep 60\n`);
  await chmod(program, 0o755);
  const server = new ServerProcess();
  server.start(program, dir);
  expect(await until(() => server.running)).toBe(true);
  await until(() => false, 300);
  expect((await readFile(join(dir, "args"), "utf8")).trim()).toBe(`--vault ${dir} serve`);
  server.stop();
  expect(server.running).toBe(false);
});

it("says where to set the program's path when it is not found", async () => {
  const server = new ServerProcess();
  server.start("/nowhere/reme-workbench", tmpdir());
  expect(await until(() => server.exited !== null)).toBe(true);
  expect(server.lastWords).toMatch(/was not found; give its full path in Settings → reme-workbench/);
});

it("keeps the last words of a server that stopped at once", async () => {
  dir = await mkdtemp(join(tmpdir(), "reme-server-"));
  const program = join(dir, "reme-workbench");
  await writeFile(program, "#!/bin/sh\necho 'Error: another server is running for this vault' >&2\nexit 1\n");
  await chmod(program, 0o755);
  const server = new ServerProcess();
  server.start(program, dir);
  expect(await until(() => server.exited !== null)).toBe(true);
  await until(() => server.lastWords !== "", 2000);
  expect(server.exited).toBe(1);
  expect(server.lastWords).toBe("Error: another server is running for this vault");
});
