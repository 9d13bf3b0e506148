/**
 * A browser: the scenario bundled with esbuild for `--platform=browser` must build with zero
 * errors and import no Node built-in, then run in headless Chromium against the emulator. The
 * Chromium is the `@sparticuz/chromium` devDependency (see chromium.ts), so `npm ci` is all a
 * machine needs; the page runs wherever the package ships its binary, Linux x64, CI included.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BundleReport, bundleForWeb, describeBundle } from "./bundle";
import { CHROMIUM_PLATFORM, chromiumShipped, runInChromium } from "./chromium";
import { chromiumPackageVersion } from "./chromium-unpack";
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

/** The Chromium major the pinned package ships: `@sparticuz/chromium` 153.0.0 is Chromium 153. */
function shippedChromiumMajor(): string {
  const version = chromiumPackageVersion();
  return version.split(".")[0] ?? version;
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

if (chromiumShipped()) {
  scenarioSuite(
    "chromium",
    async ({ apiKey, baseUrl }) => {
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
    },
    { version: `HeadlessChrome/${shippedChromiumMajor()}.` },
  );
} else {
  it.skip(`headless chromium: NOT RUN on ${process.platform}-${process.arch}; @sparticuz/chromium ships a ${CHROMIUM_PLATFORM} binary only, so the page runs on ${CHROMIUM_PLATFORM} (CI) and this machine checks the bundle alone`, () => {});
}
