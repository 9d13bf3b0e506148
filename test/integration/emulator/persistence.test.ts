import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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

  it("close() flushes mutations made just before it; no temporary file is left", async () => {
    const handle = await start();
    const writes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        studio<Thread>(handle, "POST", PATHS.threads, { title: `t${i}` }),
      ),
    );
    await handle.close();
    expect(await readdir(join(dir, "state"))).toEqual(["emulator.json"]);
    const saved = JSON.parse(await readFile(file, "utf8")) as { threads: Thread[] };
    expect(saved.threads.map((t) => t.id).sort()).toEqual(writes.map((w) => w.body.id).sort());
  });

  it("the file is complete JSON at every moment while writes go on", async () => {
    const handle = await start();
    await studio(handle, "POST", PATHS.threads, {});
    await handle.close();
    const again = await start();
    let reads = 0;
    const writer = (async () => {
      for (let i = 0; i < 40; i++) {
        await studio(again, "POST", PATHS.threads, { metadata: { big: "x".repeat(500) } });
      }
    })();
    let writing = true;
    void writer.finally(() => {
      writing = false;
    });
    const deadline = Date.now() + 10_000;
    while (writing && Date.now() < deadline) {
      JSON.parse(await readFile(file, "utf8"));
      reads += 1;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });

  it("reset() empties the saved state too", async () => {
    const handle = await start();
    await studio(handle, "POST", PATHS.threads, {});
    await handle.reset();
    await handle.close();
    const saved = JSON.parse(await readFile(file, "utf8")) as { threads: unknown[] };
    expect(saved.threads).toEqual([]);
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
