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
          // child process bounded in time (see test/runtimes/harness.ts). They run after the
          // other projects, so five runtimes starting at once do not slow their timed tests.
          name: "runtimes",
          sequence: { groupOrder: 1 },
          include: ["test/runtimes/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 150_000,
        },
      },
    ],
  },
});
