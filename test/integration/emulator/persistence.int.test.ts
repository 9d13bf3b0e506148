import { appendFile, copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Assistant, ListResponse, Thread, ThreadMessage } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { studio } from "./http";

let dir: string;
let file: string;
const running: EmulatorHandle[] = [];

async function start(): Promise<EmulatorHandle> {
  const handle = await startEmulator({ port: 0, dataFile: file });
  running.push(handle);
  return handle;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "studio-emulator-"));
  file = join(dir, "state", "emulator.json");
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

/** Every list call walked to its end (pages of 100), by id. */
async function listAll<T extends { id: string }>(handle: EmulatorHandle, path: string) {
  const items: T[] = [];
  for (let after = ""; ; ) {
    const page = await studio<ListResponse<T>>(
      handle,
      "GET",
      `${path}?order=asc&limit=100${after ? `&after=${after}` : ""}`,
    );
    items.push(...page.body.data);
    if (!page.body.hasMore) return items;
    after = page.body.lastId!;
  }
}

/** The whole state as a client sees it: threads with their messages, and assistants. */
async function everything(handle: EmulatorHandle) {
  const threads = await listAll<Thread>(handle, PATHS.threads);
  return {
    threads: await Promise.all(
      threads.map(async (thread) => ({
        thread,
        messages: await listAll<ThreadMessage>(handle, PATHS.messages(thread.id)),
      })),
    ),
    assistants: await listAll<Assistant>(handle, PATHS.assistants),
  };
}

