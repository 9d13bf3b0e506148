/**
 * StudioChatMessageHistory against the emulator (in this process): time to load a 1,000-message
 * thread and to add 100 messages to an existing thread, and the HTTP calls each one makes (the
 * targets are the issue's: 10 list calls of 100, and one call per message with no reads).
 *
 * "sessions" (issue 19): what a `sessionId` costs in a fresh process, in accounts of 1,000, 10,000
 * and 50,000 threads. Each measurement runs in a child process of its own (nothing cached), builds
 * its history from client options as most people write it, and counts calls and response bytes
 * with the `fetch` it gives the history; the account is seeded through the emulator's HTTP API.
 * Calls and bytes are the package's part and carry the ceilings. The time (informational) is a
 * process's first calls, module loading and JIT included, plus the emulator's own time, which
 * grows with the account because the emulator filters a dataset by scanning all its threads.
 *
 *   npx tsx bench/history.ts            # both entries
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Pool } from "undici";
import { StudioChatMessageHistory } from "../src/chat_history";
import { StudioClient } from "../src/client";
import { decodeMessage, encodeMessage } from "../src/converters/thread-messages";
import { startEmulator } from "../src/emulator";
import { sessionDatasetId } from "../src/threads/session-datasets";
import { startChildEmulator } from "./emulator-child";
import { type BenchEntry, type BenchRow, measurePerCall, median, runIfMain } from "./harness";

function conversation(size: number, tag: string): BaseMessage[] {
  return Array.from({ length: size }, (_, i) =>
    i % 2 === 0
      ? new HumanMessage(`${tag} question ${i}: how does the weather look for tomorrow?`)
      : new AIMessage({
          content: `${tag} answer ${i}: mostly sunny, 22°C, light wind from the west.`,
          usage_metadata: { input_tokens: 12, output_tokens: 14, total_tokens: 26 },
          response_metadata: { model_provider: "studio", finish_reason: "stop" },
        }),
  );
}

/** An agent's turns: a question, two parallel tool calls, their results, the answer. */
function agentSession(turns: number): BaseMessage[] {
  return Array.from({ length: turns }, (_, n) => {
    const ids = [`call_${n}_a`, `call_${n}_b`];
    return [
      new HumanMessage(`question ${n}: what is the weather in Paris and in Lyon?`),
      new AIMessage({
        content: "",
        tool_calls: ids.map((id, k) => ({
          id,
          name: "get_weather",
          args: { city: k ? "Lyon" : "Paris" },
          type: "tool_call" as const,
        })),
      }),
      ...ids.map((id) => new ToolMessage({ content: "sunny, 22°C", tool_call_id: id })),
      new AIMessage(`answer ${n}: sunny in both.`),
    ];
  }).flat();
}

