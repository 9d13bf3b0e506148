import { defineConfig } from "tsup";

const shared = {
  dts: true,
  sourcemap: true,
  target: "node20",
  platform: "node",
  splitting: false,
  treeshake: true,
} as const;

export default defineConfig([
  {
    ...shared,
    // The package's two entry points, for both module systems.
    entry: { index: "src/index.ts", "emulator/index": "src/emulator/index.ts" },
    format: ["esm", "cjs"],
    clean: true,
  },
  {
    ...shared,
    // The `studio-emulator` bin runs as an ES module (the package is "type": "module").
    entry: { "emulator/cli": "src/emulator/cli.ts" },
    format: ["esm"],
    dts: false,
  },
]);
