/**
 * A graph for the server's concurrency tests: each run's node says it entered, then waits at a
 * gate the test opens (or for the run's cancel), so the order of events is the test's, not the
 * clock's. It counts its invocations and how many are inside the node at once.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { type Deferred, deferred, type Gate, gate } from "../../helpers/gate";

export function gatedGraph() {
  const seen = { calls: 0, live: 0, most: 0 };
  const gates: Gate[] = [];
  let released = false;
  const entries: Deferred<void>[] = [];
  const entryOf = (index: number) => {
    entries[index] ??= deferred();
    return entries[index];
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("reply", async (state, config: LangGraphRunnableConfig) => {
      const turn = gate();
      gates.push(turn);
      if (released) turn.open();
      seen.calls++;
      seen.live++;
      seen.most = Math.max(seen.most, seen.live);
      const signal = config.signal;
      entryOf(gates.length - 1).resolve();
      try {
        await Promise.race([
          turn.wait,
          new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true })),
        ]);
      } finally {
        seen.live--;
      }
      const last = state.messages.at(-1) as BaseMessage | undefined;
      return { messages: [new AIMessage({ content: `Slowly: ${last?.text ?? ""}` })] };
    })
    .addEdge(START, "reply")
    .compile();
  return {
    graph,
    seen,
    /** Resolves once the node's `index`-th invocation (from 0) has entered it. */
    entered(index: number): Promise<void> {
      return entryOf(index).promise;
    },
    /** Lets the node's `index`-th invocation go on. */
    open(index: number): void {
      gates[index]?.open();
    },
    /** Lets every invocation go on, those to come too. */
    openAll(): void {
      released = true;
      for (const turn of gates) turn.open();
    },
  };
}
