/**
 * The in-process emulator (`createInProcessEmulator`, `handle.fetch`): the same requests answered
 * over loopback HTTP and in process give the same statuses, headers and bodies; faults fail the
 * way undici's fetch fails; the package's own client runs on it with no socket at all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import {
  createInProcessEmulator,
  type EmulatorFetch,
  type EmulatorHandle,
  IN_PROCESS_ORIGIN,
  startEmulator,
} from "../../../src/emulator";
import { StudioConnectionError } from "../../../src/errors";
import { parseSse } from "./http";

const MODEL = "studio/echo-small";

interface Step {
  method: string;
  /** "studio" paths go under baseUrl with X-Service-Key, "inference" ones under proxyUrl. */
  room: "studio" | "inference" | "root";
  path: string | ((ids: string[]) => string);
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** Leave the key out. */
  noKey?: boolean;
}

const chat = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: "user", content: "hello there, use the search tool" }],
  ...extra,
});
const search = {
  type: "function",
  function: {
    name: "search",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
};

/** A session touching every room, its errors, and both stream kinds. */
const STEPS: Step[] = [
  { method: "GET", room: "root", path: "/health" },
  { method: "POST", room: "studio", path: PATHS.listPublicModels, body: {} },
  { method: "POST", room: "studio", path: PATHS.threads, body: { metadata: { a: "1" } } },
  {
    method: "POST",
    room: "studio",
    path: (ids) => PATHS.messages(ids[0]!),
    body: { role: "user", content: "hi" },
  },
  { method: "GET", room: "studio", path: (ids) => `${PATHS.messages(ids[0]!)}?limit=1` },
  { method: "GET", room: "studio", path: (ids) => PATHS.thread(ids[0]!) },
  { method: "GET", room: "studio", path: PATHS.thread("thread_missing") },
  { method: "DELETE", room: "studio", path: PATHS.threads },
  { method: "GET", room: "studio", path: PATHS.threads, noKey: true },
  { method: "POST", room: "studio", path: PATHS.threads, raw: "{nope" },
  {
    method: "POST",
    room: "studio",
    path: PATHS.threads,
    raw: "{}",
    headers: { "content-type": "text/plain" },
  },
  { method: "POST", room: "inference", path: PATHS.chatCompletions, body: chat() },
  {
    method: "POST",
    room: "inference",
    path: PATHS.chatCompletions,
    body: chat({ tools: [search] }),
  },
  {
    method: "POST",
    room: "inference",
    path: PATHS.chatCompletions,
    body: chat({ stream: true, stream_options: { include_usage: true } }),
  },
  {
    method: "POST",
    room: "inference",
    path: PATHS.chatCompletions,
    body: chat({ stream: true, tools: [search] }),
  },
  {
    method: "POST",
    room: "inference",
    path: PATHS.textCompletions,
    body: { model: MODEL, prompt: "a b c", stream: true },
  },
  { method: "POST", room: "inference", path: PATHS.chatCompletions, body: chat({ n: 0 }) },
  { method: "GET", room: "root", path: "/nowhere" },
  { method: "DELETE", room: "studio", path: (ids) => PATHS.thread(ids[0]!) },
];

interface Seen {
  status: number;
  contentType: string | null;
  allow: string | null;
  text: string;
}

async function runSteps(handle: EmulatorHandle, fetch: EmulatorFetch): Promise<Seen[]> {
  const ids: string[] = [];
  const seen: Seen[] = [];
  const origin = new URL(handle.baseUrl).origin;
  for (const step of STEPS) {
    const path = typeof step.path === "function" ? step.path(ids) : step.path;
    const base =
      step.room === "studio"
        ? handle.baseUrl
        : step.room === "inference"
          ? handle.proxyUrl
          : origin;
    const keyHeader: Record<string, string> = step.noKey
      ? {}
      : step.room === "inference"
        ? { authorization: handle.apiKey }
        : { "x-service-key": handle.apiKey };
    const payload = step.raw ?? (step.body === undefined ? undefined : JSON.stringify(step.body));
    const response = await fetch(`${base}${path}`, {
      method: step.method,
      headers: {
        ...(payload === undefined ? {} : { "content-type": "application/json" }),
        ...keyHeader,
        ...step.headers,
      },
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await response.text();
    if (response.status === 200 && path === PATHS.threads && step.method === "POST") {
      ids.push((JSON.parse(text) as { id: string }).id);
    }
    // Addresses and clocks differ between the two emulators; everything else must not.
    const normalised = text
      .split(handle.baseUrl)
      .join("<base>")
      .split(handle.proxyUrl)
      .join("<proxy>")
      .replace(/"(created|createdAt|updatedAt)":("[^"]*"|\d+)/g, '"$1":0')
      // Completion and tool-call ids are unique across the emulators of a process (ids.test.ts).
      .replace(/"(chatcmpl|cmpl)-[0-9a-z]{24}"/g, '"$1-<id>"')
      .replace(/"call_\d+"/g, '"call_<n>"');
    seen.push({
      status: response.status,
      contentType: response.headers.get("content-type"),
      allow: response.headers.get("allow"),
      text: normalised,
    });
  }
  return seen;
}

describe("equivalence with the HTTP server", () => {
  it("a session over every room answers byte for byte the same, but for clocks, addresses and process-unique ids", async () => {
    const overHttp = await startEmulator({ seed: 7 });
    const inProcess = await createInProcessEmulator({ seed: 7 });
    try {
      const http = await runSteps(overHttp, globalThis.fetch);
      const local = await runSteps(inProcess, inProcess.fetch);
      expect(local.map((s) => s.status)).toEqual(http.map((s) => s.status));
      expect(local).toEqual(http);
      // The session did meet errors, streams and successes.
      expect(new Set(http.map((s) => s.status))).toEqual(new Set([200, 400, 401, 404, 405, 415]));
      expect(http.filter((s) => s.contentType?.startsWith("text/event-stream"))).toHaveLength(3);
      expect(inProcess.requests.map((r) => r.path)).toEqual(overHttp.requests.map((r) => r.path));
    } finally {
      await overHttp.close();
      await inProcess.close();
    }
  });

  it("handle.fetch of a listening emulator serves the same state as its port", async () => {
    const emulator = await startEmulator();
    try {
      const created = await emulator.fetch(`${emulator.baseUrl}${PATHS.threads}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": emulator.apiKey },
        body: "{}",
      });
      const { id } = (await created.json()) as { id: string };
      const read = await fetch(`${emulator.baseUrl}${PATHS.thread(id)}`, {
        headers: { "x-service-key": emulator.apiKey },
      });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id });
    } finally {
      await emulator.close();
    }
  });
});

describe("the in-process emulator", () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await createInProcessEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });
  afterEach(async () => {
    emulator.setFaults();
    await emulator.reset();
  });

  const post = (path: string, body: unknown, init: RequestInit = {}) =>
    emulator.fetch(`${emulator.proxyUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: emulator.apiKey },
      body: JSON.stringify(body),
      ...init,
    });

  it("has no port; its addresses are on an origin that never resolves", () => {
    expect(emulator.port).toBe(0);
    expect(emulator.baseUrl).toBe(`${IN_PROCESS_ORIGIN}/studio`);
    expect(emulator.proxyUrl).toBe(`${IN_PROCESS_ORIGIN}/inference`);
  });

  it("runs the package's client, threads and streamed completions, with no socket", async () => {
    const client = new StudioClient({
      baseUrl: emulator.baseUrl,
      proxyUrl: emulator.proxyUrl,
      apiKey: emulator.apiKey,
      fetch: emulator.fetch,
    });
    const thread = await client.createThread({});
    await client.createMessage(thread.id, { role: "user", content: "hi" });
    const page = await client.listMessages(thread.id);
    expect(page.data.map((m) => m.content)).toEqual([[{ type: "text", text: "hi" }]]);
    emulator.script(MODEL, ["scripted in process"]);
    let text = "";
    for await (const chunk of client.streamChatCompletion(chat())) {
      text += chunk.choices[0]?.delta.content ?? "";
    }
    expect(text).toBe("scripted in process");
  });

  it("a reset fault rejects as undici does, and the client calls it a connection error", async () => {
    emulator.setFaults({ resetBefore: 1 });
    try {
      const error = await post(PATHS.chatCompletions, chat()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe("fetch failed");
      expect((error as { cause: { code: string } }).cause.code).toBe("UND_ERR_SOCKET");
      const client = new StudioClient({
        baseUrl: emulator.baseUrl,
        proxyUrl: emulator.proxyUrl,
        apiKey: emulator.apiKey,
        fetch: emulator.fetch,
        maxRetries: 0,
      });
      await expect(client.createThread({})).rejects.toBeInstanceOf(StudioConnectionError);
    } finally {
      emulator.setFaults();
    }
  });

  it("an injected 429 carries its Retry-After; a resetAfter commits the work before failing", async () => {
    emulator.setFaults({ rate429: 1, retryAfterSeconds: 3 });
    const limited = await post(PATHS.chatCompletions, chat());
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(((await limited.json()) as { error: { type: string } }).error.type).toBe(
      "rate_limit_error",
    );
    emulator.setFaults({ resetAfter: 1, match: "/threads" });
    const studio = { "content-type": "application/json", "x-service-key": emulator.apiKey };
    await expect(
      emulator.fetch(`${emulator.baseUrl}${PATHS.threads}`, {
        method: "POST",
        headers: studio,
        body: "{}",
      }),
    ).rejects.toThrow("fetch failed");
    emulator.setFaults();
    const list = await emulator.fetch(`${emulator.baseUrl}${PATHS.threads}`, { headers: studio });
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  it("a stream cut delivers the events sent, then the body fails with undici's 'terminated'", async () => {
    emulator.setFaults({ streamCut: 1 });
    try {
      const response = await post(PATHS.chatCompletions, chat({ stream: true }));
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      const failure = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return undefined;
          text += decoder.decode(value, { stream: true });
        }
      })().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe("terminated");
      expect(text.startsWith("data: ")).toBe(true);
      expect(text).not.toContain("[DONE]");
    } finally {
      emulator.setFaults();
    }
  });

  it("a request's headers as a plain object, a Headers or pairs are read alike", async () => {
    const recording = await createInProcessEmulator({ recordRequests: 10 } as never);
    try {
      const headers = {
        "X-Service-Key": ` ${recording.apiKey}\t`,
        "X-Custom": " kept inside ",
      };
      const url = `${recording.baseUrl}${PATHS.threads}`;
      const body = JSON.stringify({ metadata: { a: "1" } });
      const statuses = [];
      for (const given of [headers, new Headers(headers), Object.entries(headers)]) {
        statuses.push(
          (await recording.fetch(url, { method: "post", headers: given, body })).status,
        );
      }
      // An unusual method is kept as given, as `Request` keeps it.
      await recording.fetch(url, { method: "patch", headers, body });
      // The key was read (its padding stripped): refused for the body's type, not the key.
      expect(statuses).toEqual([415, 415, 415]);
      const seen = recording.requests.map((r) => ({ ...r, at: undefined, id: undefined }));
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
      expect(seen[0]).toMatchObject({
        method: "POST",
        headers: { "x-custom": "kept inside", "content-type": "text/plain;charset=UTF-8" },
      });
      expect(seen[3]?.method).toBe("patch");
    } finally {
      await recording.close();
    }
  });

  it("an aborted signal rejects with its reason, before and during the answer", async () => {
    const before = new AbortController();
    before.abort(new Error("gave up"));
    await expect(post(PATHS.chatCompletions, chat(), { signal: before.signal })).rejects.toThrow(
      "gave up",
    );
    emulator.script(MODEL, [{ text: "slow", delayMs: 5_000 }]);
    const during = new AbortController();
    const pending = post(PATHS.chatCompletions, chat(), { signal: during.signal });
    during.abort(new Error("took too long"));
    await expect(pending).rejects.toThrow("took too long");
  });

  it("a reader that stops reading holds a long stream back; cancelling it frees the emulator", async () => {
    const long = "word ".repeat(100_000);
    emulator.script(MODEL, [long, "after"]);
    const response = await post(PATHS.chatCompletions, chat({ stream: true }));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    const next = await post(PATHS.chatCompletions, chat());
    expect(
      ((await next.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content,
    ).toBe("after");
  });

  it("streams parse as the HTTP server's do: role chunk, content, finish, [DONE]", async () => {
    const response = await post(PATHS.chatCompletions, chat({ stream: true }));
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const { events, done } = parseSse<{ choices: { delta: { content?: string } }[] }>(
      await response.text(),
    );
    expect(done).toBe(true);
    expect(events.map((e) => e.choices[0]?.delta.content ?? "").join("")).toBe(
      "You said: hello there, use the search tool",
    );
  });

  it("after close() it refuses as a port nobody listens on", async () => {
    const closing = await createInProcessEmulator();
    await closing.close();
    const error = await closing
      .fetch(`${closing.baseUrl}${PATHS.threads}`, { headers: { "x-service-key": "k" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { cause: { code: string } }).cause.code).toBe("ECONNREFUSED");
  });
});
