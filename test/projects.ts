/**
 * Which vitest project runs a test file, decided by the file's name (#33), so a new file lands in
 * the right project with no list to keep. vitest.config.ts builds its projects from these globs,
 * and test/unit/architecture/test-projects.pure.test.ts checks that every test file matches
 * exactly one always-on project.
 *
 * | name                   | project       | what the file may do                                  |
 * | ---------------------- | ------------- | ----------------------------------------------------- |
 * | `name.test.ts`         | `unit`        | in process: nock, spies, fake timers; no vi.mock      |
 * | `name.pure.test.ts`    | `pure`        | pure functions over values; nothing kept per process  |
 * | `name.int.test.ts`     | `integration` | starts the emulator (loopback or in process)          |
 * | `name.process.test.ts` | `packaging`   | a child process, the compiler, or `dist/`             |
 * | `test/runtimes/*`      | `runtimes`    | the built package in Node, Bun, Deno, workerd, Chromium |
 * | `name.cluster.test.ts` | `cluster`     | server processes, a proxy and redis-server (#35)      |
 */

/** Include and exclude globs of one project, relative to the repository root (as vitest's). */
export interface ProjectFiles {
  include: string[];
  exclude: string[];
}

const PURE = "test/**/*.pure.test.ts";
const INTEGRATION = "test/**/*.int.test.ts";
const PROCESS = "test/**/*.process.test.ts";
const RUNTIMES = "test/runtimes/**/*.test.ts";
const CLUSTER = "test/**/*.cluster.test.ts";

/** The projects every `vitest run` has; each test file belongs to exactly one of them. */
export const PROJECT_FILES = {
  unit: {
    include: ["test/**/*.test.ts"],
    exclude: [PURE, INTEGRATION, PROCESS, RUNTIMES, CLUSTER],
  },
  pure: { include: [PURE], exclude: [RUNTIMES] },
  integration: { include: [INTEGRATION], exclude: [RUNTIMES] },
  packaging: { include: [PROCESS], exclude: [RUNTIMES] },
  runtimes: { include: [RUNTIMES], exclude: [] },
  cluster: { include: [CLUSTER], exclude: [RUNTIMES] },
} satisfies Record<string, ProjectFiles>;

/**
 * The version matrix's "lowest" leg (docs/compatibility.md): the areas that touch LangChain and
 * LangGraph, run again with those packages resolved from `.matrix/lowest/node_modules` (the lowest
 * versions the peer ranges allow, installed by `npm run matrix:install`). Chosen by folder, since
 * what matters is which package a file exercises, not how it runs.
 */
export const LOWEST_FILES: ProjectFiles = {
  include: [
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
  ],
  exclude: [
    // A child process would load the repository's own (newest) versions, not the lowest ones.
    PROCESS,
    // @langchain/langgraph-checkpoint-validation is not in the lowest install; it would load the
    // repository's @langchain/core beside the lowest one.
    "test/integration/langgraph/validation.int.test.ts",
    // Fault and property tests of this package's own write paths: 30 to 70 s each, and what they
    // prove does not depend on the LangChain version (the newest leg runs them).
    "test/integration/langgraph/bounded-reads.int.test.ts",
    "test/integration/chat_history/ledger.int.test.ts",
  ],
};

/**
 * The lowest leg runs as three projects, as the newest does: its plain files as `unit` does
 * (`lowest`), its `.int` files as `integration` does (`lowest-int`: a project's settings, such as
 * unstubbing envs after each test, apply to all its files) and its `.pure` files as `pure` does.
 */
export const LOWEST_PROJECT_FILES = {
  lowest: {
    include: LOWEST_FILES.include,
    exclude: [...LOWEST_FILES.exclude, PURE, INTEGRATION],
  },
  "lowest-int": {
    include: suffixed(LOWEST_FILES.include, "int"),
    exclude: LOWEST_FILES.exclude,
  },
  "lowest-pure": {
    include: suffixed(LOWEST_FILES.include, "pure"),
    exclude: LOWEST_FILES.exclude,
  },
} satisfies Record<string, ProjectFiles>;

/** The globs of `globs` that take any test file, narrowed to `name.<suffix>.test.ts`. */
function suffixed(globs: readonly string[], suffix: "int" | "pure"): string[] {
  return globs
    .filter((glob) => glob.endsWith("/*.test.ts"))
    .map((glob) => glob.replace(/\*\.test\.ts$/, `*.${suffix}.test.ts`));
}
