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
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

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
    return [...sorted].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        projectRank(a) - projectRank(b) ||
        longRank(a) - longRank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
