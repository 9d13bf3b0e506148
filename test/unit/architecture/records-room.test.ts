/**
 * The record layer (src/records/) sits below every room that stores: the checkpointer, the store,
 * the history, the agent server and the threads room import it, never the other way round, so a
 * stored kind's format is decided in one place and a room cannot reach another's records.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const RECORDS = join(import.meta.dirname, "../../../src/records");
/** What the record layer may import: the wire types, the errors, its own files, zod (and its locale). */
const ALLOWED = [
  /^\.\//,
  /^\.\.\/api-types$/,
  /^\.\.\/zod-locale$/,
  /^\.\.\/errors(\/[a-z-]+)?$/,
  /^zod\/v4\/mini$/,
];

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

describe("src/records", () => {
  it("imports only the wire types, the errors and zod", () => {
    const files = readdirSync(RECORDS).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    const outside = files.flatMap((name) =>
      importsOf(join(RECORDS, name))
        .filter((spec) => !ALLOWED.some((allowed) => allowed.test(spec)))
        .map((spec) => `${name} → ${spec}`),
    );
    expect(outside).toEqual([]);
  });
});