describe("persistence", () => {
  it("keeps a metadata key named __proto__ across a restart (issue 13.16)", async () => {
    const first = await start();
    const raw = '{"__proto__":"p","k":"v"}';
    const created = await studio<Thread>(first, "POST", PATHS.threads, {
      messages: [{ role: "system", content: "s" }],
    });
    // JSON.parse gives an own "__proto__" key, as a server reading the wire would.
    const thread = (
      await studio<Thread>(first, "POST", PATHS.threads, JSON.parse(`{"metadata":${raw}}`))
    ).body;
    await first.close();

    const second = await start();
    const back = await studio<Thread>(second, "GET", PATHS.thread(thread.id));
    expect(back.text).toContain(`"metadata":${raw}`);
    const system = await studio<ListResponse<ThreadMessage>>(
      second,
      "GET",
      `${PATHS.messages(created.body.id)}?order=asc`,
    );
    expect(system.body.data.map((m) => m.role)).toEqual(["system"]);
  });

  it("keeps threads, messages and assistants across a restart", async () => {
    const first = await start();
    const thread = (
      await studio<Thread>(first, "POST", PATHS.threads, {
        title: "kept",
        datasetId: "ds",
        messages: [{ role: "user", content: "one" }],
      })
    ).body;
    await studio(first, "POST", PATHS.messages(thread.id), { role: "assistant", content: "two" });
    const assistant = (
      await studio<Assistant>(first, "POST", PATHS.assistants, { assistantName: "A" })
    ).body;
    await first.close();

    const second = await start();
    expect((await studio<Thread>(second, "GET", PATHS.thread(thread.id))).body).toEqual(thread);
    const messages = await studio<ListResponse<ThreadMessage>>(
      second,
      "GET",
      `${PATHS.messages(thread.id)}?order=asc`,
    );
    expect(messages.body.data.map((m) => m.content[0]!.text)).toEqual(["one", "two"]);
    expect((await studio<Assistant>(second, "GET", PATHS.assistant(assistant.id))).body).toEqual(
      assistant,
    );

    // New ids still sort after the restored ones, so listings keep creation order.
    const newer = (await studio<Thread>(second, "POST", PATHS.threads, {})).body;
    const listed = await studio<ListResponse<Thread>>(second, "GET", `${PATHS.threads}?order=asc`);
    expect(listed.body.data.map((t) => t.id)).toEqual([thread.id, newer.id]);
  });

  it("every confirmed change is in the file, even when the process dies without close()", async () => {
    const handle = await start();
    const writes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        studio<Thread>(handle, "POST", PATHS.threads, { title: `t${i}` }),
      ),
    );
    // What a killed process leaves: the file as it is now, without the flush of close().
    await copyFile(file, join(dir, "killed.json"));
    await handle.close();
    expect(await readdir(join(dir, "state"))).toEqual(["emulator.json"]);
    const revived = await startEmulator({ port: 0, dataFile: join(dir, "killed.json") });
    running.push(revived);
    expect((await listAll<Thread>(revived, PATHS.threads)).map((t) => t.id)).toEqual(
      writes.map((w) => w.body.id).sort(),
    );
  });

  it("reads back every kind of change after a restart, before and after a compaction", async () => {
    const first = await start();
    const kept = (
      await studio<Thread>(first, "POST", PATHS.threads, {
        title: "kept",
        metadata: { k: "v" },
        messages: [
          { role: "user", content: "one" },
          { role: "assistant", content: "two" },
        ],
      })
    ).body;
    const gone = (await studio<Thread>(first, "POST", PATHS.threads, { title: "gone" })).body;
    const added = (
      await studio<ThreadMessage>(first, "POST", PATHS.messages(kept.id), {
        role: "user",
        content: [{ type: "text", text: "three" }],
      })
    ).body;
    const listed = await listAll<ThreadMessage>(first, PATHS.messages(kept.id));
    await studio(first, "DELETE", PATHS.message(kept.id, listed[1]!.id));
    await studio(first, "DELETE", PATHS.thread(gone.id));
    const assistants = await Promise.all(
      ["A", "B"].map(
        async (name) =>
          (await studio<Assistant>(first, "POST", PATHS.assistants, { assistantName: name })).body,
      ),
    );
    await studio(first, "DELETE", PATHS.assistant(assistants[0]!.id));
    const before = await everything(first);
    expect(before.threads.map((t) => t.thread.id)).toEqual([kept.id]);
    expect(before.threads[0]!.messages.map((m) => m.content[0]!.text)).toEqual(["one", "three"]);
    expect(before.threads[0]!.messages[1]).toEqual(added);
    expect(before.assistants).toEqual([assistants[1]]);
    await first.close();

    const second = await start();
    expect(await everything(second)).toEqual(before);
    // More changes than a compaction waits for (1,000, the snapshot being small): the log is
    // folded into a new snapshot on the way.
    for (let i = 0; i < 55; i++) {
      const churn = await Promise.all(
        Array.from({ length: 10 }, () => studio<Thread>(second, "POST", PATHS.threads, {})),
      );
      await Promise.all(churn.map((t) => studio(second, "DELETE", PATHS.thread(t.body.id))));
    }
    await studio(second, "POST", PATHS.messages(kept.id), { role: "user", content: "four" });
    const after = await everything(second);
    await second.close();
    expect((await readFile(file, "utf8")).split("\n").length).toBeLessThan(500);

    const third = await start();
    expect(await everything(third)).toEqual(after);
  });

  it("a copy of the file taken at any moment while writes go on loads, with every write before it", async () => {
    const handle = await start();
    const written: string[] = [];
    const writer = (async () => {
      for (let i = 0; i < 40; i++) {
        const reply = await studio<Thread>(handle, "POST", PATHS.threads, {
          metadata: { big: "x".repeat(500) },
        });
        written.push(reply.body.id);
      }
    })();
    let writing = true;
    void writer.finally(() => {
      writing = false;
    });
    let copies = 0;
    const deadline = Date.now() + 10_000;
    while (writing && Date.now() < deadline) {
      const confirmed = [...written];
      const copy = join(dir, `copy-${copies++}.json`);
      await writeFile(copy, await readFile(file).catch(() => ""));
      if ((await readFile(copy)).length === 0) continue;
      const revived = await startEmulator({ port: 0, dataFile: copy });
      const ids = (await listAll<Thread>(revived, PATHS.threads)).map((t) => t.id);
      await revived.close();
      expect(ids.slice(0, confirmed.length)).toEqual(confirmed);
    }
    await writer;
    expect(copies).toBeGreaterThan(0);
  });

  it("a last line cut short by a crash is dropped; every change before it is kept", async () => {
    const first = await start();
    await studio(first, "POST", PATHS.threads, { messages: [{ role: "user", content: "a" }] });
    await studio(first, "POST", PATHS.threads, { title: "b" });
    const before = await everything(first);
    await first.close();
    await appendFile(file, '{"op":"createThread","thread":{"id":"thread_00000000');

    const second = await start();
    expect(await everything(second)).toEqual(before);
    const newer = (await studio<Thread>(second, "POST", PATHS.threads, { title: "c" })).body;
    const after = await everything(second);
    expect(after.threads.map((t) => t.thread.id).at(-1)).toBe(newer.id);
    await second.close();
    expect(await everything(await start())).toEqual(after);
  });

  it("reset() empties the saved state too, and leaves a one-line file", async () => {
    const handle = await start();
    await studio(handle, "POST", PATHS.threads, {});
    await handle.reset();
    await handle.close();
    expect((await readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(1);
    expect(await everything(await start())).toEqual({ threads: [], assistants: [] });
  });

  it.each([
    ["not JSON", "{ this is not json", /not valid JSON/],
    ["empty", "", /not valid JSON/],
    ["another program's JSON", JSON.stringify({ hello: "world" }), /not emulator data/],
    [
      "a bad record",
      JSON.stringify({
        format: "langchain-studio-emulator",
        version: 1,
        seq: 1,
        threads: [{ id: 5 }],
        messages: [],
        assistants: [],
      }),
      /not emulator data at threads\.0\.id/,
    ],
  ])(
    "refuses a corrupt file (%s) with a clear error and leaves it untouched",
    async (_name, content, reason) => {
      await start().then((h) => h.close());
      await writeFile(file, content);
      const error = await startEmulator({ port: 0, dataFile: file }).then(
        (h) => {
          running.push(h);
          return undefined;
        },
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toContain(file);
      expect(error!.message).toMatch(reason);
      expect(error!.message).toMatch(/left untouched/);
      expect(await readFile(file, "utf8")).toBe(content);
    },
  );
});
