// The local API's client: every call the plugin makes to `reme-workbench serve`
// (docs/api.md). It imports nothing of Obsidian's — the HTTP goes through a `Transport`
// the caller gives (Obsidian's requestUrl in the plugin, fetch under Node) — so the
// end-to-end test runs this very code under Node against a real server.

/** `.reme/serve.json`, written by `reme-workbench serve` (mode 0600). */
export const SERVE_JSON = ".reme/serve.json";

export interface ServeInfo {
  url: string;
  port: number;
  token: string;
  pid: number;
}

export interface HttpRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  text: string;
}

/** Sends one request; rejects only when no answer came (nothing listens, a reset). */
export type Transport = (request: HttpRequest) => Promise<HttpResponse>;

/** A failed call, with a message that says what to do. `status` is 0 when no server answered. */
export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = "ApiError";
  }
}

export type Scope = "digest" | "sources" | "all";

export interface RecallChunk {
  text: string;
  line_start: number;
  line_end: number;
  score: number;
}

export interface RecallHit {
  path: string;
  score: number;
  name: string | null;
  description: string | null;
  via: "search" | "link";
  chunks: RecallChunk[];
}

export interface RecallAnswer {
  hits: RecallHit[];
  vectors: string;
  note: string | null;
}

export interface IndexStatus {
  background: boolean;
  state: string;
  keyword: string | null;
  vectors: string | null;
  pending_chunks: number | null;
  error: string | null;
}

export interface ProposalSummary {
  id: string;
  state: string;
  action: string;
  summary: string;
  files: string[];
  updated_at: string | null;
  error: string | null;
  replanned_as: string[];
  note: string | null;
}

export interface ProposalDetail extends ProposalSummary {
  story: Record<string, unknown>;
  diff: string;
}

export type JobKind = "dream" | "consolidate" | "bridge";

export interface JobStatus {
  id: string;
  kind: JobKind;
  state: "running" | "done" | "failed";
  started_at: string;
  finished_at: string | null;
  progress: { done: number; total: number; message: string };
  result: Record<string, unknown> | null;
  error: string | null;
}

export interface NoteOpened {
  path: string;
  logged: boolean;
  last_open: string | null;
  reason: string | null;
}

export interface DailyEntry {
  path: string;
  created: boolean;
}

export interface BrokenLink {
  source: string;
  target: string;
  [key: string]: unknown;
}

export interface HealthAnswer {
  ok: boolean;
  broken_links: BrokenLink[];
  broken_provenance: BrokenLink[];
  missing_provenance: string[];
}

/** serve.json's text as a `ServeInfo`, or an ApiError saying what to do. */
export function parseServeInfo(text: string): ServeInfo {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ApiError(`${SERVE_JSON} is not JSON; stop the server and start it again ` +
      "(`reme-workbench serve`) to write it anew.", 0);
  }
  const info = doc as Partial<ServeInfo> | null;
  if (!info || typeof info.token !== "string" || typeof info.port !== "number") {
    throw new ApiError(`${SERVE_JSON} has no port and token; start the server again ` +
      "(`reme-workbench serve`) to write it anew.", 0);
  }
  const url = typeof info.url === "string" && info.url ? info.url : `http://127.0.0.1:${info.port}`;
  return { url: url.replace(/\/+$/, ""), port: info.port, token: info.token,
    pid: typeof info.pid === "number" ? info.pid : 0 };
}

/** Node's fetch (and a browser's) as a Transport. */
export const fetchTransport: Transport = async (request) => {
  const answer = await fetch(request.url, {
    method: request.method, headers: request.headers, body: request.body,
  });
  return { status: answer.status, text: await answer.text() };
};

export class RemeClient {
  constructor(readonly info: ServeInfo, private readonly transport: Transport) {}

  recall(query: string, options: { k?: number; scope?: Scope } = {}): Promise<RecallAnswer> {
    return this.post("/recall", { query, k: options.k ?? 10, scope: options.scope ?? "digest" });
  }

