/**
 * The key on the wire: sent only to the configured origins, only in the one header each call
 * needs, never after a redirect, and never written to the emulator's logs.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient, type StudioClientOptions } from "../../../src/client";
import { startEmulator } from "../../../src/emulator";
import { StudioAPIError, StudioValidationError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { type Loopback, type SeenRequest, sendJson, startLoopback } from "./loopback";

const KEY = "sk-wire-SECRET-5f3a9c1e77";
const MODEL = "studio/echo-small";

const TRANSPORTS: [string, Partial<StudioClientOptions>][] = [
  ["undici", {}],
  ["fetch", { fetch: globalThis.fetch }],
];

/** One call of every kind, each tagged with the header that must carry the key. */
function everyCall(
  c: StudioClient,
): [string, "authorization" | "x-service-key" | "none", () => Promise<unknown>][] {
  const chat = { model: MODEL, messages: [{ role: "user" as const, content: "hi" }] };
  const drain = async (stream: AsyncIterable<unknown>) => {
    for await (const _ of stream) {
      // read to the end (or the error)
    }
  };
  return [
    ["chatCompletion", "authorization", () => c.chatCompletion(chat)],
    ["streamChatCompletion", "authorization", () => drain(c.streamChatCompletion(chat))],
    ["textCompletion", "authorization", () => c.textCompletion({ model: MODEL, prompt: "hi" })],
    [
      "streamTextCompletion",
      "authorization",
      () => drain(c.streamTextCompletion({ model: MODEL, prompt: "hi" })),
    ],
    ["createThread", "x-service-key", () => c.createThread({ metadata: { a: "b" } })],
    ["getThread", "x-service-key", () => c.getThread("thread_1")],
    ["listThreads", "x-service-key", () => c.listThreads({ limit: 5 })],
    ["deleteThread", "x-service-key", () => c.deleteThread("thread_1")],
    [
      "createMessage",
      "x-service-key",
      () => c.createMessage("thread_1", { role: "user", content: "x" }),
    ],
    ["listMessages", "x-service-key", () => c.listMessages("thread_1")],
    ["deleteMessage", "x-service-key", () => c.deleteMessage("thread_1", "msg_1")],
    ["createAssistant", "x-service-key", () => c.createAssistant({ assistantName: "a" })],
    ["getAssistant", "x-service-key", () => c.getAssistant("asst_1")],
    ["deleteAssistant", "x-service-key", () => c.deleteAssistant("asst_1")],
    ["listAssistants", "x-service-key", () => c.listAssistants()],
    [
      "listDatasetThreadsMessages",
      "x-service-key",
      () => c.listDatasetThreadsMessages({ datasetId: "ds_1" }),
    ],
    ["listPublicModels", "none", () => c.listPublicModels()],
  ];
}

describe("the key goes only in the header each call requires", () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await startLoopback((_req, res) =>
      sendJson(res, 418, { error: { message: "teapot" } }),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  for (const [transport, options] of TRANSPORTS) {
    it(`${transport}: exact auth headers per call, the key nowhere else, callers cannot add auth headers`, async () => {
      const settings = {
        apiKey: KEY,
        baseUrl: `${server.origin}/studio/`,
        proxyUrl: `${server.origin}/inference`,
        maxRetries: 0,
        ...options,
      };
      // Credentials smuggled through caller headers are refused, never sent nor dropped quietly.
      expect(
        () => new StudioClient({ ...settings, defaultHeaders: { Authorization: "Bearer x" } }),
      ).toThrow(StudioValidationError);
      expect(
        () => new StudioClient({ ...settings, defaultHeaders: { "X-Service-Key": "x" } }),
      ).toThrow(StudioValidationError);
      const c = new StudioClient({ ...settings, defaultHeaders: { "X-Team": "t" } });
      try {
        for (const [name, header, call] of everyCall(c)) {
          const before = server.seen.length;
          await call().catch(() => undefined);
          const seen = server.seen.slice(before);
          expect(seen, name).toHaveLength(1);
          const request = seen[0] as SeenRequest;
          const { authorization, "x-service-key": serviceKey, ...others } = request.headers;
          if (header === "authorization") {
            expect(authorization, name).toBe(KEY);
            expect(serviceKey, name).toBeUndefined();
          } else if (header === "x-service-key") {
            expect(serviceKey, name).toBe(KEY);
            expect(authorization, name).toBeUndefined();
          } else {
            expect(authorization, name).toBeUndefined();
            expect(serviceKey, name).toBeUndefined();
          }
          expect(request.url, name).not.toContain(KEY);
          expect(request.body, name).not.toContain(KEY);
          expect(JSON.stringify(others), name).not.toContain(KEY);
          expect(request.url, name).not.toContain("//");
        }
        // Per-call headers cannot smuggle them either: refused before anything is sent.
        const before = server.seen.length;
        const refused = await c
          .listPublicModels(undefined, { headers: { authorization: KEY, "x-service-key": KEY } })
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(StudioValidationError);
        expect(String(refused)).not.toContain(KEY);
        expect(server.seen.length).toBe(before);
      } finally {
        await c.close();
      }
    });
  }
});

