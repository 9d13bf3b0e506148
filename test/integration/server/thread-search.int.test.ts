/**
 * `threads.search` and `threads.count` as a sidebar calls them through the SDK's `Client`: the
 * label values (agent-chat-ui and deep-agents-ui read `values.messages[0]`), and each field the
 * SDK sends applied, or a 422 naming it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import { useEmulator } from "../../helpers/emulator";
import { type Handler, sdkClient, studioServer } from "./harness";
import { agentTurn } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function twoUsers(): { handler: Handler } {
  return studioServer(emulator.handle, { auth: (r) => r.headers.get("x-user") });
}

/** The status and message of a call the server refuses. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number; message?: string } | undefined;
  return { status: error?.status ?? 0, message: error?.message ?? "" };
}

describe("threads.search: values a sidebar labels a thread with", () => {
  it("carries the first and the last message, as agent-chat-ui reads them", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "plan a trip to Lisbon", "echo");
    await agentTurn(client, thread.thread_id, "and a hotel", "echo");
    const [listed] = await client.threads.search<{ messages: Record<string, unknown>[] }>();
    const messages = listed?.values.messages ?? [];
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "plan a trip to Lisbon"],
      ["ai", "You said: and a hotel"],
    ]);
    // The same on the thread itself.
    const got = await client.threads.get<{ messages: { content: string }[] }>(thread.thread_id);
    expect(got.values.messages[0]?.content).toBe("plan a trip to Lisbon");
  });

  it("clips a long message's text at 1,000 characters", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "x".repeat(5000), "echo");
    const [listed] = await client.threads.search<{ messages: { content: string }[] }>();
    expect(listed?.values.messages[0]?.content).toHaveLength(1000);
  });

  it("holds no words of the conversation under keyRing", async () => {
    const key = toBase64(crypto.getRandomValues(new Uint8Array(32)));
    const { handler } = studioServer(emulator.handle, {
      auth: (r) => r.headers.get("x-user"),
      keyRing: () => ({ keys: { k1: key } }),
    });
    const client = sdkClient(handler, { "x-user": "ada" });
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "a secret", "echo");
    const [listed] = await client.threads.search();
    expect(listed?.values).toEqual({});
    // The state itself is there, read through the user's keys.
    const state = await client.threads.getState<{ messages: unknown[] }>(thread.thread_id);
    expect(state.values.messages).toHaveLength(2);
  });
});

describe("threads.search: every field applied or refused", () => {
  it("ids: only those threads", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await client.threads.create());
    const wanted = [made[1]!.thread_id, made[3]!.thread_id];
    const found = await client.threads.search({ ids: wanted });
    expect(found.map((t) => t.thread_id).sort()).toEqual([...wanted].sort());
  });

  it("ids: another user's thread is not found", async () => {
    const { handler } = twoUsers();
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    const hers = await ada.threads.create();
    const his = await bob.threads.create();
    const found = await ada.threads.search({ ids: [hers.thread_id, his.thread_id] });
    expect(found.map((t) => t.thread_id)).toEqual([hers.thread_id]);
  });

  it("select: only those fields", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create({ metadata: { topic: "a" } });
    const found = await client.threads.search({ select: ["thread_id", "metadata"] });
    expect(found).toEqual([{ thread_id: thread.thread_id, metadata: { topic: "a" } }]);
  });

  it("select: a field this server does not keep is a 422 naming it", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const refused = await refusal(client.threads.search({ select: ["thread_id", "config"] }));
    expect(refused.status).toBe(422);
    expect(refused.message).toContain("select.1");
  });

  it("extract: each alias's path in `extracted`", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create({ metadata: { topic: "trip" } });
    await agentTurn(client, thread.thread_id, "hello", "echo");
    const [listed] = await client.threads.search({
      select: ["thread_id"],
      extract: {
        first: "values.messages[0].content",
        last: "values.messages[-1].content",
        topic: "metadata.topic",
        none: "metadata.missing[2]",
      },
    });
    expect(listed).toEqual({
      thread_id: thread.thread_id,
      extracted: { first: "hello", last: "You said: hello", topic: "trip", none: null },
    });
  });

  it("extract: a path that is not one is a 422 naming its alias", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const refused = await refusal(client.threads.search({ extract: { bad: "config.x" } }));
    expect(refused).toMatchObject({ status: 422 });
    expect(refused.message).toContain("extract.bad");
  });

  it("values: a filter is a 422 naming it (the list keeps no state)", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    await client.threads.create();
    const refused = await refusal(client.threads.search({ values: { topic: "a" } }));
    expect(refused.status).toBe(422);
    expect(refused.message).toContain(`"message":"values: `);
  });

  it("status, metadata, sort_by, sort_order, limit, offset", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.threads.create({ metadata: { n: i, even: i % 2 === 0 } })).thread_id);
    }
    const plain = await client.threads.create();
    const evens = await client.threads.search({
      metadata: { even: true },
      sortBy: "created_at",
      sortOrder: "asc",
    });
    expect(evens.map((t) => t.metadata?.n)).toEqual([0, 2, 4]);
    const page = await client.threads.search({
      metadata: { even: true },
      sortBy: "created_at",
      sortOrder: "desc",
      limit: 1,
      offset: 1,
    });
    expect(page.map((t) => t.metadata?.n)).toEqual([2]);
    expect(await client.threads.search({ status: "interrupted" })).toEqual([]);
    const idle = await client.threads.search({ status: "idle", limit: 100 });
    expect(idle.map((t) => t.thread_id).sort()).toEqual([...ids, plain.thread_id].sort());
    const refused = await refusal(client.threads.search({ status: "paused" as never }));
    expect(refused.status).toBe(422);
    expect(refused.message).toContain("status");
    const badSort = await refusal(client.threads.search({ sortBy: "state_updated_at" }));
    expect(badSort.status).toBe(422);
    expect(badSort.message).toContain("sort_by");
  });
});

describe("threads.count", () => {
  it("counts the caller's threads matching metadata and status, not another user's", async () => {
    const { handler } = twoUsers();
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    for (let i = 0; i < 3; i++)
      await ada.threads.create({ metadata: { tag: i === 0 ? "a" : "b" } });
    await bob.threads.create({ metadata: { tag: "b" } });
    expect(await ada.threads.count()).toBe(3);
    expect(await ada.threads.count({ metadata: { tag: "b" } })).toBe(2);
    expect(await ada.threads.count({ status: "error" })).toBe(0);
    expect(await bob.threads.count()).toBe(1);
    const refused = await refusal(ada.threads.count({ values: { x: 1 } }));
    expect(refused.status).toBe(422);
  });
});
