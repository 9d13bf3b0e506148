import { defineConfig } from "tsup";

const shared = {
  dts: true,
  sourcemap: true,
  target: "es2022",
  splitting: false,
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
    },
    platform: "neutral",
    format: ["esm", "cjs"],
    clean: true,
  },
  {
    ...shared,
    entry: { "emulator/index": "src/emulator/index.ts" },
    platform: "node",
    format: ["esm", "cjs"],
  },
  {
    ...shared,
    // The `studio-emulator` bin runs as an ES module (the package is "type": "module").
    entry: { "emulator/cli": "src/emulator/cli.ts" },
    platform: "node",
    format: ["esm"],
    dts: false,
  },
]);
