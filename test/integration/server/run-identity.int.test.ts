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
    await collect(
      client.runs.stream(thread.thread_id, "spy", {
        input: say("hi"),
        metadata: { langgraph_auth_user_id: "alice", assistant_id: "admin", source: "ui" },
        config: { configurable: { langgraph_auth_user_id: "alice", assistant_id: "admin" } },
      }),
    );
    expect(seen.length).toBe(1);
    expect(seen[0]).toMatchObject({
      metadata: { langgraph_auth_user_id: "mallory", graph_id: "spy", source: "ui" },
      configurable: { langgraph_auth_user_id: "mallory", graph_id: "spy" },
    });
    // The assistant is the server's to say (as graph_id): the caller's word is dropped.
    expect(JSON.stringify(seen[0])).not.toContain("admin");
  });
});
