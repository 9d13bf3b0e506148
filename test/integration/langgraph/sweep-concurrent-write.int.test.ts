/**
 * `deleteThreads` / `sweep` and another process writing meanwhile: the threads are measured first
 * and deleted after, so a thread written between the two is measured again just before its
 * delete and kept.
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { beforeEach, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

const options = () => {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return { baseUrl, proxyUrl, apiKey };
};

async function putOne(s: StudioCheckpointSaver, thread: string) {
  const c = { ...emptyCheckpoint(), id: uuid6(-1) };
  c.channel_values = { x: "hello" };
  c.channel_versions = { x: s.getNextVersion(undefined) };
  const metadata = { source: "loop", step: 0, parents: {} } as never;
  const config = { configurable: { thread_id: thread, checkpoint_ns: "" } };
  return s.put(config, c, metadata, c.channel_versions);
}

it("keeps a thread another process writes after it was measured, deletes the others", async () => {
  const worker = new StudioCheckpointSaver({ client: new StudioClient(options()) });
  await putOne(worker, "a");
  await putOne(worker, "b");
  await new Promise((resolve) => setTimeout(resolve, 400));
  const threadOf = new Map<string, string>();
  for (const thread of (await new StudioClient(options()).listThreads()).data) {
    threadOf.set(thread.id, thread.metadata?.lc_session as string);
  }
  let written: string | undefined;
  let measured = 0;
  // The sweeper's client: once thread "a" has been measured (its newest message listed), the
  // worker writes to it before the sweeper goes on.
  const fetchHook: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    const serviceThreadId = /threads\/([^/]+)\/messages\?/.exec(url)?.[1];
    if (serviceThreadId && (init?.method ?? "GET") === "GET") {
      measured += 1;
      if (written === undefined && threadOf.get(serviceThreadId) === "a") {
        written = (await putOne(worker, "a")).configurable?.checkpoint_id as string;
      }
    }
    return response;
  };
  const sweeper = new StudioCheckpointSaver({
    client: new StudioClient({ ...options(), fetch: fetchHook }),
  });
  const deleted = await sweeper.deleteThreads({ maxAgeMs: 300 });
  expect(written).toBeDefined();
  expect(deleted).toEqual(["b"]);
  // Two measured, then each expired one measured again just before its delete.
  expect(measured).toBe(4);
  const fresh = new StudioCheckpointSaver({ client: new StudioClient(options()) });
  expect((await fresh.getTuple({ configurable: { thread_id: "a" } }))?.checkpoint.id).toBe(written);
  expect(await fresh.getTuple({ configurable: { thread_id: "b" } })).toBeUndefined();
});
