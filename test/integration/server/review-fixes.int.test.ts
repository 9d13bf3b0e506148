/**
 * Defects a review found in the Agent Server handler, each driven through the SDK's `Client`
 * against the emulator: queued runs racing, evicted live runs, leaked error text, spoofed
 * metadata, unbounded buffers and bodies, and a PATCH lost to a run's final save.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type LangGraphRunnableConfig,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

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

describe("createAgentServer: errors it did not expect", () => {
  function searchThreads(handler: (request: Request) => Promise<Response>) {
    return handler(
      new Request("http://agent.test/threads/search", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      }),
    );
  }

  it("answers 500 without the error's text and hands the error to onError", async () => {
    const seen: { error: unknown; request: Request }[] = [];
    const wrongKey = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: "sk-wrong-key-for-org-acme-internal",
      maxRetries: 0,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, {
      client: wrongKey,
      onError: (error, request) => {
        seen.push({ error, request });
      },
    });
    const response = await searchThreads(handler);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: "Internal Server Error", message: "internal error" });
    expect(text).not.toContain(new URL(emulator.handle.baseUrl).host);
    expect(seen.length).toBe(1);
    expect(seen[0]?.error).toBeInstanceOf(Error);
    expect(seen[0]?.request.url).toBe("http://agent.test/threads/search");
  });

  it("logs the error with console.error when no onError is given", async () => {
    const wrongKey = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: "sk-wrong-key",
      maxRetries: 0,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, { client: wrongKey });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect((await searchThreads(handler)).status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0]?.some((arg) => arg instanceof Error)).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  it("answers 503 when the service rate-limits the server", async () => {
    const limited = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: emulator.handle.apiKey,
      maxRetries: 0,
      fetch: async () =>
        new Response(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }), {
          status: 429,
          headers: { "Content-Type": "application/json", "Retry-After": "7" },
        }),
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, { client: limited, onError: () => {} });
    const response = await searchThreads(handler);
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("7");
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("Service Unavailable");
    expect(body.message).not.toContain("slow down");
  });
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

describe("createAgentServer: request size", () => {
  it("answers 413 to a body over maxBodyBytes, with or without Content-Length", async () => {
    const { handler } = studioServer(emulator.handle, { maxBodyBytes: 2000 });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    await expect(
      collect(client.runs.stream(thread.thread_id, "echo", { input: say("x".repeat(3000)) })),
    ).rejects.toThrow(/413/);
    const body = JSON.stringify({ assistant_id: "echo", input: say("y".repeat(3000)) });
    const streamed = await handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/stream`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: new Blob([body]).stream(),
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: "Payload Too Large" });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({});
    // Under the limit, the run goes on as usual.
    const events = await collect(
      client.runs.stream(thread.thread_id, "echo", { input: say("ok") }),
    );
    expect(texts(events.filter((e) => e.event === "values").at(-1)?.data)).toContain(
      "You said: ok",
    );
  });
});

describe("createAgentServer: a PATCH while a run ends", () => {
  it("keeps metadata patched while the run reads its final state", async () => {
    const client0 = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: emulator.handle.apiKey,
    } as ConstructorParameters<typeof StudioClient>[0]);
    let client: ReturnType<typeof sdkClient> | undefined;
    let threadId = "";
    let patchNextRead = false;
    /** The run's final state read is the first read after its node ran: PATCH right then. */
    class PatchingSaver extends StudioCheckpointSaver {
      override async getTuple(config: RunnableConfig) {
        if (patchNextRead && client) {
          patchNextRead = false;
          await client.threads.update(threadId, { metadata: { pinned: true } });
        }
        return super.getTuple(config);
      }
    }
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("reply", () => {
        patchNextRead = true;
        return { messages: [new AIMessage({ content: "done" })] };
      })
      .addEdge(START, "reply")
      .compile();
    const { handler } = studioServer(emulator.handle, {
      graphs: { patched: graph },
      checkpointer: new PatchingSaver({ client: client0 }),
    });
    client = sdkClient(handler);
    threadId = (await client.threads.create({ metadata: { from: "test" } })).thread_id;
    await collect(client.runs.stream(threadId, "patched", { input: say("hi") }));
    expect(patchNextRead).toBe(false);
    const thread = await client.threads.get(threadId);
    expect(thread.metadata).toMatchObject({ from: "test", pinned: true, graph_id: "patched" });
  });
});

describe("createAgentServer: DELETE during a run", () => {
  it("leaves no checkpoint of the thread behind, even those being written when it came", async () => {
    class SlowSaver extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return super.put(...args);
      }
      override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return super.putWrites(...args);
      }
    }
    const saver = new SlowSaver();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("a", () => ({ messages: [new AIMessage({ content: "a" })] }))
      .addNode("b", () => ({ messages: [new AIMessage({ content: "b" })] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    const { handler } = studioServer(emulator.handle, {
      graphs: { two: graph },
      checkpointer: saver,
    });
    const client = sdkClient(handler);
    const { thread_id } = await client.threads.create();
    const running = await handler(
      post(thread_id, { assistant_id: "two", input: say("secret"), on_disconnect: "continue" }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.threads.delete(thread_id);
    await running.text();
    await new Promise((resolve) => setTimeout(resolve, 800));
    const left: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id } })) left.push(tuple);
    expect(left).toEqual([]);
    expect(JSON.stringify(saver.writes)).not.toContain(thread_id);
    await expect(client.threads.get(thread_id)).rejects.toThrow(/404/);
  });
});
