/**
 * workerd's WebSocket check: runs the bundled `ws-worker-entry.mjs` in workerd WITHOUT
 * `nodejs_compat` (through miniflare, as `workerd-run.mjs` does), upgrades
 * `GET /threads/:id/stream/events` with `dispatchFetch`, and drives a protocol v2 run over the
 * socket the worker answered (its `WebSocketPair`). `node workerd-ws-run.mjs <bundle.js>
 * <options JSON>`; prints one `RUNTIME-RESULT <json>` line, shaped as `server-ws.mjs`'s.
 */
import { readFile } from "node:fs/promises";
import { Log, LogLevel, Miniflare } from "miniflare";

const [bundlePath, optionsJson] = process.argv.slice(2);

/** Bounds the wait for the run's end, so a broken socket is a report rather than a hang. */
const RUN_TIMEOUT_MS = 30_000;

function isRootEnd(message) {
  return (
    message.method === "lifecycle" &&
    message.params.namespace.length === 0 &&
    message.params.data.event === "completed"
  );
}

async function check(mf) {
  const threadId = crypto.randomUUID();
  const response = await mf.dispatchFetch(`http://worker.test/threads/${threadId}/stream/events`, {
    headers: { Upgrade: "websocket" },
  });
  const socket = response.webSocket;
  if (!socket) throw new Error(`the worker answered ${response.status}: ${await response.text()}`);
  const events = [];
  const answers = {};
  let timer;
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
  socket.accept();
  try {
    const subscribe = { channels: ["values", "lifecycle"] };
    socket.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: subscribe }));
    const input = { messages: [{ type: "human", content: "Hello over workerd" }] };
    const start = { assistant_id: "echo", input };
    socket.send(JSON.stringify({ id: 2, method: "run.start", params: start }));
    await ended;
  } finally {
    clearTimeout(timer);
    socket.close();
  }
  const values = events.filter((event) => event.method === "values").at(-1);
  return {
    answers,
    texts: (values?.params.data.messages ?? []).map((message) => message.content),
    channels: [...new Set(events.map((event) => event.method))].sort(),
  };
}

function failed(error) {
  return {
    ok: false,
    error: {
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? (error.stack ?? "").split("\n").slice(0, 8).join("\n") : "",
    },
  };
}

const mf = new Miniflare({
  modules: [{ type: "ESModule", path: "worker.js", contents: await readFile(bundlePath, "utf8") }],
  bindings: { OPTIONS: optionsJson },
  cf: false,
  compatibilityDate: "2026-04-01",
  compatibilityFlags: [],
  log: new Log(LogLevel.WARN),
});
let step;
try {
  step = { ok: true, value: await check(mf) };
} catch (error) {
  step = failed(error);
} finally {
  await mf.dispose().catch(() => undefined);
}
console.log(`RUNTIME-RESULT ${JSON.stringify({ runtime: "workerd", steps: { webSocket: step } })}`);
