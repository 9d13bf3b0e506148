/**
 * A hostile server on loopback echoes the key it was sent back in every form it can: JSON-escaped
 * (`\u0073...`, `\/`), percent-encoded in `Location` and other headers, inside a huge body, and
 * cut at 200 characters. No 12-character piece of the key may show in anything the caller can
 * see: message, stack, String, JSON.stringify, util.inspect at any depth (causes included),
 * `err.body`, `err.headers`, nor in what LangChain hands to callbacks. Both transports.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { inspect } from "node:util";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient, type StudioClientOptions } from "../../../src/client";
import {
  StudioAPIError,
  StudioError,
  StudioResponseError,
  StudioStreamError,
} from "../../../src/errors";
import { type Loopback, startLoopback } from "./loopback";

// `/` and `+` make the escaped and encoded forms differ from the raw one.
const KEY = "sk-echo/LOOPBACK+c0ffee5ca1ab1e42";
const MODEL = "studio/echo-small";

const TRANSPORTS: [string, Partial<StudioClientOptions>][] = [
  ["undici", {}],
  ["fetch", { fetch: globalThis.fetch }],
];

function pieceIn(text: string): string | undefined {
  for (let i = 0; i + 12 <= KEY.length; i++) {
    if (text.includes(KEY.slice(i, i + 12))) return KEY.slice(i, i + 12);
  }
  return undefined;
}

function views(error: unknown): string[] {
  const e = error as Error & { body?: unknown; headers?: unknown };
  return [
    e.message,
    String(e.stack),
    String(e),
    JSON.stringify(e),
    inspect(e, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(e.body ?? null),
    JSON.stringify(e.headers ?? null),
  ];
}

function expectClean(error: unknown, what: string): void {
  expect(error, what).toBeInstanceOf(StudioError);
  for (const view of views(error))
    expect(pieceIn(view), `${what}: ${view.slice(0, 200)}`).toBe(undefined);
}

/** The key as the server received it, in the forms a careless server echoes. */
function forms(key: string) {
  const unicode = [...key]
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .join("");
  return {
    unicode,
    slashes: key.replaceAll("/", "\\/"),
    url: encodeURIComponent(key),
    urlTwice: encodeURIComponent(encodeURIComponent(key)),
  };
}

type Scenario = (key: string, res: ServerResponse) => void;