function callsRow(what: string, calls: number, expected: number): BenchRow {
  return {
    what,
    value: calls,
    unit: "calls",
    target: `= ${expected}`,
    pass: calls === expected,
  };
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startEmulator();
  const client = new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl });
  try {
    const big = new StudioChatMessageHistory({ client });
    await big.addMessages(conversation(1000, "load"));
    const threadId = big.threadId!;

    emulator.clearRequests();
    const loaded = await new StudioChatMessageHistory({ client, threadId }).getMessages();
    if (loaded.length !== 1000) throw new Error(`loaded ${loaded.length} messages, not 1000`);
    const loadCalls = emulator.requests.length;

    const target = new StudioChatMessageHistory({ client });
    await target.getThreadId();
    emulator.clearRequests();
    await target.addMessages(conversation(100, "add"));
    const addCalls = emulator.requests.length;

    const loadUs = await measurePerCall(
      () => new StudioChatMessageHistory({ client, threadId }).getMessages(),
      { warmup: 3, rounds: 7, iterations: 5 },
    );
    const addUs = await measurePerCall(() => target.addMessages(conversation(100, "add")), {
      warmup: 2,
      rounds: 7,
      iterations: 3,
    });

    // The codec's share of the above: encoding and decoding one message, no network.
    const sample = conversation(2, "codec")[1]!;
    const codecUs = await measurePerCall(
      async () => {
        const input = encodeMessage(sample, "00000000-0000-4000-8000-000000000000");
        const content =
          typeof input.content === "string" ? [] : input.content.map((item) => ({ ...item }));
        return decodeMessage({ id: "m", role: input.role, content, metadata: input.metadata });
      },
      { warmup: 500, rounds: 7, iterations: 2000 },
    );

    // A window of an agent's thread: one read, cut at a question (never at a tool result).
    const agent = new StudioChatMessageHistory({ client });
    await agent.addMessages(agentSession(100));
    emulator.clearRequests();
    const window = await new StudioChatMessageHistory({
      client,
      threadId: agent.threadId!,
      maxMessages: 6,
    }).getMessages();
    const windowCalls = emulator.requests.length;
    if (window[0]?.getType() !== "human")
      throw new Error("the window does not start on a question");

    return [
      callsRow(
        "history getMessages, maxMessages 6, 500-message agent thread (tools): HTTP calls",
        windowCalls,
        1,
      ),
      {
        what: "history getMessages, maxMessages 6, agent thread: messages returned (one whole turn)",
        value: window.length,
        unit: "messages",
        target: "= 5",
        pass: window.length === 5,
      },
      { what: "history getMessages, 1,000-message thread", value: loadUs / 1000, unit: "ms/op" },
      callsRow("history getMessages, 1,000 messages: HTTP calls", loadCalls, 10),
      { what: "history addMessages, 100 messages", value: addUs / 1000, unit: "ms/op" },
      callsRow("history addMessages, 100 messages: HTTP calls", addCalls, 100),
      { what: "history codec, encode + decode one AI message", value: codecUs, unit: "µs/op" },
    ];
  } finally {
    await client.close();
    await emulator.close();
  }
}

export const historyBench: BenchEntry = { name: "history", run };

const ACCOUNT_SIZES = [1_000, 10_000, 50_000];
/** Issue 19's ceilings: a fresh process at 50,000 threads, a second history in a warm one. */
const MAX_FRESH_CALLS = 5;
const MAX_WARM_CALLS = 3;
const SEED_CONNECTIONS = 8;
const TIMED_PROCESSES = 3;
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** What one measured operation cost in its process. */
interface Cost {
  calls: number;
  bytes: number;
  ms: number;
}

type Operation = "read" | "new" | "turn" | "warm";

/** Where the measured processes find the service. */
interface Service {
  baseUrl: string;
  apiKey: string;
}

/**
 * One operation in this (fresh) process, on a history built from client options: "read" an
 * existing session, look up a "new" one, write a new session's first "turn", or read an existing
 * session with a second history once a first one has ("warm").
 */
export async function measureInThisProcess(input: {
  baseUrl: string;
  apiKey: string;
  sessionId: string;
  operation: Operation;
}): Promise<Cost> {
  const cost = { calls: 0, bytes: 0 };
  const fetchCounted = async (request: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(request, init);
    cost.calls += 1;
    cost.bytes += (await response.clone().arrayBuffer()).byteLength;
    return response;
  };
  const history = (sessionId: string) =>
    new StudioChatMessageHistory({
      baseUrl: input.baseUrl,
      apiKey: input.apiKey,
      fetch: fetchCounted,
      sessionId,
    });
  if (input.operation === "warm") await history(input.sessionId).getMessages();
  Object.assign(cost, { calls: 0, bytes: 0 });
  const started = performance.now();
  if (input.operation === "turn") {
    await history(input.sessionId).addMessages([new HumanMessage("Q"), new AIMessage("A")]);
  } else {
    await history(input.sessionId).getMessages();
  }
  return { ...cost, ms: performance.now() - started };
}

/** `measureInThisProcess` in a child process of its own: what a fresh process pays. */
function measureInFreshProcess(
  emulator: Service,
  sessionId: string,
  operation: Operation,
): Promise<Cost> {
  const input = { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, sessionId, operation };
  const script = [
    'const { measureInThisProcess } = await import("./bench/history.ts");',
    "const cost = await measureInThisProcess(JSON.parse(process.env.BENCH_INPUT));",
    "process.stdout.write(JSON.stringify(cost));",
  ].join("");
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_INPUT: JSON.stringify(input) },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolve(JSON.parse(output) as Cost);
      else reject(new Error(`the measuring process exited with code ${code}`));
    });
  });
}

