import { describe, expect, it } from "vitest";
import type { IndexStatus, JobStatus } from "../src/client";
import { actionName, decisionText, diffLines, jobSummary, statusText, storyText } from "../src/format";

const index = (state: string, vectors: string | null): IndexStatus =>
  ({ background: true, state, keyword: "37/37 files", vectors, pending_chunks: 0, error: null });
const job = (over: Partial<JobStatus>): JobStatus => ({ id: "j-1", kind: "dream", state: "running",
  started_at: "", finished_at: null, progress: { done: 2, total: 5, message: "dreaming: file 2/5" },
  result: null, error: null, ...over });

describe("the status bar", () => {
  it("shows the index state, the vectors and a running job", () => {
    expect(statusText(index("keyword", "12/37 files"), null)).toBe("reme: keyword · vectors 12/37 files");
    expect(statusText(index("vectors", "12/37 files"), null)).toBe("reme: embedding · vectors 12/37 files");
    expect(statusText(index("ready", "37/37 files"), job({}))).toBe("reme: ready · vectors 37/37 files · dream 2/5");
    expect(statusText(index("ready", null), job({ state: "done" }))).toBe("reme: ready");
    expect(statusText(null, null, "no server")).toBe("reme: not connected");
  });
});

describe("what the review view shows", () => {
  it("classifies the lines of a unified diff", () => {
    expect(diffLines("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n").map((l) => l.kind))
      .toEqual(["file", "file", "hunk", "del", "add", "context"]);
  });
  it("writes a story value as readable lines", () => {
    expect(storyText("REFINE")).toBe("REFINE");
    expect(storyText(["a", { path: "p", score: 0.5 }])).toBe("• a\n• path=p, score=0.5");
    expect(storyText({ votes: { a: "same" }, n: 2 })).toBe("votes: a=same\nn: 2");
    expect(storyText(null)).toBe("—");
    expect(storyText("x".repeat(700))).toBe(`${"x".repeat(600)}… (100 more characters)`);
  });
  it("says what a decision's answer means", () => {
    const base = { id: "p-1", action: "dream.refine", summary: "", files: [], updated_at: null,
      error: null, replanned_as: [], note: null };
    expect(decisionText({ ...base, state: "applied" })).toBe("p-1: applied");
    expect(decisionText({ ...base, state: "stale" })).toMatch(/changed since it was planned/);
    expect(decisionText({ ...base, state: "rejected", error: "links_resolve failed" })).toBe("p-1: rejected: links_resolve failed");
    expect(decisionText({ ...base, state: "rejected", replanned_as: ["p-2"] })).toBe("p-1: rejected: planned again as p-2");
    expect(actionName("consolidate.merge")).toBe("merge");
  });
  it("sums up a finished job", () => {
    expect(jobSummary(job({ state: "done", result: { materials: ["a"], outcomes: [{}, {}], pending: ["p"] } })))
      .toBe("dream: 1 file(s), 2 unit(s); 1 proposal(s) wait for review.");
    expect(jobSummary(job({ kind: "consolidate", state: "done", result: { ran: ["archive"] } }))).toBe("consolidate ran archive.");
    expect(jobSummary(job({ state: "failed", error: "the vault is locked" }))).toBe("dream failed: the vault is locked");
  });
});
