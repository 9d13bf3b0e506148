import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Node, Bun, Deno, workerd and a browser run the built package (`dist/`), each in a
          // child process bounded in time (see test/runtimes/harness.ts).
          name: "runtimes",
          include: ["test/runtimes/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 150_000,
        },
      },
    ],
  },
});
