/**
 * The graphs every instance serves in the multi-instance tests: the chat-UI tests' agent (a tool
 * on the emulator's echo model), and `steps`, three supersteps that each call the test's gate
 * server first, so a test can stop a run between two checkpoints and kill, drain or cancel there.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";

/** The supersteps of `steps`, in order. */
export const STEPS = ["one", "two", "three"] as const;

/** The gate a run of `steps` with input `text` calls before its step `step`. */
export function gateName(text: string, step: (typeof STEPS)[number]): string {
  return `${text}/${step}`;
}

/** What a serial, uninterrupted run of `steps` on input `text` adds to the thread. */
export function stepsReplies(text: string): string[] {
  return STEPS.map((step) => `${step}: ${text}`);
}

/**
 * one → two → three: each node waits at its gate (or for the run's cancel), then appends
 * "<step>: <the human text>". No message ids: a step run twice would show twice.
 */
export function stepsGraph(gateUrl: string) {
  const node =
    (step: (typeof STEPS)[number]) =>
    async (state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) => {
      const human = state.messages.findLast((m: BaseMessage) => m.getType() === "human");
      const text = human?.text ?? "";
      const gate = `${gateUrl}/wait/${encodeURIComponent(gateName(text, step))}`;
      const answer = await fetch(gate, {
        signal: config.signal ?? null,
        headers: { "x-instance": process.env.INSTANCE_ID ?? "?" },
      });
      if (!answer.ok) throw new Error(`gate ${gate} answered ${answer.status}`);
      return { messages: [new AIMessage({ content: `${step}: ${text}` })] };
    };
  return new StateGraph(MessagesAnnotation)
    .addNode("one", node("one"))
    .addNode("two", node("two"))
    .addNode("three", node("three"))
    .addEdge(START, "one")
    .addEdge("one", "two")
    .addEdge("two", "three")
    .compile();
}
