/**
 * Every test file runs in exactly one vitest project (#33). The projects are chosen by file name
 * (test/projects.ts); a file that no project picks up would never run, and one that two projects
 * pick up would run twice with different settings. The files are listed with tinyglobby, the
 * globber vitest itself uses for `include`/`exclude`, so this sees what vitest will run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import {
  LOWEST_FILES,
  LOWEST_PROJECT_FILES,
  PROJECT_FILES,
  type ProjectFiles,
} from "../../projects";

const ROOT = join(import.meta.dirname, "../../..");

function filesOf({ include, exclude }: ProjectFiles): Set<string> {
  return new Set(globSync(include, { cwd: ROOT, ignore: exclude }));
}

/** Every file in the repository that vitest's default `include` would take for a test. */
function testFiles(): string[] {
  return globSync(["**/*.{test,spec}.?(c|m)[jt]s?(x)"], {
    cwd: ROOT,
    ignore: ["**/node_modules/**", "dist/**", ".matrix/**", ".git/**"],
  }).sort();
}

/** Each test file with the projects that pick it up. */
function membership(projects: Record<string, ProjectFiles>): Map<string, string[]> {
  const picked = Object.entries(projects).map(([name, files]) => [name, filesOf(files)] as const);
  return new Map(
    testFiles().map((file) => [
      file,
      picked.filter(([, files]) => files.has(file)).map(([name]) => name),
    ]),
  );
}

/** The files not in exactly one project, each with the projects it is in. */
function misplaced(projects: Map<string, string[]>): string[] {
  return [...projects]
    .filter(([, names]) => names.length !== 1)
    .map(([file, names]) => `${file}: ${names.length === 0 ? "no project" : names.join(", ")}`);
}

describe("test projects by file name", () => {
  const projects = membership(PROJECT_FILES);

  it("finds the suite's test files", () => {
    expect(projects.size).toBeGreaterThan(150);
  });

  it("puts every test file in exactly one project", () => {
    expect(misplaced(projects)).toEqual([]);
  });

  it("sorts by suffix: .pure, .int and .process files and test/runtimes/ go to their projects", () => {
    const projectOf = (file: string) => projects.get(file)?.join(", ");
    expect(projectOf("test/unit/client/retry.test.ts")).toBe("unit");
    expect(projectOf("test/unit/converters/messages.pure.test.ts")).toBe("pure");
    expect(projectOf("test/unit/store/store.int.test.ts")).toBe("integration");
    expect(projectOf("test/unit/client/options.process.test.ts")).toBe("packaging");
    expect(projectOf("test/runtimes/node.test.ts")).toBe("runtimes");
    expect(projectOf("test/cluster/smoke.cluster.test.ts")).toBe("cluster");
  });

  it("keeps test/integration/ for the emulator and child processes: no plain unit file there", () => {
    // A new file there named name.test.ts would run isolated with unit timeouts: rename it to
    // name.int.test.ts (it starts the emulator) or name.process.test.ts (a child process).
    const unitThere = [...projects]
      .filter(([file, names]) => file.startsWith("test/integration/") && names.includes("unit"))
      .map(([file]) => file);
    expect(unitThere).toEqual([]);
  });

  it("mocks no module in a project whose files share a worker process", () => {
    // vitest keeps a vi.mock registered for the rest of a shared worker (isolate: false): the
    // next file would import the mock. Spy on the export instead, or pass the dependency in.
    const mocking = [...projects]
      .filter(([, names]) => names.some((name) => name !== "runtimes"))
      .map(([file]) => file)
      .filter((file) =>
        /\bvi\s*\.\s*(mock|doMock)\s*\(/.test(readFileSync(join(ROOT, file), "utf8")),
      );
    expect(mocking).toEqual([]);
  });

  it("reports a file that no project or two projects pick up", () => {
    const sample = new Map([
      ["test/a.test.ts", ["unit"]],
      ["test/b.int.test.ts", []],
      ["test/runtimes/c.int.test.ts", ["integration", "runtimes"]],
    ]);
    expect(misplaced(sample)).toEqual([
      "test/b.int.test.ts: no project",
      "test/runtimes/c.int.test.ts: integration, runtimes",
    ]);
  });

  it("the lowest leg runs no child-process file and still covers its areas", () => {
    const lowest = [...filesOf(LOWEST_FILES)];
    expect(lowest.filter((file) => file.endsWith(".process.test.ts"))).toEqual([]);
    for (const area of ["chat_models", "llms", "langgraph", "store", "assistants"]) {
      expect(lowest.some((file) => file.startsWith(`test/unit/${area}/`))).toBe(true);
    }
    expect(lowest).toContain("test/matrix/versions.test.ts");
  });

  it("the lowest leg's three projects split its files, each file in exactly one", () => {
    const split = membership(LOWEST_PROJECT_FILES);
    const lowest = filesOf(LOWEST_FILES);
    expect([...split].filter(([, names]) => names.length > 0).map(([file]) => file)).toEqual(
      [...lowest].sort(),
    );
    expect(misplaced(new Map([...split].filter(([file]) => lowest.has(file))))).toEqual([]);
    expect(split.get("test/unit/langgraph/plans.pure.test.ts")).toEqual(["lowest-pure"]);
    expect(split.get("test/integration/langgraph/agent-memory.int.test.ts")).toEqual([
      "lowest-int",
    ]);
    expect(split.get("test/unit/store/store.int.test.ts")).toEqual(["lowest-int"]);
    expect(split.get("test/matrix/versions.test.ts")).toEqual(["lowest"]);
  });
});
