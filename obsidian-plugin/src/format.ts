// What the views and the status bar show, as plain functions of the API's answers (no
// DOM, no `obsidian`): tested without either.
import type { IndexStatus, JobStatus, ProposalSummary } from "./client";

// the index's states (GET /index/status) as the status bar says them
const STATE_WORDS: Record<string, string> = {
  starting: "starting", keyword: "keyword", vectors: "embedding", ready: "ready",
  failed: "index failed", stopped: "index stopped", empty: "empty index",
  "vectors pending": "keyword",
};

/** The status bar: the connection, the index state and a running job's progress, e.g.
 * "reme: keyword · vectors 12/37 files · dream 2/5 file 2/5 daily/…". */
export function statusText(index: IndexStatus | null, job: JobStatus | null,
  problem: string | null = null): string {
  if (problem !== null || index === null) return "reme: not connected";
  const parts = ["reme:", STATE_WORDS[index.state] ?? index.state];
  if (index.vectors) parts.push(`· vectors ${index.vectors}`);
  if (job && job.state === "running") {
    const { done, total } = job.progress;
    parts.push(`· ${job.kind}${total ? ` ${done}/${total}` : "…"}`);
  }
  return parts.join(" ");
}

/** The status bar's tooltip: the whole story, including what the short text leaves out. */
export function statusTitle(index: IndexStatus | null, job: JobStatus | null,
  problem: string | null = null): string {
  if (problem !== null) return `${problem}\nClick to connect.`;
  if (index === null) return "Not connected. Click to connect.";
  const lines = [`Index: ${index.state}`];
  if (index.keyword) lines.push(`By keyword: ${index.keyword}`);
  if (index.vectors) lines.push(`With vectors: ${index.vectors}`);
  if (index.error) lines.push(`Error: ${index.error}`);
  if (job && job.state === "running" && job.progress.message) lines.push(`${job.kind}: ${job.progress.message}`);
  return lines.join("\n");
}

/** The file a proposal is about (what it writes first, or what its summary names). */
export function proposalTarget(p: ProposalSummary): string {
  return p.files[0] ?? "";
}

/** "consolidate.merge" → "merge"; "dream.create" → "create". */
export function actionName(action: string): string {
  return action.includes(".") ? action.slice(action.indexOf(".") + 1) : action;
}

export type DiffKind = "add" | "del" | "hunk" | "file" | "context";

/** Each line of a unified diff with what it is, for colouring. */
export function diffLines(diff: string): { kind: DiffKind; text: string }[] {
  return diff.split("\n").filter((line, i, all) => i < all.length - 1 || line !== "").map((text) => {
    if (text.startsWith("+++") || text.startsWith("---")) return { kind: "file", text };
    if (text.startsWith("@@")) return { kind: "hunk", text };
    if (text.startsWith("+")) return { kind: "add", text };
    if (text.startsWith("-")) return { kind: "del", text };
    return { kind: "context", text };
  });
}

/** A story value as short readable text: strings as they are, lists one per line, objects
 * as `key: value` lines (one level; deeper as compact JSON). */
export function storyText(value: unknown, limit = 600): string {
  const text = storyLines(value);
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
}

function storyLines(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map((v) => `• ${inline(v)}`).join("\n");
  return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${inline(v)}`).join("\n");
}

function inline(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) {
    return value.map(String).join(", ");
  }
  if (!Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v !== "object" || v === null)) {
      return entries.map(([k, v]) => `${k}=${String(v)}`).join(", ");
    }
  }
  return JSON.stringify(value);
}

/** What a decision's answer means for the person. */
export function decisionText(answer: ProposalSummary): string {
  const head = `${answer.id}: ${answer.state}`;
  if (answer.state === "applied") return answer.note ? `${head} (${answer.note})` : head;
  if (answer.state === "stale") {
    return `${head}: a file it writes changed since it was planned${answer.error ? ` (${answer.error})` : ""}; ` +
      "dream or consolidate plans it again.";
  }
  if (answer.replanned_as.length) return `${head}: planned again as ${answer.replanned_as.join(", ")}`;
  return answer.error ? `${head}: ${answer.error}` : head;
}

/** One line for a finished job: what dream made and what waits, the phases consolidate
 * ran, or why it failed. */
export function jobSummary(job: JobStatus): string {
  if (job.state === "failed") return `${job.kind} failed: ${job.error ?? "no reason given"}`;
  if (job.state === "running") return `${job.kind}: ${job.progress.message || "running"}`;
  const r = job.result ?? {};
  if (job.kind === "dream") {
    const materials = Array.isArray(r.materials) ? r.materials.length : 0;
    const outcomes = Array.isArray(r.outcomes) ? r.outcomes.length : 0;
    const pending = Array.isArray(r.pending) ? r.pending.length : 0;
    if (!materials) return "dream: nothing new to dream.";
    return `dream: ${materials} file(s), ${outcomes} unit(s); ${pending} proposal(s) wait for review.`;
  }
  if (job.kind === "consolidate") {
    const ran = Array.isArray(r.ran) ? r.ran : [];
    return ran.length ? `consolidate ran ${ran.join(", ")}.` : "consolidate: nothing was due.";
  }
  return `${job.kind} done.`;
}
