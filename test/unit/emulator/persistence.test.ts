import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Persister } from "../../../src/emulator/persistence";
import { DATA_FORMAT, DATA_VERSION, type Snapshot } from "../../../src/emulator/store";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "studio-persister-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function snapshotOf(seq: number): Snapshot {
  return {
    format: DATA_FORMAT,
    version: DATA_VERSION,
    seq,
    threads: [],
    messages: [],
    assistants: [],
  };
}

describe("Persister", () => {
  it("coalesces a burst of changes into few writes, and flush writes the latest state", async () => {
    const file = join(dir, "data.json");
    let seq = 0;
    let snapshots = 0;
    const persister = new Persister(file, () => {
      snapshots += 1;
      return snapshotOf(seq);
    });
    for (let i = 0; i < 500; i++) {
      seq = i;
      persister.markDirty();
    }
    await persister.flush();
    expect(snapshots).toBeLessThanOrEqual(2);
    expect(JSON.parse(await readFile(file, "utf8")).seq).toBe(499);
    expect(await readdir(dir)).toEqual(["data.json"]);
  });

  it("rejects flush when the file cannot be written, and reports the failure", async () => {
    const errors: unknown[] = [];
    const persister = new Persister(
      join(dir, "missing-dir", "data.json"),
      () => snapshotOf(1),
      (e) => errors.push(e),
    );
    persister.markDirty();
    await expect(persister.flush()).rejects.toThrow(/ENOENT/);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("flush with nothing pending does not write", async () => {
    const file = join(dir, "never.json");
    await new Persister(file, () => snapshotOf(1)).flush();
    expect(await readdir(dir)).toEqual([]);
  });
});
