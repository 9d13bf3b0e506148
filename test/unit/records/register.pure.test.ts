/**
 * docs/storage.md is the register of what the package stores: every kind the record layer knows
 * (its own list, not one kept here) has a section there and a row in the table of kinds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RECORD_KINDS } from "../../../src/records/kinds";

const register = readFileSync(join(import.meta.dirname, "../../../docs/storage.md"), "utf8");

describe("docs/storage.md", () => {
  it.each(RECORD_KINDS.map((kind) => kind.name))("registers the kind %s", (name) => {
    expect(register).toContain(`\n### \`${name}\`\n`);
    expect(register).toContain(`\n| \`${name}\` |`);
  });

  it("states the compatibility rule and names the upgrade error", () => {
    expect(register).toContain("Every format ever written stays readable, for ever.");
    expect(register).toContain("StudioStoredFormatError");
  });
});
