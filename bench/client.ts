/**
 * StudioClient's non-streaming call next to a bare undici request on the same loopback server, in
 * the same process, measured in interleaved rounds. Both sides send the same JSON body (stringified
 * per call, as any caller must) and parse the JSON answer; the client additionally builds headers,
 * arms its timeout, checks the status and validates the answer with zod. Context, not a target:
 * the package's ceilings are set against ChatOpenAI (bench/chat.ts).
 *
 * Standalone: `npx tsx bench/client.ts`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { StudioClient } from "../src/client";
import {
  type BenchEntry,
  type BenchRow,
  informational,
  measureInterleaved,
  ratioRow,
  runIfMain,
} from "./harness";

const COMPLETION = JSON.stringify({
  id: "chatcmpl_bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "owner/model",
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  choices: [
    { index: 0, message: { role: "assistant", content: "You said: hello" }, finish_reason: "stop" },
  ],
});

const REQUEST = {
  model: "owner/model",
  messages: [{ role: "user" as const, content: "hello" }],
  max_tokens: 16,
};

async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(COMPLETION),
      });
      res.end(COMPLETION);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function run(): Promise<BenchRow[]> {
  const server = await startServer();
  const client = new StudioClient({ apiKey: "bench-key-0000", proxyUrl: server.url });
  const pool = new Pool(server.url);
  const headers = {
    authorization: "bench-key-0000",
    "content-type": "application/json",
    accept: "application/json",
  };
  try {
    const result = await measureInterleaved(
      {
        client: () => client.chatCompletion(REQUEST),
        undici: async () => {
          const { body } = await pool.request({
            path: "/chat/completions",
            method: "POST",
            headers,
            body: JSON.stringify(REQUEST),
          });
          return body.json();
        },
      },
      { warmup: 1000, rounds: 21, iterations: 300 },
    );
    return [
      informational(
        ratioRow(
          "client chatCompletion (non-streaming, loopback)",
          result.client!,
          "µs/call",
          "bare undici Pool.request + body.json()",
          result.undici!,
          Number.POSITIVE_INFINITY,
        ),
      ),
    ];
  } finally {
    await client.close();
    await pool.close();
    await server.close();
  }
}

export const clientBench: BenchEntry = { name: "client", run };

await runIfMain(import.meta.url, clientBench);
