import { describe, expect, it } from "vitest";
import { CheckpointLog } from "../../../src/langgraph/checkpoint-log";
import { cutAround, cutParts, joinCut, MIN_REF_CHARS } from "../../../src/langgraph/value-refs";
import { at, checkpointRecord, whole, writesRecord } from "./builders";

const messages = Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, text: "x".repeat(60) }));
const text = JSON.stringify(messages);

describe("cutAround / joinCut", () => {
  it("cuts a Send's state around the messages it carries, the grown end included, and joins it back", () => {
    const send = JSON.stringify({
      node: "tools",
      args: { messages: [...messages, { id: "ai", text: "call" }], call: { id: "c1" } },
    });
    const cut = cutAround(send, [{ channel: "messages", version: "v7", text }]);
    expect(cut?.ref).toEqual({ channel: "messages", version: "v7" });
    expect(cut!.parts.join("").length).toBeLessThan(send.length - text.length + 10);
    expect(joinCut(cutParts(JSON.stringify(cut!.parts))!, text)).toBe(send);
    // Short values, and values that hold none of the candidates, are not cut.
    expect(cutAround(send, [{ channel: "m", version: "v", text: "[1,2]" }])).toBeUndefined();
    expect(
      cutAround(JSON.stringify({ other: true }), [{ channel: "messages", version: "v7", text }]),
    ).toBeUndefined();
    expect(text.length).toBeGreaterThan(MIN_REF_CHARS);
  });

  it("keeps to the first items when a message in the list was serialized differently since", () => {
    const rewritten = [
      ...messages.slice(0, 30),
      { id: "m30", text: "rewritten" },
      ...messages.slice(31),
    ];
    const send = JSON.stringify({ args: { messages: [...rewritten, { id: "ai" }] } });
    const cut = cutAround(send, [{ channel: "messages", version: "v7", text }]);
    const keepChars = JSON.stringify(messages.slice(0, 30)).length - 1;
    expect(cut?.ref).toEqual({ channel: "messages", version: "v7", keepChars });
    expect(joinCut(cut!.parts, text, cut!.ref.keepChars)).toBe(send);
  });

  it("reads a write and a channel value stored cut, as the log of another process would", () => {
    const log = new CheckpointLog();
    const send = JSON.stringify([{ node: "tools", args: { messages } }]);
    const cut = cutAround(send, [{ channel: "messages", version: "v1", text }])!;
    log.add(
      checkpointRecord({
        checkpointId: "c1",
        versions: { messages: "v1", __pregel_tasks: "t1" },
        blobs: [
          whole("messages", "v1", messages),
          { ...whole("__pregel_tasks", "t1", cut.parts), cut: cut.ref },
        ],
      }),
      at(1),
      ["1"],
    );
    log.add(
      writesRecord({
        checkpointId: "c1",
        writes: [
          {
            idx: 0,
            channel: "__pregel_tasks",
            value: { type: "json", json: cut.parts },
            cut: cut.ref,
          },
        ],
      }),
      at(2),
      ["2"],
    );
    expect(log.resolve("", "__pregel_tasks", "t1")?.value?.data).toBe(send);
    expect(log.pendingWrites("", "c1")[0]?.value?.data).toBe(send);
    // The channel value's chain names the record its reference is read from.
    expect(log.chain("", "__pregel_tasks", "t1")?.map((link) => link.version)).toEqual([
      "t1",
      "v1",
    ]);
  });
});
