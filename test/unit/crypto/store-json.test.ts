/**
 * StudioStore values are JSON data, encrypted or not: what is put comes back exactly, never
 * revived through LangGraph's serializer (which turns `{lc: 1, type: "constructor", ...}` into a
 * class instance, reads environment variables for `{lc: 1, type: "secret"}`, and fails on an id it
 * cannot import, printing the value). And no error prints a decrypted value.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { createEncryptedSerde, StudioStore, storeContext } from "../../../src/langgraph";
import { type PutEntry, readRecord, STORE_RECORD_KEY } from "../../../src/store/records";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ recordRequests: false });

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(() => {
  delete process.env.STORE_JSON_TEST_SECRET;
});

const keys = { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) };
const SECRET = "the vault code is 0451-7789";

function client(): StudioClient {
  const { baseUrl, apiKey } = emulator.handle;
  return new StudioClient({ baseUrl, apiKey });
}

/** Values a user may well keep: JSON that happens to look like LangChain's serialized objects. */
const LOOKALIKES: Record<string, Record<string, unknown>> = {
  message: {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "HumanMessage"],
    kwargs: { content: SECRET },
  },
  unknownClass: { lc: 1, type: "constructor", id: ["evil", "Thing"], kwargs: { note: SECRET } },
  secret: { lc: 1, type: "secret", id: ["STORE_JSON_TEST_SECRET"] },
  nested: {
    history: [
      { lc: 2, type: "constructor", id: ["Set"], args: [[1, 2]] },
      { lc: 2, type: "undefined" },
    ],
    when: { lc: 2, type: "constructor", id: ["Date"], args: ["2030-01-01T00:00:00Z"] },
  },
};

const modes = [
  ["without encryption", () => undefined],
  ["encrypted", () => createEncryptedSerde({ keys })],
] as const;

describe.each(modes)("StudioStore values %s", (_mode, serde) => {
  function store(): StudioStore {
    return new StudioStore({ client: client(), serde: serde() });
  }

  it("come back exactly as put, by get and by search over their prefix, in another process", async () => {
    process.env.STORE_JSON_TEST_SECRET = "read from the environment";
    const writer = store();
    for (const [key, value] of Object.entries(LOOKALIKES)) {
      await writer.put(["users", "ada"], key, value);
    }
    await writer.put(["users", "bob"], "plain", { text: "hello" });
    const reader = store();
    for (const [key, value] of Object.entries(LOOKALIKES)) {
      const item = await reader.get(["users", "ada"], key);
      expect(item?.value, key).toStrictEqual(value);
    }
    const found = await reader.search(["users"], { limit: 100 });
    expect(Object.fromEntries(found.map((item) => [item.key, item.value]))).toStrictEqual({
      ...LOOKALIKES,
      plain: { text: "hello" },
    });
    for (const item of found) expect(Object.getPrototypeOf(item.value)).toBe(Object.prototype);
  });
});

describe("encrypted StudioStore values", () => {
  it("read before encryption was on (allowPlaintext) come back exactly too", async () => {
    await new StudioStore({ client: client() }).put(["m"], "k", LOOKALIKES.unknownClass!);
    const migrating = new StudioStore({
      client: client(),
      serde: createEncryptedSerde({ keys, allowPlaintext: true }),
    });
    expect((await migrating.get(["m"], "k"))?.value).toStrictEqual(LOOKALIKES.unknownClass);
  });

  it("that decrypt to something other than a stored item are refused without printing it", async () => {
    const serde = createEncryptedSerde({ keys });
    const writer = new StudioStore({ client: client(), serde });
    await writer.put(["users", "ada"], "vault", { text: "first" });
    const c = client();
    let threadId = "";
    let put: PutEntry | undefined;
    for await (const thread of c.iterateThreads({ order: "asc" })) {
      if (thread.title !== "LangGraph store: users/ada") continue;
      threadId = thread.id;
      for await (const message of c.iterateMessages(thread.id, { order: "asc" })) {
        put ??= readRecord(message)?.find((entry): entry is PutEntry => entry.op === "put");
      }
    }
    // Sealed with the right key for the right place, but not JSON / not an item's payload.
    const bodies = [`{"value": {"text": "${SECRET}"`, JSON.stringify({ value: SECRET })];
    for (const [i, body] of bodies.entries()) {
      const sealed = await serde.sealFor(storeContext(["users", "ada"], "vault"), [
        "json",
        new TextEncoder().encode(body),
      ]);
      const entry = { ...put!, s: put!.s + 1_000_000 * (i + 1) };
      await c.createMessage(threadId, {
        role: "assistant",
        content: JSON.stringify({
          entries: [{ ...entry, x: { type: sealed[0], data: toBase64(sealed[1]) } }],
        }),
        metadata: { [STORE_RECORD_KEY]: "1" },
      });
      const error = await new StudioStore({ client: client(), serde })
        .get(["users", "ada"], "vault")
        .catch((e: unknown) => e);
      expect(error, body).toMatchObject({ name: "StudioError" });
      expect((error as Error).message, body).toContain('key "vault" in namespace ["users","ada"]');
      expect((error as Error).message, body).not.toContain("0451-7789");
      expect(JSON.stringify(error), body).not.toContain("0451-7789");
      expect(String((error as Error).cause ?? ""), body).not.toContain("0451-7789");
    }
  });
});
