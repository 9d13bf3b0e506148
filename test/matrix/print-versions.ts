/**
 * Says which LangChain and LangGraph versions a leg of the version matrix runs on, once per run:
 * the repository's node_modules for the projects of the newest leg, .matrix/lowest for `lowest`.
 * test/matrix/versions.test.ts checks that the test files really load those.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { MATRIX_PACKAGES } from "./packages";

export function installedVersion(nodeModules: string, name: string): string {
  const manifest = path.join(nodeModules, name, "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

export default function printVersions(project: TestProject): void {
  const root = project.config.root;
  const lowest = project.name === "lowest";
  const nodeModules = lowest
    ? path.join(root, ".matrix", "lowest", "node_modules")
    : path.join(root, "node_modules");
  const versions = MATRIX_PACKAGES.map((name) => `${name} ${installedVersion(nodeModules, name)}`);
  console.log(
    `version matrix, leg "${lowest ? "lowest" : "newest"}" (${lowest ? "project lowest" : "projects unit, integration, packaging, runtimes"}): ${versions.join(", ")}`,
  );
}
