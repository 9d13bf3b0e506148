import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import { MATRIX_PACKAGES } from "./test/matrix/packages";
import { LOWEST_PROJECT_FILES, PROJECT_FILES } from "./test/projects";
import { LongFirstSequencer } from "./test/setup/sequencer";

const root = path.dirname(fileURLToPath(import.meta.url));

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

/** Timeouts guard against a hang; a project that needs longer sets its own. */
const DEFAULT_TIMEOUTS = { testTimeout: 30_000, hookTimeout: 60_000 } as const;

/**
 * Files that share a worker process: LangChain, LangGraph, zod and undici are loaded once per
 * worker instead of once per file (about 1 s of CPU each), while test/setup/fresh-modules.ts
 * evaluates the package's own modules again for every file and undoes what a file may leave
 * behind in the process (fake timers, stubbed envs and globals, nock), so no file sees another's
 * state. A `vi.mock` would outlive its file: test-projects.pure.test.ts refuses one here.
 */
const SHARED_PROCESS: { isolate: false; setupFiles: string[]; environment: "node" } = {
  isolate: false,
  setupFiles: ["test/setup/fresh-modules.ts"],
  environment: "node",
};

export default defineConfig({
  test: {
    // vitest's default on 2 cores is one worker (cores - 1), which leaves a core idle whenever a
    // test waits on a child process, a socket or a timer. Three: the cluster files (one at a
    // time) hold a worker mostly waiting on their instances, leases and kills, and the other two
    // keep both cores busy meanwhile (docs/development.md, "How long the suite takes").
    maxWorkers: 3,
    // A test's timeout guards against a hang; it is not a speed target. vitest's 5 s default
    // failed CPU-bound property and 16 MiB stream tests at a load average of 16 (#36). A project
    // does not inherit these: each one sets its own (DEFAULT_TIMEOUTS or longer).
    ...DEFAULT_TIMEOUTS,
    // Child-process files and known long ones first, each project's files together (see there).
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        test: {
          // Projects are chosen by file name (test/projects.ts): name.test.ts, .pure, .int, .process.
          name: "unit",
          ...PROJECT_FILES.unit,
          ...SHARED_PROCESS,
          ...DEFAULT_TIMEOUTS,
          globalSetup: ["test/matrix/print-versions.ts"],
        },
      },
      {
        test: {
          // Pure functions over values: no client, no session cache, no warn-once flag, no mock,
          // nothing kept per process. They share one module graph per worker, which saves loading
          // LangChain again for each file. A file that keeps state per process (a cache, a "warned
          // once" flag, nock, vi.mock, process.env, zod's global locale) is a plain unit file.
          name: "pure",
          ...PROJECT_FILES.pure,
          environment: "node",
          isolate: false,
          ...DEFAULT_TIMEOUTS,
        },
      },
      {
        test: {
          name: "integration",
          ...PROJECT_FILES.integration,
          ...SHARED_PROCESS,
          unstubEnvs: true,
          unstubGlobals: true,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // A child process (Node, npm, a CLI, a fixture script), the compiler inside a test, or
          // the built `dist/`: kept apart so the other projects stay in process, with longer
          // timeouts. Its files share a worker process too (about 0.7 s of CPU saved per file);
          // their cost is their child processes. Needs `dist/` (npm test builds first).
          name: "packaging",
          ...PROJECT_FILES.packaging,
          ...SHARED_PROCESS,
          unstubEnvs: true,
          unstubGlobals: true,
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
                ...LOWEST_PROJECT_FILES.lowest,
                ...SHARED_PROCESS,
                testTimeout: 60_000,
                hookTimeout: 60_000,
                env: { MATRIX_LEG: "lowest" },
                globalSetup: ["test/matrix/print-versions.ts"],
              },
            },
            {
              plugins: [resolveMatrixPackagesFrom(LOWEST_DIR)],
              test: {
                // The lowest leg's .int files, sharing a worker process as `integration` does.
                name: "lowest-int",
                ...LOWEST_PROJECT_FILES["lowest-int"],
                ...SHARED_PROCESS,
                unstubEnvs: true,
                unstubGlobals: true,
                testTimeout: 60_000,
                hookTimeout: 60_000,
                env: { MATRIX_LEG: "lowest" },
              },
            },
            {
              plugins: [resolveMatrixPackagesFrom(LOWEST_DIR)],
              test: {
                // The lowest leg's pure files, sharing one module graph per worker as `pure` does.
                name: "lowest-pure",
                ...LOWEST_PROJECT_FILES["lowest-pure"],
                environment: "node",
                isolate: false,
                ...DEFAULT_TIMEOUTS,
                env: { MATRIX_LEG: "lowest" },
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
          ...PROJECT_FILES.runtimes,
          // Unpacks Chromium once, into the suite's own directory, before the files that launch it.
          globalSetup: ["test/runtimes/chromium-setup.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 150_000,
        },
      },
      {
        test: {
          // Three server processes behind a proxy, over redis-server and the emulator (#35;
          // test/cluster/harness.ts). They mostly wait (leases, kills, drains), so they run
          // beside the other projects' files, one at a time: the sequencer spreads them through
          // the queue (test/setup/sequencer.ts), the first one at the start of the run.
          name: "cluster",
          ...PROJECT_FILES.cluster,
          environment: "node",
          testTimeout: 60_000,
          // A file's beforeAll may first wait for another file's cluster to end
          // (test/cluster/one-at-a-time.ts).
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
