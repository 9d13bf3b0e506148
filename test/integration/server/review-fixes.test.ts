/**
 * Defects a review found in the Agent Server handler, each driven through the SDK's `Client`
 * against the emulator: queued runs racing, evicted live runs, leaked error text, spoofed
 * metadata, unbounded buffers and bodies, and a PATCH lost to a run's final save.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { collect, say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function texts(values: unknown): string[] {
  const messages = (values as { messages?: { content: unknown }[] }).messages ?? [];
  return messages.map((m) =>
    typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  );
}

function post(threadId: string, body: Record<string, unknown>): Request {
  return new Request(`http://agent.test/threads/${threadId}/runs/stream`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A slow graph that counts how many of its runs are in the node at once. */
function countedGraph() {
  const seen = { live: 0, most: 0 };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("reply", async (state) => {
      seen.live++;
      seen.most = Math.max(seen.most, seen.live);
      await new Promise((resolve) => setTimeout(resolve, 300));
      seen.live--;
      const last = state.messages.at(-1) as BaseMessage | undefined;
      return { messages: [new AIMessage({ content: `Slowly: ${last?.text ?? ""}` })] };
    })
    .addEdge(START, "reply")
    .compile();
  return { graph, seen };
}

describe("createAgentServer: runs waiting on the same run", () => {
  for (const strategy of ["enqueue", "interrupt"]) {
    it(`starts two ${strategy} runs one after the other, never together`, async () => {
      const { graph, seen } = countedGraph();
      const { handler } = studioServer(emulator.handle, { graphs: { counted: graph } });
      const client = sdkClient(handler);
      const thread = await client.threads.create();
      const first = await handler(
        post(thread.thread_id, { assistant_id: "counted", input: say("one") }),
      );
      const body = (text: string) => ({
        assistant_id: "counted",
        input: say(text),
        multitask_strategy: strategy,
        on_disconnect: "continue",
      });
      const [second, third] = await Promise.all([
        handler(post(thread.thread_id, body("two"))),
        handler(post(thread.thread_id, body("three"))),
      ]);
      expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
      await Promise.all([first.text(), second.text(), third.text()]);
      expect(seen.most).toBe(1);
      const said = texts((await client.threads.getState(thread.thread_id)).values);
      const statuses = (await client.runs.list(thread.thread_id)).map((r) => r.status).sort();
      if (strategy === "enqueue") {
        expect(said.filter((t) => t === "two" || t === "three").sort()).toEqual(["three", "two"]);
        expect(said.filter((t) => t.startsWith("Slowly: ")).length).toBe(3);
        expect(statuses).toEqual(["success", "success", "success"]);
      } else {
        // The later run interrupts the earlier; the one that ran last answered.
        expect(said.at(-1)).toMatch(/^Slowly: (two|three)$/);
        expect(statuses).toEqual(["interrupted", "interrupted", "success"]);
      }
    });
  }
});