describe("redirects never carry the key to another origin", () => {
  let first: Loopback;
  let second: Loopback;
  let status = 302;
  beforeAll(async () => {
    second = await startLoopback((_req, res) => sendJson(res, 200, { ok: true }));
    first = await startLoopback((req, res) => {
      res.writeHead(status, { location: `${second.origin}${req.url ?? "/"}` });
      res.end();
    });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  for (const redirect of [301, 302, 303, 307, 308]) {
    for (const [transport, options] of TRANSPORTS) {
      it(`${redirect} on ${transport}: every call fails clearly naming the target, and the target sees nothing`, async () => {
        status = redirect;
        const c = new StudioClient({
          apiKey: KEY,
          baseUrl: first.origin,
          proxyUrl: first.origin,
          maxRetries: 2,
          ...options,
        });
        try {
          for (const [name, , call] of everyCall(c)) {
            const error = await call().then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error, name).toBeInstanceOf(StudioAPIError);
            expect((error as StudioAPIError).status, name).toBe(redirect);
            expect((error as Error).message, name).toContain(second.origin);
            expect((error as Error).message, name).not.toContain(KEY);
          }
          expect(second.seen).toHaveLength(0);
        } finally {
          await c.close();
        }
      });
    }
  }

  it("the LangChain classes surface the redirect as an error too, and the target sees nothing", async () => {
    status = 307;
    const c = new StudioClient({ apiKey: KEY, baseUrl: first.origin, proxyUrl: first.origin });
    try {
      const attempts = [
        () => new ChatStudio({ model: MODEL, client: c }).invoke("hi"),
        () => new ChatStudio({ model: MODEL, client: c, streaming: true }).invoke("hi"),
        () => new StudioLLM({ model: MODEL, client: c }).invoke("hi"),
        () => new StudioChatMessageHistory({ client: c }).addMessage(new HumanMessage("hi")),
        () => new StudioChatMessageHistory({ client: c, threadId: "t" }).getMessages(),
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        // A history write reports what it stored (StudioWriteNotConfirmedError) around the cause.
        const api = error instanceof StudioAPIError ? error : (error as { cause?: unknown })?.cause;
        expect(api, String(error)).toBeInstanceOf(StudioAPIError);
        expect((api as StudioAPIError).status).toBe(307);
      }
      expect(second.seen).toHaveLength(0);
    } finally {
      await c.close();
    }
  });
});

describe("emulator logs never contain the key", () => {
  it("per-request log lines (function and console), the request log, across every kind of call and fault", async () => {
    const lines: string[] = [];
    const logSpy = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const toFunction = await startEmulator({
      port: 0,
      apiKey: KEY,
      log: (line) => lines.push(line),
    });
    const toConsole = await startEmulator({ port: 0, apiKey: KEY, log: true });
    try {
      for (const emulator of [toFunction, toConsole]) {
        const c = new StudioClient({
          apiKey: KEY,
          baseUrl: emulator.baseUrl,
          proxyUrl: emulator.proxyUrl,
          maxRetries: 3,
        });
        const model = new ChatStudio({ model: MODEL, client: c });
        await model.invoke("hello");
        for await (const _ of await model.stream("hello")) {
          // drain
        }
        await new StudioLLM({ model: MODEL, client: c }).invoke("hello");
        const history = new StudioChatMessageHistory({ client: c });
        await history.addMessages([new HumanMessage("a"), new HumanMessage("b")]);
        await history.getMessages();
        await c.createAssistant({ assistantName: "a" });
        await c.listPublicModels();
        // Faulted requests log extra tags; no retries, so this stays quick.
        emulator.setFaults({ rate500Before: 0.3, resetBefore: 0.2, rate429: 0.2, resetAfter: 0.2 });
        const once = new StudioClient({ apiKey: KEY, proxyUrl: emulator.proxyUrl, maxRetries: 0 });
        const faulty = new ChatStudio({ model: MODEL, client: once });
        for (let i = 0; i < 10; i++) await faulty.invoke(`faulty ${i}`).catch(() => undefined);
        await once.close();
        emulator.setFaults(undefined);
        // Wrong keys are logged as refused calls; the right one still must not show.
        const wrong = new StudioClient({
          apiKey: "sk-wrong-000000",
          baseUrl: emulator.baseUrl,
          maxRetries: 0,
        });
        await wrong.getThread("thread_x").catch(() => undefined);
        await wrong.close();
        await c.close();
        expect(JSON.stringify(emulator.requests)).not.toContain(KEY);
      }
      const consoleLines = logSpy.mock.calls.map((args) => args.map(String).join(" "));
      expect(lines.length).toBeGreaterThan(10);
      expect(consoleLines.length).toBeGreaterThan(10);
      for (const line of [...lines, ...consoleLines]) expect(line).not.toContain(KEY);
    } finally {
      logSpy.mockRestore();
      await toFunction.close();
      await toConsole.close();
    }
  });
});
