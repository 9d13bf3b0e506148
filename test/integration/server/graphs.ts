/**
 * The graphs both servers run in the tests: an agent with a tool (`createAgent` over ChatStudio
 * and the emulator's echo model), and a graph that asks for approval with `interrupt` and writes
 * a custom event.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import {
  Annotation,
  interrupt,
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import type { StudioClient } from "../../../src/client";

export const getWeather = tool(({ city }) => `${city}: sunny`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string() }),
});

export function agentGraph(client: StudioClient) {
  return createAgent({
    model: new ChatStudio({ model: "studio/echo-small", client }),
    tools: [getWeather],
  });
}

const ApprovalState = Annotation.Root({
  ...MessagesAnnotation.spec,
  decision: Annotation<string>(),
});

/** draft → approve (interrupt) → answer. */
export function approvalGraph() {
  return new StateGraph(ApprovalState)
    .addNode("draft", (state, config: LangGraphRunnableConfig) => {
      const last = state.messages.at(-1) as BaseMessage | undefined;
      config.writer?.({ progress: "drafting" });
      return {
        messages: [
          new AIMessage({
            id: `draft-${state.messages.length}`,
            content: `Draft for: ${last?.text ?? ""}`,
          }),
        ],
      };
    })
    .addNode("approve", () => ({ decision: interrupt({ question: "Send the draft?" }) as string }))
    .addNode("answer", (state) => ({
      messages: [
        new AIMessage({
          id: `answer-${state.messages.length}`,
          content: `Decision: ${state.decision}`,
        }),
      ],
    }))
    .addEdge(START, "draft")
    .addEdge("draft", "approve")
    .addEdge("approve", "answer")
    .compile();
}

/** One node answering "You said: <text>" (plain AIMessages: forks and history read them back). */
export function echoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (state) => {
      const last = state.messages.at(-1) as BaseMessage | undefined;
      return { messages: [new AIMessage({ content: `You said: ${last?.text ?? ""}` })] };
    })
    .addEdge(START, "reply")
    .compile();
}

/** Remembers each user message in the long-term store (`config.store`) and counts them. */
export function memoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("remember", async (state, config: LangGraphRunnableConfig) => {
      const last = state.messages.at(-1) as BaseMessage | undefined;
      const store = config.store;
      if (!store) throw new Error("no store");
      await store.put(["memos"], `m${state.messages.length}`, { text: last?.text ?? "" });
      const all = await store.search(["memos"]);
      return { messages: [new AIMessage({ content: `I remember ${all.length}` })] };
    })
    .addEdge(START, "remember")
    .compile();
}

/** Answers with the user id the server passed in the config (`langgraph_auth_user_id`). */
export function whoamiGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("whoami", (_state, config: LangGraphRunnableConfig) => ({
      messages: [
        new AIMessage({
          content: `You are ${String(config.configurable?.langgraph_auth_user_id ?? "nobody")}`,
        }),
      ],
    }))
    .addEdge(START, "whoami")
    .compile();
}

/** A parent whose one node is a compiled subgraph (echo): events come from its namespace. */
export function nestedGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("inner", echoGraph())
    .addEdge(START, "inner")
    .compile();
}
