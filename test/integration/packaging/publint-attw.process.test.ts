/**
 * The package checks `npm run check:package` makes, in the packaging project so they run beside
 * the other tests rather than before all of them: publint (strict) on package.json and the files
 * it names, and "Are the types wrong?" on the packed tarball (node16 profile: ESM and CommonJS
 * consumers both get declarations that match the code they load). Needs `npm run build` first.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeRun, REPO_ROOT, runCommand } from "../../helpers/run-command";

const bin = (name: string) => path.join(REPO_ROOT, "node_modules", ".bin", name);

describe("package checks", () => {
  it("publint --strict finds nothing", async () => {
    const result = await runCommand(bin("publint"), ["--strict"], {
      env: process.env,
      timeoutMs: 60_000,
    });
    expect(result.code, describeRun(result)).toBe(0);
  });

  it("attw --pack (node16 profile) finds no problem", async () => {
    const result = await runCommand(bin("attw"), ["--pack", ".", "--profile", "node16"], {
      env: process.env,
      timeoutMs: 110_000,
    });
    expect(result.code, describeRun(result)).toBe(0);
  });
});
