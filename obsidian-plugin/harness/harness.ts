// The harness page's script: the plugin's views rendered in a browser over the fake
// obsidian module and the fake API (Obsidian cannot run here), one scene per `?scene=`,
// for headless Chromium to screenshot (docs/screenshots/, docs/obsidian.md).
import { SERVE_JSON } from "../src/client";
import { statusText } from "../src/format";
import { RelatedView } from "../src/views/related";
import { ReviewView } from "../src/views/review";
import { SearchModal } from "../src/views/search";
import { SERVE_INFO } from "../test/fake-api";
import { WorkspaceLeaf } from "../test/fake-obsidian";
import { makeHost } from "../test/helpers";

type Leaf = ConstructorParameters<typeof RelatedView>[0];

const NOTE = "digest/wiki/pool-size.md";

async function main(): Promise<void> {
  const scene = new URLSearchParams(location.search).get("scene") ?? "related";
  const host = makeHost({ [SERVE_JSON]: SERVE_INFO });
  const side = document.getElementById("side") as HTMLElement;
  const status = document.getElementById("status") as HTMLElement;
  const index = await host.connection.call((c) => c.indexStatus());
  const leaf = () => new WorkspaceLeaf(host.app as never) as never as Leaf;
  if (scene === "related" || scene === "search") {
    const view = new RelatedView(leaf(), host);
    view.load();
    side.appendChild(view.containerEl);
    await view.onOpen();
    await view.showFor(NOTE);
    if (scene === "search") {
      const modal = new SearchModal(host, "pgbouncer port");
      modal.open();
      await modal.search();
    }
    status.textContent = statusText(index, null);
  } else {
    const view = new ReviewView(leaf(), host);
    view.load();
    side.appendChild(view.containerEl);
    await view.onOpen();
    await view.show("p-20261207-060101-a1b2c3");
    const running = await host.connection.call((c) => c.startJob("dream"));
    status.textContent = statusText(index, running);
  }
  document.body.setAttribute("data-ready", "yes");
}

void main();
