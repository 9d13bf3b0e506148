import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import { MATRIX_PACKAGES } from "./test/matrix/packages";

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * Test files that need more than the source: a child process (tsx, npm, a CLI, a fixture script),
 * the TypeScript compiler, or the built `dist/`. They get a project of their own, so the unit and
 * integration projects stay in-process and fast, and these run beside them with their own
 * timeouts. Files, not folders, so a new test lands in the fast projects unless it says otherwise.
 */
const PACKAGING = [
  "test/integration/packaging/**/*.test.ts",
  "test/integration/readme/**/*.test.ts",
  "test/integration/examples.test.ts",
  "test/integration/examples-chat-ui-serve.process.test.ts",
  "test/integration/demo.test.ts",
  "test/integration/chat_history/two-processes.test.ts",
  "test/integration/client/engine.test.ts",
  "test/integration/emulator/cli.test.ts",
  "test/integration/emulator/control.test.ts",
  "test/integration/emulator/isolation.test.ts",
  "test/integration/reliability/aborted-stream.test.ts",
  "test/integration/reliability/clear-without-message-delete.test.ts",
  "test/integration/reliability/error-names.test.ts",
  "test/integration/reliability/timeouts.test.ts",
  "test/integration/store/memory.test.ts",
  "test/integration/server/docs.test.ts",
  // The compiler inside the test: an option or setting added to the schema must not compile
  // until it is handled.
  "test/unit/client/options.test.ts",
  "test/unit/client/public-type-names.test.ts",
  "test/unit/models/settings.test.ts",
];

/**
 * Unit files of pure functions over values (converters, planners, records, the emulator's parts):
 * no client, no session cache, no warn-once flag, no mock, nothing kept per process. They share
 * one module graph per worker (`isolate: false`), which saves loading LangChain again for each
 * file: under half the time of the same files isolated. A file that keeps state per process
 * (a cache, a "warned once" flag, nock, vi.mock, process.env) belongs in `unit` instead.
 */
const PURE_UNIT = [
  "test/unit/converters/**/*.test.ts",
  "test/unit/emulator/**/*.test.ts",
  "test/unit/langgraph/channel-values.test.ts",
  "test/unit/langgraph/checkpoint-log.test.ts",
  "test/unit/langgraph/plans.test.ts",
  "test/unit/langgraph/records.test.ts",
  "test/unit/store/plans.test.ts",
  "test/unit/store/queries.test.ts",
  "test/unit/store/records.test.ts",
  "test/unit/datasets/export.test.ts",
  "test/unit/datasets/validate-record.test.ts",
  "test/unit/llms/converters.test.ts",
  "test/unit/models/context-overflow.test.ts",
  "test/unit/server/run-admission.pure.test.ts",
  "test/unit/server/run-errors.pure.test.ts",
];

/** "Unit" files that start the emulator on loopback: they run with the integration tests. */
const UNIT_WITH_EMULATOR = [
  "test/unit/crypto/checkpointer-suite.test.ts",
  "test/unit/crypto/stored-values.test.ts",
  "test/unit/store/differential.test.ts",
  "test/unit/store/store.test.ts",
];

/**
 * The version matrix's "lowest" leg (docs/compatibility.md): the suites that touch LangChain and
 * LangGraph, run again with those packages resolved from `.matrix/lowest/node_modules` (the lowest
 * versions the peer ranges allow, installed by `npm run matrix:install`). In-process files only:
 * a child process would load the repository's own (newest) versions.
 */
const LOWEST = [
  "test/matrix/versions.test.ts",
  "test/unit/chat_models/**/*.test.ts",
  "test/integration/chat_models/**/*.test.ts",
  "test/unit/llms/**/*.test.ts",
  "test/integration/llms/**/*.test.ts",
  "test/unit/langgraph/**/*.test.ts",
  "test/integration/langgraph/**/*.test.ts",
  "test/unit/store/**/*.test.ts",
  "test/unit/assistants/**/*.test.ts",
  "test/integration/assistants/**/*.test.ts",
  "test/integration/chat_history/**/*.test.ts",
];
const LOWEST_EXCLUDE = [
  // @langchain/langgraph-checkpoint-validation is not in the lowest install; it would load the
  // repository's @langchain/core beside the lowest one.
  "test/integration/langgraph/validation.test.ts",
  // Fault and property tests of this package's own write paths: 30 to 70 s each, and what they
  // prove does not depend on the LangChain version (the newest leg runs them).
  "test/integration/langgraph/bounded-reads.test.ts",
  "test/integration/chat_history/ledger.test.ts",
  ...PACKAGING,
];

const LOWEST_DIR = path.join(root, ".matrix", "lowest");

/**
 * Resolves the matrix packages (and their subpaths) as if imported from `dir`, so their own
 * `exports` apply. What those packages import in turn Node resolves from where they sit, so one
 * leg never mixes two copies of @langchain/core.
 */
function resolveMatrixPackagesFrom(dir: string): Plugin {
  const importer = path.join(dir, "package.json");
  return {
    name: "langchain-studio:matrix-resolve",
    enforce: "pre",
    async resolveId(source, _importer, options) {
      if (!MATRIX_PACKAGES.some((name) => source === name || source.startsWith(`${name}/`))) {
        return null;
      }
      return this.resolve(source, importer, { ...options, skipSelf: true });
    },
  };
}

/** `npm test` sets MATRIX_LOWEST=1; a plain `npx vitest run <files>` runs the newest leg only. */
const withLowest = process.env.MATRIX_LOWEST === "1";
if (withLowest && !existsSync(path.join(LOWEST_DIR, "node_modules"))) {
  throw new Error(
    "MATRIX_LOWEST=1 but .matrix/lowest is not installed: run `npm run matrix:install` first.",
  );
}

export default defineConfig({
  test: {
    // vitest's default on 2 cores is one worker (cores - 1), which leaves a core idle whenever a
    // test waits on a child process, a socket or a timer. Two workers keep both busy.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/matrix/**/*.test.ts"],
          exclude: [...UNIT_WITH_EMULATOR, ...PACKAGING, ...PURE_UNIT],
          environment: "node",
          globalSetup: ["test/matrix/print-versions.ts"],
        },
      },
      {
        test: {
          name: "pure",
          include: PURE_UNIT,
          environment: "node",
          isolate: false,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", ...UNIT_WITH_EMULATOR],
          exclude: PACKAGING,
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Child processes, the compiler, the packed package: see PACKAGING. Needs `dist/`
          // (npm test builds first).
          name: "packaging",
          include: PACKAGING,
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
      ...(withLowest
        ? [
            {
              plugins: [resolveMatrixPackagesFrom(LOWEST_DIR)],
              test: {
                name: "lowest",
                include: LOWEST,
                exclude: LOWEST_EXCLUDE,
                environment: "node",
                testTimeout: 60_000,
                hookTimeout: 60_000,
                env: { MATRIX_LEG: "lowest" },
                globalSetup: ["test/matrix/print-versions.ts"],
              },
            },
          ]
        : []),
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
