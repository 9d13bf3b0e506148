/**
 * The runtime matrix's WebSocket check, for runtimes that serve (Bun, Deno):
 * `<runtime> server-ws.mjs <name> <options JSON>`. The BUILT `createAgentServer` is served by the
 * runtime's own server (`Deno.serve`; `Bun.serve` with `bunWebSocket`), and the runtime's own
 * `WebSocket` drives protocol v2 over it: a subscription given before the thread exists, then the
 * `run.start` that creates it, until the run's root `lifecycle` completes. Prints one
 * `RUNTIME-RESULT <json>` line.
 */
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { StudioClient } from "langchain-studio";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { bunWebSocket, createAgentServer } from "langchain-studio/server";

const args = globalThis.Deno ? globalThis.Deno.args : globalThis.process.argv.slice(2);
const [runtime, optionsJson] = args;

/** Bounds the wait for the run's end, so a broken socket is a report rather than a hang. */
const RUN_TIMEOUT_MS = 30_000;

function echoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (state) => {
      const last = state.messages.at(-1);
      return { messages: [new AIMessage({ content: `You said: ${last?.text ?? ""}` })] };
    })
    .addEdge(START, "reply")
    .compile();
}

function serve(handler) {
  if (globalThis.Deno) {
    const server = globalThis.Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      handler,
    );
    return { port: server.addr.port, stop: () => server.shutdown() };
  }
  const server = globalThis.Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: handler,
    websocket: bunWebSocket,
  });
  return { port: server.port, stop: () => server.stop(true) };
}

function isRootEnd(message) {
  return (
    message.method === "lifecycle" &&
    message.params.namespace.length === 0 &&
    message.params.data.event === "completed"
  );
}

async function check(options) {
  const client = new StudioClient(options);
  const handler = createAgentServer({
    graphs: { echo: echoGraph() },
    checkpointer: new StudioCheckpointSaver({ client, datasetId: "runtime-ws" }),
    client,
  });
  const server = serve(handler);
  const threadId = crypto.randomUUID();
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/threads/${threadId}/stream/events`);
  const events = [];
  const answers = {};
  let timer;
  try {
    const ended = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("the run's end never came")), RUN_TIMEOUT_MS);
      socket.addEventListener("message", ({ data }) => {
        const message = JSON.parse(String(data));
        if (message.type !== "event") {
          answers[message.id] = message.type;
          return;
        }
        events.push(message);
        if (isRootEnd(message)) resolve();
      });
      socket.addEventListener("close", ({ code }) => reject(new Error(`closed with ${code}`)));
    });
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve, { once: true });
      socket.addEventListener("error", () => reject(new Error("the WebSocket did not open")));
    });
    const subscribe = { channels: ["values", "lifecycle"] };
    socket.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: subscribe }));
    const input = { messages: [{ type: "human", content: `Hello over ${runtime}` }] };
    const start = { assistant_id: "echo", input };
    socket.send(JSON.stringify({ id: 2, method: "run.start", params: start }));
    await ended;
    const values = events.filter((event) => event.method === "values").at(-1);
    return {
      answers,
      texts: (values?.params.data.messages ?? []).map((message) => message.content),
      channels: [...new Set(events.map((event) => event.method))].sort(),
    };
  } finally {
    clearTimeout(timer);
    socket.close();
    await server.stop();
  }
}

let result;
try {
  result = {
    runtime,
    steps: { webSocket: { ok: true, value: await check(JSON.parse(optionsJson)) } },
  };
} catch (error) {
  const stack =
    error instanceof Error ? (error.stack ?? "").split("\n").slice(0, 8).join("\n") : "";
  result = {
    runtime,
    steps: {
      webSocket: {
        ok: false,
        error: {
          name: error instanceof Error ? error.name : typeof error,
          message: error instanceof Error ? error.message : String(error),
          stack,
        },
      },
    },
  };
}
console.log(`RUNTIME-RESULT ${JSON.stringify(result)}`);
