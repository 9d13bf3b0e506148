/**
 * The order in which the two workers take test files: the longest work first, so that the run
 * does not end with one worker busy on a long file while the other is idle.
 *
 * vitest's own order runs projects one after the other by name (integration, lowest, packaging,
 * pure, unit), and inside a project the files that took longest last time, or, in a fresh clone
 * with no results cache, the largest files. In a fresh clone that put the README test (80 s of
 * one worker, a small file) near the middle of the run and could leave it running alone at the
 * end. Here the projects whose files spawn child processes come first, then the projects with the
 * heaviest files; inside a project, files known to be long come first when there is no result
 * from an earlier run. Files of one project stay together, so a worker of a project that shares
 * its process between files (`isolate: false`) is handed the next file of that project.
 *
 * The `cluster` files are the exception: they run beside the others (three server processes
 * that mostly wait on leases, kills and drains, which leaves CPU for the other worker), so they
 * are spread through the queue instead (`spread`), the first one at the start.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { spreadFiles } from "./spread";

/** Projects in the order they are handed out; a project not listed goes last. */
const PROJECT_ORDER = [
  "packaging",
  "integration",
  "lowest-int",
  "unit",
  "lowest",
  "pure",
  "lowest-pure",
];

/**
 * Files that take a worker far longer than the others (docs/development.md, "How long the suite
 * takes"), started first when no earlier run has timed them. A file missing here only runs later.
 */
const KNOWN_LONG = [
  "test/integration/readme/readme-snippets.process.test.ts",
  "test/integration/langgraph/bounded-reads.int.test.ts",
  "test/integration/langgraph/model-based.int.test.ts",
  "test/integration/packaging/without-langchain.process.test.ts",
  "test/integration/reliability/timeouts.process.test.ts",
  "test/integration/examples.process.test.ts",
  "test/integration/packaging/publint-attw.process.test.ts",
];

/**
 * Projects whose files run beside the other projects' files, spread through the queue rather
 * than together (test/setup/spread.ts).
 */
const SPREAD_PROJECTS = ["cluster"];

/**
 * Seconds a file takes on 2 quiet cores, when no earlier run has timed it (vitest's results
 * cache is empty in a fresh clone): the cluster files, and a floor for every other file. The
 * floor is low on purpose: the longer the other files are thought to be, the sooner the next
 * cluster file is queued, and the likelier it is to wait for the one before it (the lock in
 * test/cluster/one-at-a-time.ts), holding a worker meanwhile.
 */
const ESTIMATED_SECONDS: Record<string, number> = {
  "test/cluster/coordination.cluster.test.ts": 30,
  "test/cluster/model-based.cluster.test.ts": 28,
  "test/cluster/shared-runs.cluster.test.ts": 18,
  "test/cluster/smoke.cluster.test.ts": 8,
};
const SPREAD_DEFAULT_SECONDS = 5;
const OTHER_FLOOR_SECONDS = 0.5;
const KNOWN_LONG_FLOOR_SECONDS = 10;

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    const root = this.ctx.config.root;
    const projectRank = (spec: TestSpecification): number => {
      const rank = PROJECT_ORDER.indexOf(spec.project.name);
      return rank === -1 ? PROJECT_ORDER.length : rank;
    };
    const longRank = (spec: TestSpecification): number => {
      const file = relative(root, spec.moduleId).replaceAll("\\", "/");
      if (this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`))
        return KNOWN_LONG.length;
      const rank = KNOWN_LONG.indexOf(file);
      return rank === -1 ? KNOWN_LONG.length : rank;
    };
    const ordered = [...sorted].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        projectRank(a) - projectRank(b) ||
        longRank(a) - longRank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
    return this.spread(ordered);
  }

  /** What a file is expected to take, in seconds: its last duration, else an estimate. */
  private seconds(spec: TestSpecification): number {
    const file = relative(this.ctx.config.root, spec.moduleId).replaceAll("\\", "/");
    const last = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
    if (last && last.duration > 0) return last.duration / 1000;
    if (SPREAD_PROJECTS.includes(spec.project.name)) {
      return ESTIMATED_SECONDS[file] ?? SPREAD_DEFAULT_SECONDS;
    }
    return KNOWN_LONG.includes(file) ? KNOWN_LONG_FLOOR_SECONDS : OTHER_FLOOR_SECONDS;
  }

  /** The spread projects' files placed among the other files of their group (`spreadFiles`). */
  private spread(ordered: TestSpecification[]): TestSpecification[] {
    const groups = new Map<number, TestSpecification[]>();
    for (const spec of ordered) {
      const order = spec.project.config.sequence.groupOrder;
      const group = groups.get(order) ?? [];
      group.push(spec);
      groups.set(order, group);
    }
    return [...groups.values()].flatMap((group) =>
      spreadFiles(
        group,
        (spec) => SPREAD_PROJECTS.includes(spec.project.name),
        (spec) => this.seconds(spec),
      ),
    );
  }
}
