// One list of recall hits, as the related panel and the search modal show it: the note's
// name, its description, its path and the best passage; a click opens the note.
import type { RecallHit } from "../client";

export function renderHits(parent: HTMLElement, hits: RecallHit[],
  open: (path: string) => void): void {
  const list = parent.createDiv("reme-hits");
  for (const hit of hits) {
    const item = list.createDiv({ cls: "reme-hit", attr: { "data-path": hit.path, tabindex: 0 } });
    const head = item.createDiv("reme-hit-head");
    head.createSpan({ cls: "reme-hit-name", text: hit.name ?? basename(hit.path) });
    // recall's scores are rank fusions (0.02 or so): their order says it all, so none is shown
    if (hit.via === "link") {
      head.createSpan({ cls: "reme-hit-via", text: "linked", title: "Found through a link from a note found by search" });
    }
    if (hit.description) item.createDiv({ cls: "reme-hit-description", text: hit.description });
    const passage = hit.chunks[0]?.text.trim();
    if (passage && passage !== hit.description) {
      item.createDiv({ cls: "reme-hit-passage", text: clip(passage, 220) });
    }
    item.createDiv({ cls: "reme-hit-path", text: hit.path });
    item.addEventListener("click", () => open(hit.path));
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter") open(hit.path);
    });
  }
}

export function basename(path: string): string {
  return (path.split("/").pop() ?? path).replace(/\.md$/, "");
}

function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > limit ? `${flat.slice(0, flat.lastIndexOf(" ", limit))} …` : flat;
}
