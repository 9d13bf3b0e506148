#!/usr/bin/env node
/**
 * The "lowest" leg of the version matrix (docs/compatibility.md): installs the LangChain and
 * LangGraph versions of test/matrix/lowest/package.json into .matrix/lowest/ (gitignored), where
 * the vitest project `lowest` resolves them from. The repository's own node_modules keeps the
 * newest versions (package-lock.json), so `npm test` runs the LangChain-touching suites on both.
 *
 * Installs only when the manifest changed since the last install, so a second `npm test` costs
 * nothing here. Needs the npm registry on a fresh clone (CI reaches it), like `npm ci`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const manifestFile = path.join(root, "test/matrix/lowest/package.json");
const dir = path.join(root, ".matrix/lowest");
const stampFile = path.join(dir, "installed-from.json");

const manifest = readFileSync(manifestFile, "utf8");
const upToDate =
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === manifest &&
  existsSync(path.join(dir, "node_modules"));

if (!upToDate) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), manifest);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  execFileSync(
    npm,
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock"],
    {
      cwd: dir,
      stdio: "inherit",
    },
  );
  writeFileSync(stampFile, manifest);
}

const wanted = JSON.parse(manifest).dependencies;
const installed = Object.keys(wanted).map((name) => {
  const version = JSON.parse(
    readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8"),
  ).version;
  if (version !== wanted[name]) {
    throw new Error(`.matrix/lowest has ${name} ${version}, the manifest asks for ${wanted[name]}`);
  }
  return `${name} ${version}`;
});
console.log(
  `matrix "lowest" ${upToDate ? "already installed" : "installed"}: ${installed.join(", ")}`,
);
