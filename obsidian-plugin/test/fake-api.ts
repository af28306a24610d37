// A fake of the local API in memory, as a Transport: the routes the plugin calls, answering
// as `reme-workbench serve` does (docs/api.md) — the bearer token, `{"error"}` refusals,
// proposals that change state when decided. The unit tests and the harness page use it;
// the end-to-end test (tests/plugin/ in the Python suite) uses the real server.
import type {
  HttpRequest, HttpResponse, IndexStatus, JobStatus, ProposalDetail, RecallHit, Transport,
} from "../src/client";

export const TOKEN = "fake-token";
export const SERVE_INFO = JSON.stringify({ port: 8765, token: TOKEN, pid: 4242, url: "http://127.0.0.1:8765" });

const note = (path: string, name: string, description: string, passage: string, score: number,
  via: "search" | "link" = "search"): RecallHit => ({
  path, name, description, score, via,
  chunks: [{ text: passage, line_start: 5, line_end: 7, score }],
});

export const NOTES: RecallHit[] = [
  note("digest/wiki/pgbouncer-port.md", "pgbouncer-port", "PgBouncer listens on 6432, not 5432",
    "payments-api connects through PgBouncer on port 6432; the database itself is on 5432.", 0.91),
  note("digest/procedure/raise-the-pool-size.md", "raise-the-pool-size",
    "How to raise payments-api's connection pool without a restart",
    "Edit pool_size in the Helm values, then roll the deployment one pod at a time.", 0.84),
  note("digest/wiki/statement-timeout.md", "statement-timeout", "Statements time out after 5 s on payments-api",
    "statement_timeout is 5s for the payments role; reports run under the analytics role.", 0.77),
  note("digest/wiki/database-overview.md", "database-overview", "The payments databases, their pools and ports",
    "Hub of the database notes: ports, pools, timeouts, the replica.", 0.62, "link"),
  note("digest/personal/prefers-small-prs.md", "prefers-small-prs", "Prefers pull requests under 300 lines",
    "Keeps each pull request under 300 lines so review takes one sitting.", 0.31),
];

const DIFF = `--- a/digest/wiki/pool-size.md
+++ b/digest/wiki/pool-size.md
@@ -1,6 +1,7 @@
 ---
 name: pool-size
-description: The payments-api DB pool size is 10
+description: The payments-api DB pool size is 40 since the October incident
 ---
-The pool holds 10 connections.
+The pool holds 40 connections, raised from 10 after the 2026-10-05 incident.
+PgBouncer in front of it listens on 6432.
 derived_from:: [[daily/2026-10-05/log.md]]
`;

function proposal(id: string, action: string, summary: string, files: string[],
  story: Record<string, unknown>, diff: string, state = "pending"): ProposalDetail {
  return { id, state, action, summary, files, updated_at: "2026-12-07T06:00:00Z", error: null,
    replanned_as: [], note: null, story, diff };
}

export function sampleProposals(): ProposalDetail[] {
  return [
    proposal("p-20261207-060101-a1b2c3", "dream.refine",
      "refine pool-size with the incident of 2026-10-05 (40 connections)",
      ["digest/wiki/pool-size.md"],
      { material: "daily/2026-10-05/log.md", flavor: "REFINE",
        unit: "Raised the payments-api pool to 40 after the incident",
        recall: [{ path: "digest/wiki/pool-size.md", score: 0.82 }, { path: "digest/wiki/pgbouncer-port.md", score: 0.41 }],
        checks: ["has_provenance: ok", "only_paths: ok", "links_resolve: ok"] }, DIFF),
    proposal("p-20261207-060102-d4e5f6", "consolidate.merge",
      "merge digest/wiki/pgbouncer.md into digest/wiki/pgbouncer-port.md (3 of 3 votes)",
      ["digest/wiki/pgbouncer-port.md", "digest/wiki/pgbouncer.md"],
      { votes: { embedding: "same (0.93)", overlap: "same (0.71)", brain: "same: both say 6432" },
        links_moved: 2 },
      "--- a/digest/wiki/pgbouncer.md\n+++ /dev/null\n@@ -1,4 +0,0 @@\n----\n-name: pgbouncer\n----\n-PgBouncer is on 6432.\n"),
    proposal("p-20261207-060103-0a0b0c", "consolidate.hub",
      "hub digest/wiki/database-overview.md for the community of 6 database notes",
      ["digest/wiki/database-overview.md"],
      { community: "c_02", members: 6, gates: { size: "6 ≥ 5", coverage: "0.83 ≥ 0.5" } },
      "--- /dev/null\n+++ b/digest/wiki/database-overview.md\n@@ -0,0 +1,3 @@\n+---\n+name: database-overview\n+---\n"),
    proposal("p-20261206-221500-99aa88", "dream.correct",
      "correct statement-timeout: 5 s, not 30 s", ["digest/wiki/statement-timeout.md"],
      { material: "daily/2026-10-12/log.md" }, "", "stale"),
  ];
}

export interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** The fake server's state; `transport` answers the plugin's requests from it. */
export class FakeApi {
  calls: Call[] = [];
  proposals = sampleProposals();
  index: IndexStatus = { background: true, state: "vectors", keyword: "37/37 files",
    vectors: "12/37 files", pending_chunks: 88, error: null };
  jobs: JobStatus[] = [];
  /** How many polls of a job before it is done. */
  jobPolls = 2;
  opened: string[] = [];
  down = false;
  token = TOKEN;
  /** When set, the next request waits for it before it is answered (a slow answer). */
  gate: Promise<void> | null = null;

  transport: Transport = async (request) => this.answer(request);

  private async answer(request: HttpRequest): Promise<HttpResponse> {
    if (this.down) throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    const gate = this.gate;
    this.gate = null;
    if (gate) await gate;
    const url = new URL(request.url);
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : null;
    this.calls.push({ method: request.method, path: url.pathname + url.search, body });
    if (request.headers.Authorization !== `Bearer ${this.token}`) {
      return json(401, { error: "Send the token in <vault>/.reme/serve.json as 'Authorization: Bearer <token>'." });
    }
    const route = `${request.method} ${url.pathname}`;
    const id = decodeURIComponent(url.pathname.split("/")[2] ?? "");
    switch (true) {
      case route === "GET /index/status":
        return json(200, this.index);
      case route === "POST /recall": {
        const words = String(body?.query ?? "").toLowerCase().split(/\W+/).filter(Boolean);
        const hits = NOTES.filter((h) => body?.scope !== "sources" &&
          words.some((w) => `${h.description} ${h.chunks[0].text}`.toLowerCase().includes(w)));
        return json(200, { query: body?.query, hits, vectors: this.index.vectors, note: null, notices: [] });
      }
      case route === "POST /related":
        return json(200, { path: body?.path, vectors: this.index.vectors, note: null,
          hits: NOTES.filter((h) => h.path !== body?.path).slice(0, Number(body?.k ?? 8)) });
      case route === "POST /note/opened": {
        const path = String(body?.path);
        const again = this.opened.includes(path);
        if (!again) this.opened.push(path);
        return json(200, { path, logged: !again, last_open: null, reason: null });
      }
      case route === "GET /proposals": {
        const state = url.searchParams.get("state");
        return json(200, this.proposals.filter((p) => !state || p.state === state).map(summary));
      }
      case request.method === "GET" && /^\/proposals\/[^/]+\/files$/.test(url.pathname): {
        const p = this.find(id);
        return p ? json(200, { id: p.id, files: Object.fromEntries(p.files.map((f) => [f, `text of ${f}\n`])) })
          : json(404, { error: `No proposal ${id}.` });
      }
      case request.method === "GET" && url.pathname.startsWith("/proposals/"): {
        const p = this.find(id);
        return p ? json(200, p) : json(404, { error: `No proposal ${id}; \`proposals list\` shows them.` });
      }
      case route === "POST /proposals/accept" || route === "POST /proposals/reject": {
        const p = this.find(String(body?.id));
        if (!p) return json(404, { error: `No proposal ${String(body?.id)}.` });
        if (p.state !== "pending" && p.state !== "stale") {
          return json(400, { error: `${p.id} is ${p.state}; only a pending proposal can be decided.` });
        }
        p.state = route.endsWith("accept") ? (p.id.endsWith("99aa88") ? "stale" : "applied") : "rejected";
        if (route.endsWith("reject")) p.error = `rejected: ${String(body?.reason)}`;
        return json(200, summary(p));
      }
      case route === "POST /jobs/dream" || route === "POST /jobs/consolidate": {
        if (this.jobs.some((j) => j.state === "running")) return json(409, { error: "A job is running." });
        const job: JobStatus = { id: `j-${this.jobs.length + 1}`, kind: route.endsWith("dream") ? "dream" : "consolidate",
          state: "running", started_at: "2026-12-07T06:00:00Z", finished_at: null,
          progress: { done: 1, total: 3, message: "dreaming: file 1/3 daily/2026-12-07/log.md" },
          result: null, error: null };
        this.jobs.push(job);
        return json(202, job);
      }
      case route === "GET /jobs":
        return json(200, this.jobs);
      case request.method === "GET" && url.pathname.startsWith("/jobs/"): {
        const job = this.jobs.find((j) => j.id === id);
        if (!job) return json(404, { error: `No job ${id}.` });
        if (job.state === "running" && --this.jobPolls <= 0) {
          job.state = "done";
          job.result = job.kind === "dream"
            ? { materials: ["daily/2026-12-07/log.md"], outcomes: [{}, {}], pending: ["p-1"] }
            : { ran: ["communities", "archive", "health"] };
        }
        return json(200, job);
      }
      case route === "POST /daily":
        return json(200, { path: "daily/2026-12-07/log.md", created: false, appended_bytes: 10, size: 100 });
      case route === "GET /health":
        return json(200, { ok: false, broken_links: [{ source: "a", target: "b" }], broken_provenance: [],
          missing_provenance: ["digest/wiki/x.md"] });
      default:
        return json(404, { detail: "Not Found" });
    }
  }

  private find(id: string): ProposalDetail | undefined {
    return this.proposals.find((p) => p.id === id || p.id.startsWith(id));
  }
}

function summary(p: ProposalDetail) {
  const { story: _story, diff: _diff, ...rest } = p;
  return rest;
}

function json(status: number, value: unknown): HttpResponse {
  return { status, text: JSON.stringify(value) };
}
