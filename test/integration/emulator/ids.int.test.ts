/**
 * Ids never repeat (issue 20.7): a client may cache an id across an emulator's reset() or restart,
 * and must then get a 404, never another session's thread, message or assistant.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Assistant, Thread, ThreadMessage } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { call, studio } from "./http";

const running: EmulatorHandle[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function start(dataFile?: string): Promise<EmulatorHandle> {
  const handle = await startEmulator({ port: 0, ...(dataFile ? { dataFile } : {}) });
  running.push(handle);
  return handle;
}

/** One of each kind of id: a thread, its first message, an added message, an assistant. */
async function issueIds(handle: EmulatorHandle): Promise<string[]> {
  const thread = (
    await studio<Thread & { id: string }>(handle, "POST", PATHS.threads, {
      messages: [{ role: "user", content: "hi" }],
    })
  ).body;
  const added = (
    await studio<ThreadMessage>(handle, "POST", PATHS.messages(thread.id), {
      role: "assistant",
      content: "hello",
    })
  ).body;
  const first = (
    await studio<{ data: ThreadMessage[] }>(handle, "GET", `${PATHS.messages(thread.id)}?order=asc`)
  ).body.data[0]!;
  const assistant = (
    await studio<Assistant>(handle, "POST", PATHS.assistants, { assistantName: "A" })
  ).body;
  return [thread.id, first.id, added.id, assistant.id];
}

async function toolCallId(handle: EmulatorHandle): Promise<string> {
  const reply = await call<{ choices: { message: { tool_calls: { id: string }[] } }[] }>(
    "POST",
    `${handle.proxyUrl}${PATHS.chatCompletions}`,
    {
      body: {
        model: "studio/echo-small",
        tools: [{ type: "function", function: { name: "f" } }],
        messages: [{ role: "user", content: "call f" }],
      },
      headers: { authorization: handle.apiKey },
    },
  );
  return reply.body.choices[0]!.message.tool_calls[0]!.id;
}

describe("ids", () => {
  it("after reset() no id repeats one issued before it, and old ids are 404s", async () => {
    const handle = await start();
    const before = [...(await issueIds(handle)), await toolCallId(handle)];
    await handle.reset();
    const after = [...(await issueIds(handle)), await toolCallId(handle)];
    expect(after.filter((id) => before.includes(id))).toEqual([]);
    expect((await studio(handle, "GET", PATHS.thread(before[0]!))).status).toBe(404);
    expect((await studio(handle, "GET", PATHS.assistant(before[3]!))).status).toBe(404);
  });

  it("with a data file, no id after a restart repeats one issued before, deleted or reset ones included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "studio-ids-"));
    dirs.push(dir);
    const file = join(dir, "emulator.json");
    const issued: string[] = [];

    const first = await start(file);
    const deleted = await issueIds(first);
    issued.push(...deleted);
    await studio(first, "DELETE", PATHS.thread(deleted[0]!));
    await studio(first, "DELETE", PATHS.assistant(deleted[3]!));
    issued.push(...(await issueIds(first)));
    await first.reset();
    issued.push(...(await issueIds(first)));
    await first.reset();
    await first.close();

    const second = await start(file);
    const later = await issueIds(second);
    expect(later.filter((id) => issued.includes(id))).toEqual([]);
    // Creation order is still id order across the restart, so listings keep it.
    expect(later[0]! > issued.at(-4)!).toBe(true);
  });
});
