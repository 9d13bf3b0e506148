/**
 * Every line of src/ fits in 100 columns (issue #33). Biome's formatter keeps code within its
 * lineWidth but cannot wrap a long string literal or comment, which is where error texts grew past
 * it; this test catches those. A long text is split into `"..." + "..."` pieces, words unchanged.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../../src");
const MAX_COLUMNS = 100;

/**
 * Paths (relative to src/, a trailing "/" for a whole folder) not checked yet: another branch was
 * rewriting them while the rest was brought within the limit. Empty this list once it is merged.
 */
const NOT_YET_CHECKED: readonly string[] = [
  "server/",
  "crypto/",
  "langgraph/saver.ts",
  "langgraph/saver-config.ts",
  "store/store.ts",
  "store/fields.ts",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

function isExempt(path: string): boolean {
  return NOT_YET_CHECKED.some((entry) =>
    entry.endsWith("/") ? path.startsWith(entry) : path === entry,
  );
}

const files = sourceFiles(SRC).map((file) => relative(SRC, file).split("\\").join("/"));

describe("source line width", () => {
  it(`keeps every line of src/**/*.ts within ${MAX_COLUMNS} columns`, () => {
    const offending: string[] = [];
    for (const path of files) {
      if (isExempt(path)) continue;
      const lines = readFileSync(join(SRC, path), "utf8").split(/\r?\n/);
      lines.forEach((line, index) => {
        // Columns are characters as an editor shows them, not UTF-16 units or bytes.
        const columns = [...line].length;
        if (columns > MAX_COLUMNS) offending.push(`src/${path}:${index + 1} (${columns} columns)`);
      });
    }
    expect(offending, `lines over ${MAX_COLUMNS} columns:\n${offending.join("\n")}`).toEqual([]);
  });

  it("names only paths that exist in the list of paths not checked yet", () => {
    const stale = NOT_YET_CHECKED.filter(
      (entry) =>
        !files.some((path) => (entry.endsWith("/") ? path.startsWith(entry) : path === entry)),
    );
    expect(stale).toEqual([]);
  });
});
