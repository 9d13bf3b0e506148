/**
 * Where the suite's Chromium lives, and unpacking it there once (#36).
 *
 * `@sparticuz/chromium`'s `executablePath()` unpacks into `$TMPDIR` and trusts whatever it finds
 * at `$TMPDIR/chromium`. Two test files calling it at once on a machine with no Chromium yet both
 * write the binary, and one of them spawns it half-written (`spawn ETXTBSY`); a Chromium another
 * project left there, of another version, is used as if it were ours. So the runtimes project's
 * global setup (chromium-setup.ts) unpacks it once into a directory of the suite's own named after
 * the package version, and the tests launch what is there (awaiting `unpackChromium()`, which
 * returns at once when it is).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../helpers/run-command";

const PACKAGE_DIR = join(REPO_ROOT, "node_modules", "@sparticuz", "chromium");

/** The installed `@sparticuz/chromium` version (its exports map hides package.json). */
export function chromiumPackageVersion(): string {
  const manifest = join(PACKAGE_DIR, "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/**
 * The suite's own Chromium directory. Under node_modules/.cache so that `npm ci` (which empties
 * node_modules) takes it away with the package it came from; named by version so that an upgrade
 * never launches the old binary.
 */
export function chromiumDir(): string {
  return join(
    REPO_ROOT,
    "node_modules",
    ".cache",
    "langchain-studio",
    `chromium-${chromiumPackageVersion()}`,
  );
}

/** The binary the tests launch; throws, naming the setup, when it has not been unpacked. */
export function chromiumExecutable(): string {
  const executable = join(chromiumDir(), "chromium");
  if (!existsSync(executable)) {
    throw new Error(
      `No Chromium at ${executable}: the runtimes project's globalSetup ` +
        "(test/runtimes/chromium-setup.ts) unpacks it; run these files with --project runtimes.",
    );
  }
  return executable;
}

/** Runs the package's own unpacking in a child process whose TMPDIR is `into`. */
function unpackWithPackage(into: string): Promise<void> {
  const script =
    'import("@sparticuz/chromium").then((c) => c.default.executablePath())' +
    ".then((path) => process.stdout.write(path))";
  return new Promise((resolve, reject) => {
    // TMPDIR only for this child, so the vitest process and its workers keep the real one.
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      env: { ...process.env, TMPDIR: into },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && output === join(into, "chromium")) resolve();
      else reject(new Error(`@sparticuz/chromium did not unpack into ${into}: ${output}`));
    });
  });
}

/**
 * Unpacks Chromium into `chromiumDir()` unless it is there, and returns the binary's path. The
 * files are written into a fresh directory beside it and moved into place by one rename, so a
 * process that finds the directory finds it whole; when two suites race, the first rename wins
 * and the other's copy is dropped.
 */
export async function unpackChromium(): Promise<string> {
  const dir = chromiumDir();
  if (!existsSync(join(dir, "chromium"))) {
    await mkdir(dirname(dir), { recursive: true });
    const staging = await mkdtemp(`${dir}.partial-`);
    try {
      await unpackWithPackage(staging);
      await rename(staging, dir).catch((error: NodeJS.ErrnoException) => {
        // Another run moved its copy into place first: use that one.
        if (!existsSync(join(dir, "chromium"))) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  return chromiumExecutable();
}
