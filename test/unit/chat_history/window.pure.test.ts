/**
 * The `maxMessages` window, planned without I/O: it never starts with a tool result whose call
 * was cut off (LangChain's `trimMessages` with `startOn: "human"` is the reference).
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toolSafeWindow, windowStart } from "../../../src/chat_history/window";
import { agentTurn } from "../../fixtures/agent-turn";

/** Every tool result's call is an earlier AI message of the window; it does not start on a tool result. */
function isToolSafe(window: readonly BaseMessage[]): boolean {
  const called = new Set<string>();
  for (const message of window) {
    if (AIMessage.isInstance(message)) for (const c of message.tool_calls ?? []) called.add(c.id!);
    if (ToolMessage.isInstance(message) && !called.has(message.tool_call_id)) return false;
  }
  return true;
}

const newest = (messages: BaseMessage[], n: number) =>
  messages.slice(Math.max(0, messages.length - n));

describe("windowStart / toolSafeWindow", () => {
  it("starts at the first human message of the newest messages", () => {
    expect(windowStart(["tool", "ai", "human", "ai"])).toBe(2);
    expect(windowStart(["human", "ai"])).toBe(0);
    expect(windowStart(["ai", "tool", "ai", "human"])).toBe(3);
  });

  it("without a human message, at the first message that is not a tool result", () => {
    expect(windowStart(["tool", "tool", "ai", "tool", "ai"])).toBe(2);
    expect(windowStart(["tool", "tool"])).toBe(2);
    expect(windowStart([])).toBe(0);
  });

  it("an agent session at every window size: never a tool result without its call, never longer than asked", () => {
    const session = [agentTurn(1), agentTurn(2), agentTurn(3)].flat();
    for (let size = 1; size <= session.length; size++) {
      const window = toolSafeWindow(newest(session, size));
      expect(window.length, `size ${size}`).toBeLessThanOrEqual(size);
      expect(isToolSafe(window), `size ${size}`).toBe(true);
      // The window is the newest messages: a suffix of the session.
      expect(window).toEqual(session.slice(session.length - window.length));
    }
  });

  it("agrees with trimMessages({ strategy: 'last', startOn: 'human' }) whenever the window holds a human message", async () => {
    const session = [new SystemMessage("be brief"), agentTurn(1), agentTurn(2)].flat();
    for (let size = 1; size <= session.length; size++) {
      const picked = newest(session, size);
      if (!picked.some((m) => HumanMessage.isInstance(m))) continue;
      const reference = await trimMessages(session, {
        maxTokens: size,
        tokenCounter: (messages) => messages.length,
        strategy: "last",
        startOn: "human",
      });
      expect(
        toolSafeWindow(picked).map((m) => m.content),
        `size ${size}`,
      ).toEqual(reference.map((m) => m.content));
    }
  });

  it("the sizes an assistant session meets: 6 messages after two turns start on the second question", () => {
    const session = [agentTurn(1), agentTurn(2)].flat();
    expect(toolSafeWindow(newest(session, 6)).map((m) => m.content)).toEqual([
      "q2",
      "",
      "r call_2_a",
      "r call_2_b",
      "a2",
    ]);
  });
});
