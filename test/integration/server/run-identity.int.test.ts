/**
 * Who a run says it is: the caller's user id and the assistant come from the server (its auth
 * hook, the route), never from the body's metadata or configurable.
 */
import { AIMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { collect, say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("createAgentServer: what the server says about a run", () => {
  it("does not let body metadata or configurable name another user or assistant", async () => {
    const seen: Record<string, unknown>[] = [];
    const spy = new StateGraph(MessagesAnnotation)
      .addNode("look", (_state, config: LangGraphRunnableConfig) => {
        seen.push({
          metadata: { ...(config.metadata ?? {}) },
          configurable: { ...(config.configurable ?? {}) },
        });
        return { messages: [new AIMessage({ content: "looked" })] };
      })
      .addEdge(START, "look")
      .compile();
    const { handler } = studioServer(emulator.handle, {
      graphs: { spy },
      auth: (request) => request.headers.get("X-User"),
    });
    const client = sdkClient(handler, { "X-User": "mallory" });
    const thread = await client.threads.create();
    // Body metadata naming another user or assistant is refused, naming the key; nothing runs.
    for (const [key, value] of [
      ["langgraph_auth_user_id", "alice"],
      ["assistant_id", "admin"],
      ["graph_id", "admin"],
      ["run_id", "r1"],
    ] as const) {
      await expect(
        collect(client.runs.stream(thread.thread_id, "spy", { metadata: { [key]: value } })),
      ).rejects.toThrow(
        `HTTP 422: {"error":"Unprocessable Entity","message":"metadata.${key}: is set by the ` +
          `server on every run (the graph reads it from the run's config); leave it out"}`,
      );
    }
    expect(seen).toEqual([]);
    await collect(
      client.runs.stream(thread.thread_id, "spy", {
        input: say("hi"),
        // Repeating the run's own assistant is no contradiction.
        metadata: { assistant_id: "spy", source: "ui" },
        config: { configurable: { langgraph_auth_user_id: "alice", assistant_id: "admin" } },
      }),
    );
    expect(seen.length).toBe(1);
    expect(seen[0]).toMatchObject({
      metadata: { langgraph_auth_user_id: "mallory", graph_id: "spy", source: "ui" },
      configurable: { langgraph_auth_user_id: "mallory", graph_id: "spy" },
    });
    // The assistant is the server's to say (as graph_id): the caller's configurable is dropped.
    expect(JSON.stringify(seen[0])).not.toContain("admin");
  });
});
