/**
 * A browser: the scenario bundled with esbuild for `--platform=browser` must build with zero
 * errors and import no Node built-in. When Debian's `chromium` is installed the bundle then runs
 * in it headless against the emulator; otherwise the build check stands alone.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BundleReport, bundleForWeb, describeBundle } from "./bundle";
import { CHROMIUM_PATH, chromiumInstalled, runInChromium } from "./chromium";
import { RUNTIME_TIMEOUT_MS, scenarioSuite } from "./harness";

let workDir: string | undefined;
let bundled: Promise<BundleReport> | undefined;

/** The bundle, built once for both the build check and the browser run. */
function bundle(): Promise<BundleReport> {
  bundled ??= mkdtemp(join(tmpdir(), "studio-browser-")).then((dir) => {
    workDir = dir;
    return bundleForWeb("browser-entry.mjs", join(dir, "scenario.js"));
  });
  return bundled;
}

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("browser bundle (esbuild --platform=browser --bundle)", () => {
  it("builds with zero errors and no Node built-in left", async () => {
    const report = await bundle();
    expect(report.errors, describeBundle(report)).toEqual([]);
    expect(report.nodeBuiltins, describeBundle(report)).toEqual([]);
  });
});

if (chromiumInstalled()) {
  scenarioSuite("chromium", async ({ apiKey, baseUrl }) => {
    const report = await bundle();
    if (report.errors.length > 0) {
      return {
        result: {
          runtime: "chromium",
          loadError: { name: "BundleError", message: describeBundle(report) },
        },
        details: describeBundle(report),
        exitedOnItsOwn: true,
      };
    }
    return runInChromium(
      await readFile(report.outfile, "utf8"),
      { apiKey, baseUrl },
      RUNTIME_TIMEOUT_MS,
    );
  });
} else {
  it.skip(`headless chromium: ${CHROMIUM_PATH} is not installed, so only the build check runs`, () => {});
}
