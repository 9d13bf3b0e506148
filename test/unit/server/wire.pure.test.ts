import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toWire, wireJson, wireReplacer } from "../../../src/server/wire";

describe("toWire", () => {
  it("sends messages in their dict form with their type, as the SDK reads them", () => {
    const wire = toWire({
      messages: [
        new HumanMessage({ content: "hi", id: "h1" }),
        new AIMessageChunk({ content: "yo", id: "a1" }),
      ],
      at: new Date("2026-01-01T00:00:00.000Z"),
      skip: undefined,
    }) as { messages: Record<string, unknown>[]; at: string };
    expect(wire.messages[0]).toMatchObject({ type: "human", content: "hi", id: "h1" });
    expect(wire.messages[1]).toMatchObject({ type: "ai", content: "yo", id: "a1" });
    expect(wire.at).toBe("2026-01-01T00:00:00.000Z");
    expect("skip" in wire).toBe(false);
  });
});

describe("wireReplacer", () => {
  it("writes the JSON of the wire form, without copying the value first", () => {
    const value = {
      type: "event",
      params: {
        namespace: ["a:1"],
        data: [
          new HumanMessage({ content: "hi", id: "h1" }),
          {
            nested: [
              new AIMessage({ content: "", tool_calls: [{ id: "c", name: "t", args: {} }] }),
            ],
            at: new Date("2026-01-01T00:00:00.000Z"),
            gone: undefined,
            list: [undefined, 1],
          },
          new ToolMessage({ content: "ok", tool_call_id: "c" }),
        ],
      },
    };
    const json = JSON.stringify(value, wireReplacer);
    expect(json).toBe(wireJson(value));
    expect(JSON.parse(json).params.data[0]).toMatchObject({ type: "human", content: "hi" });
    expect(JSON.stringify(new HumanMessage("top"), wireReplacer)).toBe(
      wireJson(new HumanMessage("top")),
    );
  });
});
