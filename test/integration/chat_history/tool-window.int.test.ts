/**
 * Issue 28: a `maxMessages` window never splits a tool exchange. An assistant session (human, AI
 * with two parallel tool calls, two tool results, AI answer per turn) read back at every window
 * size, and each window sent to the emulator's chat completions as the next turn's history.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { agentTurn } from "../../fixtures/agent-turn";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

function client(): StudioClient {
  return new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
  });
}

beforeEach(async () => {
  await emulator.handle.reset();
});

/**
 * The window's shape: it starts on a human message (on an AI message when it holds no human one),
 * and every tool result answers a call made earlier in the window.
 */
function checkShape(window: readonly BaseMessage[], label: string): void {
  const hasHuman = window.some((m) => HumanMessage.isInstance(m));
  if (window.length > 0) expect(window[0]!.getType(), label).toBe(hasHuman ? "human" : "ai");
  const called = new Set<string>();
  for (const message of window) {
    if (AIMessage.isInstance(message)) for (const c of message.tool_calls ?? []) called.add(c.id!);
    if (ToolMessage.isInstance(message)) {
      expect(called.has(message.tool_call_id), `${label}: ${message.tool_call_id}`).toBe(true);
    }
  }
}

describe("maxMessages windows of an agent session", () => {
  it("at every window size: starts on a human message, keeps each tool exchange whole, one read", async () => {
    const c = client();
    const writer = new StudioChatMessageHistory({ client: c });
    const session = [agentTurn(1), agentTurn(2), agentTurn(3)].flat();
    await writer.addMessages(session);
    const texts = session.map((m) => m.content);
    for (const size of [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 14, 15, 16]) {
      emulator.handle.clearRequests();
      const window = await new StudioChatMessageHistory({
        client: c,
        threadId: writer.threadId!,
        maxMessages: size,
      }).getMessages();
      checkShape(window, `maxMessages ${size}`);
      expect(window.length).toBeLessThanOrEqual(size);
      // The newest messages: cut at a turn's question (a whole number of turns) once the window
      // holds one, else at the last turn's first AI message (4 messages) or its answer.
      expect(window.map((m) => m.content)).toEqual(texts.slice(texts.length - window.length));
      const expected = size >= 5 ? Math.floor(size / 5) * 5 : size === 4 ? 4 : 1;
      expect(window.length, `maxMessages ${size}`).toBe(expected);
      expect(emulator.handle.requests.filter((r) => r.method === "GET")).toHaveLength(1);
    }
    await c.close();
  });

  it("an assistant session with maxMessages 6: every turn's window is accepted by the chat API", async () => {
    const c = client();
    const model = new ChatStudio({ model: "studio/echo-small", client: c });
    const history = new StudioChatMessageHistory({ client: c, maxMessages: 6 });
    for (let turn = 1; turn <= 5; turn++) {
      const window = await history.getMessages();
      checkShape(window, `turn ${turn}`);
      const question = new HumanMessage(`q${turn}`);
      // The request the next turn makes: the window, then the new question.
      await expect(model.invoke([...window, question])).resolves.toBeInstanceOf(AIMessage);
      await history.addMessages(agentTurn(turn));
    }
    // From the third turn on, the newest 6 messages start with a tool result: the window drops it.
    const window = await history.getMessages();
    expect(window.map((m) => m.content)).toEqual(["q5", "", "r call_5_a", "r call_5_b", "a5"]);
    await c.close();
  });

  it("a long run of tool calls with no question among the newest: the window starts at the AI message that made the calls", async () => {
    const c = client();
    const history = new StudioChatMessageHistory({ client: c, maxMessages: 4 });
    const steps: BaseMessage[] = [new HumanMessage("go")];
    for (let s = 0; s < 3; s++) {
      steps.push(
        new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${s}`, name: "step", args: {}, type: "tool_call" as const }],
        }),
        new ToolMessage({ content: `done ${s}`, tool_call_id: `call_${s}` }),
      );
    }
    await history.addMessages(steps);
    const window = await history.getMessages();
    expect(window.map((m) => m.getType())).toEqual(["ai", "tool", "ai", "tool"]);
    expect(window.map((m) => m.content)).toEqual(["", "done 1", "", "done 2"]);
    await c.close();
  });
});
