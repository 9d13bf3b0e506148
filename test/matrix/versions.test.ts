/**
 * The version matrix resolves what it says (docs/compatibility.md): in the `lowest` project every
 * LangChain and LangGraph package a test imports is the one of test/matrix/lowest/package.json,
 * installed in .matrix/lowest; elsewhere it is the repository's own install (package-lock.json).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MATRIX_PACKAGES } from "./packages";
import { installedVersion } from "./print-versions";

const root = path.resolve(import.meta.dirname, "../..");
const lowest = process.env.MATRIX_LEG === "lowest";

function expectedVersion(name: string): string {
  if (lowest) {
    const manifest = JSON.parse(
      readFileSync(path.join(root, "test/matrix/lowest/package.json"), "utf8"),
    ) as { dependencies: Record<string, string> };
    return manifest.dependencies[name]!;
  }
  return installedVersion(path.join(root, "node_modules"), name);
}

describe(`version matrix, leg "${lowest ? "lowest" : "newest"}"`, () => {
  it.each(MATRIX_PACKAGES)("imports %s at the leg's version", async (name) => {
    const loaded = (await import(`${name}/package.json`, { with: { type: "json" } })) as {
      default: { version: string };
    };
    expect(loaded.default.version).toBe(expectedVersion(name));
  });
});
