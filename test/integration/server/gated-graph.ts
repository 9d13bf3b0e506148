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
  const gates = new Map<number, Gate>();
  const gateOf = (index: number) => {
    let turn = gates.get(index);
    if (!turn) {
      turn = gate();
      if (released) turn.open();
      gates.set(index, turn);
    }
    return turn;
  };
  let released = false;
  let count = 0;
  let waiters: ((index: number) => void)[] = [];
  const entries: Deferred<void>[] = [];
  const entryOf = (index: number) => {
    entries[index] ??= deferred();
    return entries[index];
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("reply", async (state, config: LangGraphRunnableConfig) => {
      const index = count++;
      const turn = gateOf(index);
      seen.calls++;
      seen.live++;
      seen.most = Math.max(seen.most, seen.live);
      const signal = config.signal;
      entryOf(index).resolve();
      for (const wake of waiters) wake(index);
      waiters = [];
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
    /** Resolves with the index of the next invocation to enter the node after this call. */
    nextEntry(): Promise<number> {
      return new Promise((resolve) => waiters.push(resolve));
    },
    /** Lets the node's `index`-th invocation go on (now, or when it comes). */
    open(index: number): void {
      gateOf(index).open();
    },
    /** Lets every invocation go on, those to come too. */
    openAll(): void {
      released = true;
      for (const turn of gates.values()) turn.open();
    },
  };
}
