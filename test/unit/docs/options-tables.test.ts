/**
 * Each docs page's options table is what the schemas render (test/helpers/docs-options.ts): a
 * field added, renamed, described anew or given another default fails here until the page is
 * rewritten with the command the failure prints.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  describedIds,
  REGENERATE,
  renderTable,
  TABLES,
  tableOnPage,
} from "../../helpers/docs-options";
import { REPO_ROOT } from "../../helpers/run-command";

describe("docs options tables", () => {
  it.each(TABLES.map((spec) => [`${spec.page} (${spec.id})`, spec] as const))(
    "%s matches its schema",
    (_name, spec) => {
      const page = readFileSync(path.join(REPO_ROOT, spec.page), "utf8");
      const found = tableOnPage(page, spec.id);
      expect("problem" in found ? found.problem : undefined, `${spec.page}`).toBeUndefined();
      const onPage = "table" in found ? found.table : "";
      expect(
        onPage,
        `${spec.page}'s "${spec.id}" table differs from its schema: run \`${REGENERATE}\``,
      ).toBe(renderTable(spec));
    },
  );

  it("has a table for every schema whose fields are described", () => {
    const rendered = new Set(TABLES.map((spec) => spec.id));
    expect(describedIds().filter((id) => !rendered.has(id))).toEqual([]);
  });
});
