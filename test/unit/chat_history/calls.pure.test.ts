import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { callClientIds, keepCallsTogether } from "../../../src/chat_history/calls";

function message(text: string, lcId?: string): ThreadMessage {
  return {
    id: `msg_${text}`,
    role: "user",
    content: [{ type: "text", text }],
    metadata: lcId === undefined ? {} : { lc_id: lcId },
  } as ThreadMessage;
}

const texts = (messages: ThreadMessage[]) => messages.map((m) => m.content[0]?.text);

describe("keeping each addMessages call's messages together", () => {
  it("gives one call's messages ids that share the call's id, and each call its own", () => {
    const [a0, a1] = callClientIds(2);
    const [b0] = callClientIds(1);
    expect(a0).toMatch(/^[0-9a-f-]{36}\.0$/);
    expect(a1).toBe(`${a0!.slice(0, -2)}.1`);
    expect(b0!.slice(0, -2)).not.toBe(a0!.slice(0, -2));
  });

  it("puts each call's messages where the first of them stands, in thread order", () => {
    const [q1, a1, t1] = callClientIds(3);
    const [q2, a2] = callClientIds(2);
    const thread = [
      message("hello"),
      message("Q1", q1),
      message("Q2", q2),
      message("A1", a1),
      message("other", "not-a-call-id"),
      message("A2", a2),
      message("T1", t1),
    ];
    expect(texts(keepCallsTogether(thread))).toEqual([
      "hello",
      "Q1",
      "A1",
      "T1",
      "Q2",
      "A2",
      "other",
    ]);
  });

  it("leaves one writer's thread as it is", () => {
    const thread = [...callClientIds(2), ...callClientIds(3)].map((id, i) => message(`m${i}`, id));
    expect(keepCallsTogether(thread)).toEqual(thread);
  });
});