  /** The notes related to `path` (its own text as the query, itself left out). */
  related(path: string, k = 8): Promise<RecallAnswer> {
    return this.post("/related", { path, k });
  }

  /** Reading is use: report that the person opened a digest note. */
  noteOpened(path: string): Promise<NoteOpened> {
    return this.post("/note/opened", { path });
  }

  indexStatus(): Promise<IndexStatus> {
    return this.get("/index/status");
  }

  listProposals(state?: string): Promise<ProposalSummary[]> {
    return this.get(state ? `/proposals?state=${encodeURIComponent(state)}` : "/proposals");
  }

  showProposal(id: string): Promise<ProposalDetail> {
    return this.get(`/proposals/${encodeURIComponent(id)}`);
  }

  /** What the proposal would write, file by file (the text a person edits before accepting). */
  proposalFiles(id: string): Promise<Record<string, string>> {
    return this.get<{ files: Record<string, string> }>(
      `/proposals/${encodeURIComponent(id)}/files`).then((a) => a.files);
  }

  accept(id: string, edited?: Record<string, string>): Promise<ProposalSummary> {
    return this.post("/proposals/accept", edited ? { id, edited } : { id });
  }

  reject(id: string, reason: string): Promise<ProposalSummary> {
    return this.post("/proposals/reject", { id, reason });
  }

  startJob(kind: JobKind, body: Record<string, unknown> = {}): Promise<JobStatus> {
    return this.post(`/jobs/${kind}`, body);
  }

  job(id: string): Promise<JobStatus> {
    return this.get(`/jobs/${encodeURIComponent(id)}`);
  }

  jobs(): Promise<JobStatus[]> {
    return this.get("/jobs");
  }

  appendDaily(text: string, title?: string): Promise<DailyEntry> {
    return this.post("/daily", title ? { text, title } : { text });
  }

  health(): Promise<HealthAnswer> {
    return this.get("/health");
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>({ url: this.info.url + path, method: "GET", headers: this.headers() });
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>({
      url: this.info.url + path, method: "POST", body: JSON.stringify(body),
      headers: { ...this.headers(), "Content-Type": "application/json" },
    });
  }

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.info.token}` };
  }

  private async call<T>(request: HttpRequest): Promise<T> {
    let answer: HttpResponse;
    try {
      answer = await this.transport(request);
    } catch (error) {
      throw new ApiError(`No reme-workbench server answers at ${this.info.url} ` +
        `(${describe(error)}); start it with \`reme-workbench serve\` in the vault, or with ` +
        "the command 'reme-workbench: Start the server'.", 0);
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(answer.text) as T;
      } catch {
        throw new ApiError(`The server at ${this.info.url} answered with something that is ` +
          "not JSON; is another program on that port? Start `reme-workbench serve` again.",
          answer.status);
      }
    }
    throw new ApiError(errorMessage(answer), answer.status);
  }
}

/** The message of a refusal: the server's own (it says what to change), or one for the
 * answers it gives without a body of ours. */
export function errorMessage(answer: HttpResponse): string {
  let body: { error?: unknown; detail?: unknown } = {};
  try {
    body = JSON.parse(answer.text) ?? {};
  } catch {
    body = {};
  }
  if (answer.status === 401) {
    return "The server refused the token: it is not the one in .reme/serve.json (the server " +
      "was restarted?). Reconnect with 'reme-workbench: Connect'.";
  }
  if (typeof body.error === "string") return body.error;
  if (answer.status === 422 && Array.isArray(body.detail)) {
    const problems = body.detail.map((d: { loc?: unknown[]; msg?: string }) =>
      `${(d.loc ?? []).filter((p) => p !== "body").join(".") || "request"}: ${d.msg ?? "invalid"}`);
    return `The server refused the request: ${problems.join("; ")}.`;
  }
  if (answer.status === 404) {
    return "The server has no such route; update reme-workbench (`pip install -U " +
      "reme-workbench`) so it matches this plugin.";
  }
  return `The server answered ${answer.status}; its log (the terminal running ` +
    "`reme-workbench serve`) says why.";
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? error.message;
  }
  return String(error);
}
