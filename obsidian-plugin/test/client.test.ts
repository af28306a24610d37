// The client and the connection: the bearer token, JSON in and out, every failure as a
// message that says what to do, and a new serve.json found after a restart.
import { describe, expect, it } from "vitest";
import { ApiError, errorMessage, parseServeInfo, RemeClient, SERVE_JSON } from "../src/client";
import { Connection, NO_SERVER } from "../src/connection";
import { FakeApi, SERVE_INFO, TOKEN } from "./fake-api";

const files = (map: Record<string, string>) => ({
  exists: async (p: string) => p in map,
  read: async (p: string) => {
    if (!(p in map)) throw new Error("ENOENT");
    return map[p];
  },
});

describe("parseServeInfo", () => {
  it("reads port, token, pid and url", () => {
    expect(parseServeInfo(SERVE_INFO)).toEqual({ url: "http://127.0.0.1:8765", port: 8765, token: TOKEN, pid: 4242 });
  });
  it("makes the url from the port when serve.json has none", () => {
    expect(parseServeInfo('{"port": 9, "token": "t"}').url).toBe("http://127.0.0.1:9");
  });
  it("says what to do with a file that is not JSON or has no token", () => {
    expect(() => parseServeInfo("{")).toThrow(/not JSON; stop the server and start it again/);
    expect(() => parseServeInfo('{"port": 1}')).toThrow(/no port and token/);
  });
});

describe("RemeClient", () => {
  it("sends the bearer token and a JSON body, and reads the JSON answer", async () => {
    const api = new FakeApi();
    const client = new RemeClient(parseServeInfo(SERVE_INFO), api.transport);
    const answer = await client.recall("pgbouncer port", { k: 3, scope: "all" });
    expect(answer.hits[0].path).toBe("digest/wiki/pgbouncer-port.md");
    expect(api.calls[0]).toEqual({ method: "POST", path: "/recall", body: { query: "pgbouncer port", k: 3, scope: "all" } });
  });
  it("turns refusals into messages that say what to do", async () => {
    const api = new FakeApi();
    api.token = "another";
    const client = new RemeClient(parseServeInfo(SERVE_INFO), api.transport);
    await expect(client.indexStatus()).rejects.toThrow(/refused the token.*Reconnect/);
    api.token = TOKEN;
    await expect(client.showProposal("p-nothing")).rejects.toThrow(/No proposal p-nothing/);
    api.down = true;
    const down = client.indexStatus();
    await expect(down).rejects.toThrow(/No reme-workbench server answers at http:\/\/127.0.0.1:8765 \(ECONNREFUSED\); start it/);
    await expect(down).rejects.toMatchObject({ status: 0 });
  });
  it("names the fields of a 422", () => {
    const text = JSON.stringify({ detail: [{ loc: ["body", "k"], msg: "Input should be less than or equal to 100" }] });
    expect(errorMessage({ status: 422, text })).toBe("The server refused the request: k: Input should be less than or equal to 100.");
  });
  it("says an unknown route means the server is older than the plugin", () => {
    expect(errorMessage({ status: 404, text: '{"detail": "Not Found"}' })).toMatch(/update reme-workbench/);
  });
});

describe("Connection", () => {
  it("says how to start a server when there is no serve.json", async () => {
    const connection = new Connection(files({}), new FakeApi().transport);
    await expect(connection.connect()).rejects.toThrow(NO_SERVER);
  });
  it("reads serve.json again when the server was restarted on another port", async () => {
    const api = new FakeApi();
    const vault: Record<string, string> = { [SERVE_JSON]: SERVE_INFO };
    const connection = new Connection(files(vault), api.transport);
    await connection.connect();
    vault[SERVE_JSON] = JSON.stringify({ port: 9999, token: "new", pid: 1, url: "http://127.0.0.1:9999" });
    api.token = "new";
    const status = await connection.call((c) => c.indexStatus());
    expect(status.state).toBe("vectors");
    expect(connection.connected?.info.port).toBe(9999);
  });
  it("does not retry a refusal of the request itself", async () => {
    const api = new FakeApi();
    const connection = new Connection(files({ [SERVE_JSON]: SERVE_INFO }), api.transport);
    await expect(connection.call((c) => c.showProposal("p-none"))).rejects.toBeInstanceOf(ApiError);
    expect(api.calls.filter((c) => c.path.startsWith("/proposals")).length).toBe(1);
  });
});
