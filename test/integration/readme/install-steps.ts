/**
 * Follows README's install steps as a newcomer types them: `mkdir`, `cd` and `npm` commands, one
 * line at a time (`&&` chains included, `#` comments dropped). Any other command fails the test
 * rather than being skipped, so the steps README shows are exactly the steps tested.
 *
 * Two changes to what the user types, both to install the very versions the repository tests,
 * from the npm cache that `npm ci` filled: each package named bare gets the version installed in
 * the repository (the lock file's), and the app's package.json gets the repository's `overrides`
 * (the lock file pins `@langchain/langgraph-sdk`, whose newer releases ask for a newer
 * `@langchain/core`). `--prefer-offline` takes every package the cache holds without asking the
 * registry; what the cache lacks (package metadata after a fresh `npm ci`) comes from the
 * registry, which CI reaches. About 10 s with a cold cache, 5 s warm.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describeRun, REPO_ROOT, runCommand } from "../../helpers/run-command";

const NPM_TIMEOUT_MS = 150_000;
const BARE_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/;

function repoVersionOf(name: string): string {
  const manifest = path.join(REPO_ROOT, "node_modules", name, "package.json");
  if (!existsSync(manifest)) {
    throw new Error(
      `README installs ${name}, which the repository does not: add it to devDependencies so the README test installs the version the repository tests.`,
    );
  }
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

async function addRepoOverrides(appDir: string): Promise<void> {
  const file = path.join(appDir, "package.json");
  if (!existsSync(file)) return;
  const repo = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    overrides?: Record<string, string>;
  };
  const app = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  await writeFile(
    file,
    `${JSON.stringify({ ...app, overrides: repo.overrides ?? {} }, null, 2)}\n`,
  );
}

async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  let argv = args;
  if (args[0] === "install" || args[0] === "i") {
    await addRepoOverrides(cwd);
    const specs = args
      .slice(1)
      .map((arg) => (BARE_NAME.test(arg) ? `${arg}@${repoVersionOf(arg)}` : arg));
    argv = ["install", ...specs, "--prefer-offline", "--no-audit", "--no-fund"];
  }
  const result = await runCommand("npm", argv, { cwd, env, timeoutMs: NPM_TIMEOUT_MS });
  if (result.code !== 0) {
    throw new Error(
      `README install step \`npm ${args.join(" ")}\` failed:\n${describeRun(result)}`,
    );
  }
}

/**
 * Runs the steps of `code` starting in `startDir` (where the user's shell is: the checkout that
 * holds the packed tarball) and returns the directory the steps end in: the app.
 */
export async function followInstallSteps(
  code: string,
  startDir: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  let cwd = startDir;
  for (const line of code.split("\n")) {
    const command = line.replace(/(^|\s)#.*$/, "").trim();
    if (command === "") continue;
    for (const step of command.split("&&").map((s) => s.trim())) {
      const [program, ...args] = step.split(/\s+/);
      if (program === "mkdir" && args.length === 1) {
        await mkdir(path.resolve(cwd, args[0]!), { recursive: true });
      } else if (program === "cd" && args.length === 1) {
        cwd = path.resolve(cwd, args[0]!);
      } else if (program === "npm") {
        await npm(args, cwd, env);
      } else {
        throw new Error(
          `README install step not understood: \`${step}\`. The README test follows mkdir, cd and npm commands; write the step with those, or teach test/integration/readme/install-steps.ts the new command.`,
        );
      }
    }
  }
  return cwd;
}