/** Grows the account to `size` threads, each a session's thread filed as the history files it. */
async function seedSessions(emulator: Service, from: number, size: number): Promise<void> {
  const studio = new URL(emulator.baseUrl);
  const pool = new Pool(studio.origin, { connections: SEED_CONNECTIONS });
  const headers = { "content-type": "application/json", "x-service-key": emulator.apiKey };
  let next = from;
  const worker = async () => {
    while (next < size) {
      const sessionId = `user-${next++}`;
      const body = JSON.stringify({
        title: "Support",
        datasetId: await sessionDatasetId("history", sessionId),
        metadata: { lc_session: sessionId, lc_kind: "history" },
        messages: [{ role: "user", content: `I am ${sessionId}.` }],
      });
      const response = await pool.request({
        method: "POST",
        path: `${studio.pathname}/v1/threads`,
        headers,
        body,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`seeding got ${response.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: SEED_CONNECTIONS * 2 }, worker));
  } finally {
    await pool.close();
  }
}

function ceilingRow(what: string, calls: number, ceiling: number): BenchRow {
  return { what, value: calls, unit: "calls", target: `<= ${ceiling}`, pass: calls <= ceiling };
}

async function runSessions(): Promise<BenchRow[]> {
  // In a process of its own, so that the emulator's heap of 50,000 threads does not slow the
  // measured processes' calls with this process's garbage collections.
  const emulator = await startChildEmulator();
  const rows: BenchRow[] = [];
  try {
    // The session measured, written the way the history writes it (which records the filing).
    await new StudioChatMessageHistory({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      sessionId: "ada",
    }).addMessages([new HumanMessage("Hi, I am Ada."), new AIMessage("Hello Ada.")]);
    let size = 2;
    for (const target of ACCOUNT_SIZES) {
      await seedSessions(emulator, size, target);
      size = target;
      const threads = target.toLocaleString("en-US");
      // Calls and bytes are the same in every process; the time of a process's first calls is
      // noisy (module loading, JIT, the emulator's heap in this process), so it is a median.
      const reads: Cost[] = [];
      for (let i = 0; i < TIMED_PROCESSES; i++) {
        reads.push(await measureInFreshProcess(emulator, "ada", "read"));
      }
      const read = { ...reads[0]!, ms: median(reads.map((r) => r.ms)) };
      rows.push(
        ceilingRow(
          `sessionId getMessages, fresh process, ${threads} threads: HTTP calls`,
          read.calls,
          MAX_FRESH_CALLS,
        ),
        { what: `  same: response bytes`, value: read.bytes / 1024, unit: "KB" },
        {
          what: `  same: time, median of ${TIMED_PROCESSES} fresh processes`,
          value: read.ms,
          unit: "ms",
        },
      );
    }
    const threads = size.toLocaleString("en-US");
    const fresh = await measureInFreshProcess(emulator, `new-${crypto.randomUUID()}`, "new");
    const turn = await measureInFreshProcess(emulator, `new-${crypto.randomUUID()}`, "turn");
    const warm = await measureInFreshProcess(emulator, "ada", "warm");
    rows.push(
      ceilingRow(
        `sessionId look-up of a new session, fresh process, ${threads} threads: HTTP calls`,
        fresh.calls,
        MAX_FRESH_CALLS,
      ),
      ceilingRow(
        `sessionId first turn of a new session, fresh process, ${threads} threads: HTTP calls`,
        turn.calls,
        MAX_FRESH_CALLS,
      ),
      ceilingRow(
        "sessionId getMessages, second history from options, warm process: HTTP calls",
        warm.calls,
        MAX_WARM_CALLS,
      ),
    );
    return rows;
  } finally {
    await emulator.stop();
  }
}

export const sessionsBench: BenchEntry = { name: "sessions", run: runSessions };

await runIfMain(import.meta.url, {
  name: "history",
  run: async () => [...(await run()), ...(await runSessions())],
});
