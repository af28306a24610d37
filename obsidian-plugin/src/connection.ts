// Finding the server: `.reme/serve.json` read through the vault (Obsidian's adapter in the
// plugin, the file system under Node), a client made from it, and made again when the
// server was restarted (a new port and token). No `obsidian` import, like client.ts.
import { ApiError, parseServeInfo, RemeClient, SERVE_JSON, type Transport } from "./client";

/** What the connection needs of the vault: Obsidian's DataAdapter has both. */
export interface VaultFiles {
  exists(path: string): Promise<boolean>;
  read(path: string): Promise<string>;
}

export const NO_SERVER = "No reme-workbench server is running for this vault (no " +
  `${SERVE_JSON}); start one with \`reme-workbench serve\` in the vault, or with the ` +
  "command 'reme-workbench: Start the server'.";

export class Connection {
  private client: RemeClient | null = null;

  constructor(private readonly files: VaultFiles, private readonly transport: Transport) {}

  get connected(): RemeClient | null {
    return this.client;
  }

  /** A client from serve.json as it is now, checked by one call (the index status). */
  async connect(): Promise<RemeClient> {
    this.client = null;
    if (!(await this.files.exists(SERVE_JSON))) throw new ApiError(NO_SERVER, 0);
    const client = new RemeClient(parseServeInfo(await this.files.read(SERVE_JSON)), this.transport);
    await client.indexStatus();
    this.client = client;
    return client;
  }

  forget(): void {
    this.client = null;
  }

  /** `run` with a client; when no server answered or it refused the token, serve.json is
   * read again once (the server may have been restarted on a new port) and `run` retried. */
  async call<T>(run: (client: RemeClient) => Promise<T>): Promise<T> {
    const first = this.client ?? (await this.connect());
    try {
      return await run(first);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 0 && error.status !== 401)) throw error;
      this.client = null;
      return run(await this.connect());
    }
  }
}
