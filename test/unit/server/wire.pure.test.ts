import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toWire } from "../../../src/server/wire";

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