function send(res: ServerResponse, status: number, headers: Record<string, string>, text: string) {
  res.writeHead(status, { "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

const JSON_TYPE = { "content-type": "application/json" };

/** Each answer echoes the key a different way; the test names which. */
const SCENARIOS: Record<string, Scenario> = {
  "401, JSON body with the key \\u-escaped and \\/-escaped": (key, res) => {
    const f = forms(key);
    send(
      res,
      401,
      JSON_TYPE,
      `{"error":{"message":"invalid key ${f.unicode}","code":"${f.slashes}"},"received":{"${f.slashes}":"${f.unicode}"}}`,
    );
  },
  "307, Location and another header carrying the key percent-encoded": (key, res) => {
    const f = forms(key);
    send(
      res,
      307,
      {
        location: `https://elsewhere.test/login?key=${f.url}&again=${f.urlTwice}`,
        "x-debug": f.url,
      },
      "",
    );
  },
  "500, a huge JSON body (past the error-body limit) with the key escaped everywhere": (
    key,
    res,
  ) => {
    const f = forms(key);
    const filler = "x".repeat(1000);
    const parts = Array.from(
      { length: 200 },
      (_, i) => `"${filler}${i % 2 ? f.unicode : f.slashes}"`,
    );
    send(res, 500, JSON_TYPE, `{"error":{"message":"${f.unicode}"},"log":[${parts.join(",")}]}`);
  },
  "502, an HTML page whose echo is cut at 200 characters": (key, res) => {
    send(
      res,
      502,
      { "content-type": "text/html" },
      `<html><body>${`${"y".repeat(180)}${key}`.slice(0, 200)}</body></html>`,
    );
  },
  "400, a JSON message of 190 characters, then the key": (key, res) => {
    send(res, 400, JSON_TYPE, JSON.stringify({ error: { message: `${"z".repeat(190)}${key}` } }));
  },
  "200 of the wrong shape echoing the key escaped": (key, res) => {
    send(res, 200, JSON_TYPE, `{"unexpected":"${forms(key).unicode}"}`);
  },
  "200, not JSON, echoing the key raw": (key, res) => {
    send(res, 200, { "content-type": "text/plain" }, `oops ${key} oops`);
  },
};

function serviceKey(req: IncomingMessage): string {
  return String(req.headers.authorization ?? req.headers["x-service-key"] ?? "");
}

describe("a server echoing the key in any form: errors never show a piece of it", () => {
  let server: Loopback;
  let scenario: Scenario = () => undefined;
  beforeAll(async () => {
    server = await startLoopback((req, res) => scenario(serviceKey(req), res));
  });
  afterAll(async () => {
    await server.close();
  });

  for (const [transport, options] of TRANSPORTS) {
    for (const [name, answer] of Object.entries(SCENARIOS)) {
      it(`${transport}: ${name}`, async () => {
        scenario = answer;
        const c = new StudioClient({
          apiKey: KEY,
          baseUrl: server.origin,
          proxyUrl: server.origin,
          maxRetries: 0,
          ...options,
        });
        try {
          const calls: [string, () => Promise<unknown>][] = [
            [
              "chatCompletion",
              () => c.chatCompletion({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
            ],
            ["getThread", () => c.getThread("thread_1")],
            ["listDatasetThreadsMessages", () => c.listDatasetThreadsMessages({ datasetId: "d" })],
          ];
          for (const [call, run] of calls) {
            const error = await run().then(
              () => undefined,
              (e: unknown) => e,
            );
            expectClean(error, call);
          }
        } finally {
          await c.close();
        }
        // The server really did see the key, so the echoes above were real.
        expect(server.seen.at(-1)?.headers["x-service-key"]).toBe(KEY);
      });
    }
  }

  it("the echo lands where expected: body and headers kept, the key replaced", async () => {
    const c = new StudioClient({ apiKey: KEY, baseUrl: server.origin, maxRetries: 0 });
    try {
      scenario = SCENARIOS["401, JSON body with the key \\u-escaped and \\/-escaped"]!;
      const unauthorized = (await c.getThread("t").catch((e: unknown) => e)) as StudioAPIError;
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.message).toContain("invalid key [REDACTED]");
      expect(unauthorized.body).toEqual({
        error: { message: "invalid key [REDACTED]", code: "[REDACTED]" },
        received: { "[REDACTED]": "[REDACTED]" },
      });
      scenario = SCENARIOS["307, Location and another header carrying the key percent-encoded"]!;
      const redirect = (await c.getThread("t").catch((e: unknown) => e)) as StudioAPIError;
      expect(redirect.status).toBe(307);
      expect(redirect.headers.location).toBe(
        "https://elsewhere.test/login?key=[REDACTED]&again=[REDACTED]",
      );
      expect(redirect.headers["x-debug"]).toBe("[REDACTED]");
      scenario = SCENARIOS["200 of the wrong shape echoing the key escaped"]!;
      expect(await c.getThread("t").catch((e: unknown) => e)).toBeInstanceOf(StudioResponseError);
    } finally {
      await c.close();
    }
  });

  it("a stream whose error event echoes the key escaped; and what callbacks receive", async () => {
    scenario = (key, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: {"error":{"message":"bad key ${forms(key).unicode}","code":401}}\n\n`);
    };
    const seen: unknown[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override handleLLMError(error: unknown) {
        seen.push(error);
      }
    }
    const c = new StudioClient({ apiKey: KEY, proxyUrl: server.origin, maxRetries: 0 });
    try {
      const direct = await (async () => {
        for await (const _ of c.streamChatCompletion({
          model: MODEL,
          messages: [{ role: "user", content: "hi" }],
        })) {
          // until the error
        }
      })().catch((e: unknown) => e);
      expectClean(direct, "streamChatCompletion");
      const model = new ChatStudio({
        model: MODEL,
        client: c,
        streaming: true,
        callbacks: [new Recorder()],
      });
      const viaModel = await model.invoke("hi").catch((e: unknown) => e);
      expectClean(viaModel, "ChatStudio streaming invoke");
      expect(seen.length).toBeGreaterThan(0);
      for (const error of seen) expectClean(error, "handleLLMError");
      expect(
        [direct, viaModel].some(
          (e) => e instanceof StudioStreamError || e instanceof StudioAPIError,
        ),
      ).toBe(true);
    } finally {
      await c.close();
    }
  });
});
