import { describe, expect, it } from "vitest";
import { PartialWrite } from "../../../src/threads/confirmed-writes";
import { type KnownWrite, planWrite } from "../../../src/threads/write-batch";

type Message = { text: string };
const encode = (m: Message, clientId: string) => ({
  role: "user" as const,
  content: m.text,
  metadata: { lc_id: clientId },
});
const ids = (n: number) => Array.from({ length: n }, (_, i) => `call.${i}`);

describe("WriteBatch (the history's write, planned without I/O)", () => {
  it("plans every new message, in call order, with its client id and index", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const messages = [{ text: "a" }, { text: "b" }];
    const batch = planWrite(messages, memory, ids(2), encode);
    expect(batch.entries.map((e) => [e.position, e.message.clientId])).toEqual([
      [0, "call.0"],
      [1, "call.1"],
    ]);
    expect(batch.needsCheck).toBe(false);
    expect(batch.stored).toEqual([]);
    expect(memory.get(messages[0]!)).toEqual({ clientId: "call.0", state: "notStored" });
  });

  it("skips objects already stored and an object repeated in the call; keeps an unknown one's id", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const [a, b, c] = [{ text: "a" }, { text: "b" }, { text: "c" }];
    memory.set(a, { clientId: "old.0", state: "stored" });
    memory.set(b, { clientId: "old.1", state: "unknown" });
    const batch = planWrite([a, b, c, c], memory, ids(4), encode);
    expect(batch.stored).toEqual([0, 3]);
    expect(batch.entries.map((e) => e.message.clientId)).toEqual(["old.1", "call.2"]);
    expect(batch.needsCheck).toBe(true);
  });

  it("settle: what the thread holds is stored and not sent", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const [a, b] = [{ text: "a" }, { text: "b" }];
    memory.set(a, { clientId: "old.0", state: "unknown" });
    const batch = planWrite([a, b], memory, ids(2), encode);
    batch.settle(new Set(["old.0"]));
    expect(batch.stored).toEqual([0]);
    expect(batch.sending.map((m) => m.clientId)).toEqual(["call.1"]);
    expect(memory.get(a)!.state).toBe("stored");
  });

  it("a check that cannot be made: unknown stays unknown, the rest is not stored", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const [a, b, c] = [{ text: "a" }, { text: "b" }, { text: "c" }];
    memory.set(a, { clientId: "x.0", state: "stored" });
    memory.set(b, { clientId: "x.1", state: "unknown" });
    const error = planWrite([a, b, c], memory, ids(3), encode).uncheckedError(
      "T",
      new Error("down"),
    );
    expect([error.stored, error.unknown, error.notStored]).toEqual([[0], [1], [2]]);
    expect(error.storedCount).toBe(1);
  });

  it("a stopped send: before the stop stored, at the stop its state, after it not stored; remembered per object", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const messages = [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }];
    memory.set(messages[0]!, { clientId: "x.0", state: "stored" });
    const batch = planWrite(messages, memory, ids(4), encode);
    const partial = new PartialWrite({
      at: 1,
      state: "unknown",
      attempts: 3,
      what: "store message 2 of 3 in thread T",
      cause: new Error("reset"),
      threadId: "T",
    });
    const error = batch.failed(partial);
    expect([error.stored, error.unknown, error.notStored]).toEqual([[0, 1], [2], [3]]);
    expect(messages.map((m) => memory.get(m)!.state)).toEqual([
      "stored",
      "stored",
      "unknown",
      "notStored",
    ]);
  });

  it("succeeded: every sent message stored, the last client id is the new anchor", () => {
    const memory = new WeakMap<Message, KnownWrite>();
    const messages = [{ text: "a" }, { text: "b" }];
    const batch = planWrite(messages, memory, ids(2), encode);
    expect(batch.succeeded()).toBe("call.1");
    expect(messages.map((m) => memory.get(m)!.state)).toEqual(["stored", "stored"]);
  });
});
