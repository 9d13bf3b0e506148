import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATA_FORMAT, DATA_VERSION, openStore } from "../../../src/emulator/persistence";
import { createRng } from "../../../src/emulator/rng";
import type { NewMessage, NewThread, Store } from "../../../src/emulator/store";

let dir: string;
let file: string;
const open: { path: string; shutdown(): void }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "studio-data-file-"));
  file = join(dir, "data.jsonl");
});
afterEach(async () => {
  for (const dataFile of open.splice(0)) dataFile.shutdown();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Opens the data file as a restarted emulator does: an emulator still holding it closes first (the
 * file is locked to one emulator at a time, see data-file-lock.test.ts).
 */
async function reopen(path = file): Promise<Store> {
  for (const held of open.filter((d) => d.path === resolve(path))) {
    held.shutdown();
    open.splice(open.indexOf(held), 1);
  }
  const { store, dataFile } = await openStore(path, createRng(1));
  open.push(dataFile);
  return store;
}

const thread = (title: string): NewThread => ({ metadata: {}, title, toolResources: {} });
const message = (text: string): NewMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  attachments: [],
  assistantId: null,
  runId: null,
  metadata: {},
});

async function lines(): Promise<string[]> {
  return (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
}

describe("data file", () => {
  it("appends one line per change after the snapshot line", async () => {
    const store = await reopen();
    const t = store.createThread(thread("a"), [message("one")]);
    store.addMessage(t.id, message("two"));
    store.deleteThread(t.id);
    const written = await lines();
    expect(JSON.parse(written[0]!)).toMatchObject({
      format: DATA_FORMAT,
      version: DATA_VERSION,
      threads: [],
    });
    expect(written.slice(1).map((line) => JSON.parse(line).op)).toEqual([
      "createThread",
      "addMessage",
      "deleteThread",
    ]);
  });

  it("compacts the log into one snapshot line once it outgrows the snapshot, same state", async () => {
    const store = await reopen();
    const kept = store.createThread(thread("kept"), []);
    for (let i = 0; i < 1_100; i++) {
      const t = store.createThread(thread(`t${i}`), [message(`m${i}`)]);
      if (i % 2 === 0) store.deleteThread(t.id);
    }
    store.addMessage(kept.id, message("last"));
    // Far fewer lines than the 1,651 changes made: the log was folded into a snapshot on the way.
    expect((await lines()).length).toBeLessThan(1_000);
    // No temporary file is left behind; the lock is there while the file is open.
    expect(await readdir(dir)).toEqual(["data.jsonl", "data.jsonl.lock"]);

    const back = await reopen();
    expect(back.snapshot()).toEqual(store.snapshot());
    expect(back.threads.size).toBe(551);
  });

  it("drops a last line cut short by a crash, keeps every change before it, and repairs the file", async () => {
    const store = await reopen();
    const first = store.createThread(thread("first"), []);
    const second = store.createThread(thread("second"), [message("kept")]);
    open.pop()?.shutdown();
    await appendFile(file, '{"op":"createThread","thread":{"id":"thread_0000');

    const back = await reopen();
    expect(back.threads.all().map((t) => t.id)).toEqual([first.id, second.id]);
    expect(
      back
        .messages(second.id)
        ?.all()
        .map((m) => m.content[0]?.text),
    ).toEqual(["kept"]);
    // The next change rewrites the file first, so it does not land after the cut line.
    const third = back.createThread(thread("third"), []);
    const again = await reopen();
    expect(again.threads.all().map((t) => t.id)).toEqual([first.id, second.id, third.id]);
  });

  it("refuses a damaged line that is not the last one, naming it", async () => {
    const store = await reopen();
    store.createThread(thread("a"), []);
    store.createThread(thread("b"), []);
    const written = await lines();
    await writeFile(file, `${[written[0], "{oops", written[2]].join("\n")}\n`);
    await expect(reopen()).rejects.toThrow(/not valid JSON at line 2/);
    await writeFile(file, `${[written[0], '{"op":"deleteThread"}', written[2]].join("\n")}\n`);
    await expect(reopen()).rejects.toThrow(/not emulator data at line 2, id/);
  });

  it("reads a version 1 file (one snapshot, no newline) and rewrites it before appending", async () => {
    const id = "thread_0000000007abcdefghijkl";
    await writeFile(
      file,
      JSON.stringify({
        format: DATA_FORMAT,
        version: 1,
        seq: 7,
        threads: [{ id, object: "thread", createdAt: "2024-01-01T00:00:00.000Z", metadata: {} }],
        messages: [],
        assistants: [],
      }),
    );
    const store = await reopen();
    expect(store.threads.get(id)).toBeDefined();
    const newer = store.createThread(thread("newer"), []);
    expect(newer.id > id).toBe(true);
    expect(JSON.parse((await lines())[0]!).version).toBe(DATA_VERSION);
    expect((await reopen()).threads.all().map((t) => t.id)).toEqual([id, newer.id]);
  });

  it("a change the file cannot take is refused and not applied", async () => {
    const nested = join(dir, "gone", "data.jsonl");
    const store = await reopen(nested);
    await rm(join(dir, "gone"), { recursive: true });
    expect(() => store.createThread(thread("lost"), [])).toThrow(
      /could not be written .*the change was not stored\. Check that the file's folder exists, is writable and has space\./,
    );
    expect(store.threads.size).toBe(0);
  });
});
