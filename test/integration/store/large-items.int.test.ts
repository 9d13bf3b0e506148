/**
 * StudioStore items of any size, as InMemoryStore and the Postgres store keep them: an item over
 * `maxMessageChars` is split over several messages (as the checkpointer splits its records) and
 * read back whole, by get and search, in this process and in another one, encrypted and not; a
 * write cut short (a part missing) is never read as a damaged item, and compaction keeps it whole.
 */
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contentItemText } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { createEncryptedSerde, StudioStore } from "../../../src/langgraph";
import { STORE_RECORD_KEY } from "../../../src/store/records";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ recordRequests: false });
/** Megabytes through the emulator on a loaded machine: a bound, not a speed target. */
const BIG_TIMEOUT_MS = 60_000;

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

const keys = { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) };

/** A client of its own: a process of its own. */
function counted() {
  const { baseUrl, apiKey } = emulator.handle;
  return { client: new StudioClient({ baseUrl, apiKey }) };
}

/** About `chars` characters of text that does not compress into anything shorter, with emoji. */
function bigText(chars: number): string {
  const words: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const word = `${i.toString(36)}${i % 97 === 0 ? "😀" : ""}`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ");
}

const modes: [string, () => SerializerProtocol | undefined][] = [
  ["without encryption", () => undefined],
  ["encrypted", () => createEncryptedSerde({ keys })],
];

describe.each(modes)("an item of 1 MB, %s", (_mode, serde) => {
  it(
    "is put over several messages and read back whole by get and search, here and elsewhere",
    async () => {
      const value = { text: bigText(1_000_000), n: 1, nested: { list: [1, "two", null] } };
      const writer = counted();
      const store = new StudioStore({ client: writer.client, serde: serde() });
      await store.put(["docs", "big"], "manual", value);
      await store.put(["docs", "small"], "note", { text: "short" });
      // Split over messages each within the default limit of 100,000 characters.
      const sizes: number[] = [];
      for await (const thread of writer.client.iterateThreads({ order: "asc" })) {
        if (thread.title !== "LangGraph store: docs/big") continue;
        for await (const message of writer.client.iterateMessages(thread.id, { order: "asc" })) {
          sizes.push(message.content.map((item) => contentItemText(item) ?? "").join("").length);
        }
      }
      expect(sizes.length).toBeGreaterThanOrEqual(10);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(100_000);
      expect((await store.get(["docs", "big"], "manual"))?.value).toStrictEqual(value);
      const other = new StudioStore({ client: counted().client, serde: serde() });
      expect((await other.get(["docs", "big"], "manual"))?.value).toStrictEqual(value);
      const found = await other.search(["docs"]);
      expect(found.map((item) => item.key)).toEqual(["manual", "note"]);
      expect(found[0]?.value).toStrictEqual(value);
    },
    BIG_TIMEOUT_MS,
  );
});

describe("split items", () => {
  it("are written whatever maxMessageChars: 2,000 characters over messages of 1,000", async () => {
    const store = new StudioStore({ client: counted().client, maxMessageChars: 1_000 });
    await store.put(["a"], "k", { big: "x".repeat(2_000) });
    const other = new StudioStore({ client: counted().client, maxMessageChars: 1_000 });
    expect((await other.get(["a"], "k"))?.value).toEqual({ big: "x".repeat(2_000) });
  });

  it("whose write was cut short are not read (the previous value stays), and are not deleted by compaction", async () => {
    const { client } = counted();
    const store = new StudioStore({ client, maxMessageChars: 1_000 });
    await store.put(["a"], "k", { v: "before" });
    // The first part of another process's write, its other parts not (yet) stored.
    let threadId = "";
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      if (thread.title === "LangGraph store: a") threadId = thread.id;
    }
    const entry = {
      op: "put",
      key: "k",
      s: Date.now() * 1000 + 10_000_000,
      w: "zz",
      c: 1,
      p: { value: { v: "after" } },
    };
    const text = JSON.stringify({ entries: [entry] });
    const metadata = { [STORE_RECORD_KEY]: "1", record: "r1" };
    await client.createMessage(threadId, {
      role: "assistant",
      content: text.slice(0, 20),
      metadata: { ...metadata, part: "1/2" },
    });
    const reader = new StudioStore({ client: counted().client, maxMessageChars: 1_000 });
    expect((await reader.get(["a"], "k"))?.value).toEqual({ v: "before" });
    // Compaction (a sweep, a namespace with an item expired over a minute ago) leaves the
    // pending part in place: its write may still be under way.
    await store.put(["a"], "gone", { v: 1 }, undefined, { ttl: 0.0001 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await store.sweepExpiredItems()).toBe(1);
    await client.createMessage(threadId, {
      role: "assistant",
      content: text.slice(20),
      metadata: { ...metadata, part: "2/2" },
    });
    expect((await reader.get(["a"], "k"))?.value).toEqual({ v: "after" });
    const fresh = new StudioStore({ client: counted().client });
    expect((await fresh.get(["a"], "k"))?.value).toEqual({ v: "after" });
  });

  it("whose write was cut short over an hour ago are deleted by compaction, in this process's view too", async () => {
    const { client } = counted();
    const store = new StudioStore({ client, maxMessageChars: 1_000 });
    await store.put(["a"], "k", { v: "before" });
    let threadId = "";
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      if (thread.title === "LangGraph store: a") threadId = thread.id;
    }
    const entry = {
      op: "put",
      key: "k",
      s: Date.now() * 1000 + 10_000_000,
      w: "zz",
      c: 1,
      p: { value: { v: "after" } },
    };
    const text = JSON.stringify({ entries: [entry] });
    const metadata = { [STORE_RECORD_KEY]: "1", record: "r1" };
    const pending = await client.createMessage(threadId, {
      role: "assistant",
      content: text.slice(0, 20),
      metadata: { ...metadata, part: "1/2" },
    });
    // Read while the part is recent: kept in this process's view, waiting for its other part.
    expect((await store.get(["a"], "k"))?.value).toEqual({ v: "before" });
    const messageIds = async () => {
      const ids: string[] = [];
      for await (const message of client.iterateMessages(threadId, { order: "asc" })) {
        ids.push(message.id);
      }
      return ids;
    };
    expect(await messageIds()).toContain(pending.id);
    // Over an hour later (the service stored the part at the real time), a sweep deletes it.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61 * 60_000);
    expect(await store.sweepExpiredItems()).toBe(0);
    expect(await messageIds()).not.toContain(pending.id);
    // A part arriving even later does not complete the deleted one: the record is never read,
    // here (the part's text left this process's view) or in another process.
    await client.createMessage(threadId, {
      role: "assistant",
      content: text.slice(20),
      metadata: { ...metadata, part: "2/2" },
    });
    expect((await store.get(["a"], "k"))?.value).toEqual({ v: "before" });
    const fresh = new StudioStore({ client: counted().client });
    expect((await fresh.get(["a"], "k"))?.value).toEqual({ v: "before" });
  });
});
