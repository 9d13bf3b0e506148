import { defineConfig } from "tsup";

const shared = {
  dts: true,
  sourcemap: true,
  target: "es2022",
  treeshake: true,
  // Error classes are told apart by `err.name` in users' logs; minifiers must not rename them.
  keepNames: true,
} as const;

export default defineConfig([
  {
    ...shared,
    // The portable entries: Web APIs and @langchain/core only (Node-only code loads lazily).
    entry: {
      index: "src/index.ts",
      "agents/index": "src/agents/index.ts",
      "langgraph/index": "src/langgraph/index.ts",
      "server/index": "src/server/index.ts",
      // Loads `redis` (an optional peer) only when a backend connects.
      "server/redis": "src/server/redis/index.ts",
    },
    platform: "neutral",
    format: ["esm", "cjs"],
    // One copy of the shared modules for every subpath, so a StudioClient or an error class from
    // the root is the same class in `langchain-studio/agents` and `/langgraph` (instanceof holds).
    splitting: true,
  },
  {
    ...shared,
    entry: { "emulator/index": "src/emulator/index.ts" },
    platform: "node",
    format: ["esm", "cjs"],
    splitting: false,
  },
  {
    ...shared,
    // The `studio-emulator` bin runs as an ES module (the package is "type": "module").
    entry: { "emulator/cli": "src/emulator/cli.ts" },
    platform: "node",
    format: ["esm"],
    splitting: false,
    dts: false,
  },
]);
