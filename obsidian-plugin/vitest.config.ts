import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The views are tested against test/fake-obsidian.ts (Obsidian itself cannot run in a
// test), in happy-dom's DOM.
export default defineConfig({
  resolve: {
    alias: { obsidian: fileURLToPath(new URL("./test/fake-obsidian.ts", import.meta.url)) },
  },
  test: { environment: "happy-dom", include: ["test/**/*.test.ts"] },
});
