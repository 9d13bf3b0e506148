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

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

const files = sourceFiles(SRC).map((file) => relative(SRC, file).split("\\").join("/"));

describe("source line width", () => {
  it(`keeps every line of src/**/*.ts within ${MAX_COLUMNS} columns`, () => {
    const offending: string[] = [];
    for (const path of files) {
      const lines = readFileSync(join(SRC, path), "utf8").split(/\r?\n/);
      lines.forEach((line, index) => {
        // Columns are characters as an editor shows them, not UTF-16 units or bytes.
        const columns = [...line].length;
        if (columns > MAX_COLUMNS) offending.push(`src/${path}:${index + 1} (${columns} columns)`);
      });
    }
    expect(offending, `lines over ${MAX_COLUMNS} columns:\n${offending.join("\n")}`).toEqual([]);
  });
});
