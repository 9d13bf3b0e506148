/**
 * What a failed run tells the browser, through the SDK's `Client` against the emulator: a generic
 * text and a code in the stream's `error` event, never the service's or the graph's own text
 * (hosts, request ids, secrets), with the cause handed to `onError`; an `AgentRunError` thrown on
 * purpose passes through; the thread is listed `error` after each.
 */
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { AgentRunError, createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { agentGraph } from "./graphs";
import { sdkClient } from "./harness";
import { collect, say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
  emulator.handle.setFaults(undefined);
});

const SECRET = "sk-live-4f9a2b7c1e-do-not-show";

function throwingGraph(error: () => Error) {
  return new StateGraph(MessagesAnnotation)
    .addNode("fail", () => {
      throw error();
    })
    .addEdge("__start__", "fail")
    .compile();
}

function setUp() {
  const client = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
    maxRetries: 0,
  } as ConstructorParameters<typeof StudioClient>[0]);
  const reported: unknown[] = [];
  const handler = createAgentServer({
    graphs: {
      agent: agentGraph(client),
      leaky: throwingGraph(() => new Error(`the tool failed with key ${SECRET}`)),
      meant: throwingGraph(
        () => new AgentRunError("That city is not supported yet.", { code: "unsupported_city" }),
      ),
    },
    checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
    client,
    onError: (error) => {
      reported.push(error);
    },
  });
  return { sdk: sdkClient(handler), reported };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function failedRun(graph: string) {
  const { sdk, reported } = setUp();
  const thread = await sdk.threads.create();
  const events = await collect(
    sdk.runs.stream(thread.thread_id, graph, { input: say("weather in Oslo?") }),
  );
  const errors = events.filter((e) => e.event === "error");
  const listed = await sdk.threads.get(thread.thread_id);
  // Run and message ids are random UUIDs: one may hold "429" by chance, so they are
  // blanked before the tests look for what must not leak.
  const text = JSON.stringify(events).replace(UUID, "<id>");
  return { errors, reported, status: listed.status, text };
}

describe("createAgentServer: run errors", () => {
  it("says the model is busy when the service answers 429, and tells onError the cause", async () => {
    emulator.handle.setFaults({ rate429: 1, match: "/inference/chat/completions" });
    const { errors, reported, status, text } = await failedRun("agent");
    expect(errors.map((e) => e.data)).toEqual([
      {
        error: "RunError",
        message: "The model is busy. Try again in a moment.",
        code: "rate_limited",
      },
    ]);
    expect(text).not.toContain("429");
    expect(text).not.toContain("/inference/chat/completions");
    expect(text).not.toContain(new URL(emulator.handle.baseUrl).host);
    expect(reported).toHaveLength(1);
    expect(String(reported[0])).toContain("429");
    expect(status).toBe("error");
  });

  it("keeps a thrown error's text from the browser and gives it to onError", async () => {
    const { errors, reported, status, text } = await failedRun("leaky");
    expect(errors.map((e) => e.data)).toEqual([
      {
        error: "RunError",
        message: "The run failed. Try again; if it keeps failing, contact the site's owner.",
        code: "run_failed",
      },
    ]);
    expect(text).not.toContain(SECRET);
    expect(reported).toHaveLength(1);
    expect(String(reported[0])).toContain(SECRET);
    expect(status).toBe("error");
  });

  it("passes an AgentRunError's message and code through", async () => {
    const { errors, reported, status } = await failedRun("meant");
    expect(errors.map((e) => e.data)).toEqual([
      {
        error: "AgentRunError",
        message: "That city is not supported yet.",
        code: "unsupported_city",
      },
    ]);
    expect(reported).toHaveLength(1);
    expect(status).toBe("error");
  });
});
