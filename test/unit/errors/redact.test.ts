/**
 * errors/redact.ts: no piece of a registered key (12 characters or more) survives in any form a
 * server may echo it: raw, JSON-escaped, percent-encoded, as HTML character references, nested,
 * or cut short. And the error classes use it for every field, cause and view.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  apiErrorFromResponse,
  excerpt,
  parseErrorBody,
} from "../../../src/client/errors-from-response";
import type { ResponseHead } from "../../../src/client/transport";
import {
  registerSecret,
  StudioAPIError,
  StudioConnectionError,
  StudioError,
  StudioResponseError,
  StudioStreamError,
} from "../../../src/errors";
import { REDACTED, redactCause, redactDeep, redactText } from "../../../src/errors/redact";

// `/` and `+` make the JSON (`\/`) and URL (`%2F`, `%2B`) forms differ from the raw one.
const KEY = "sk-redact/UNIT+9f3c2a7e41b8d05c";
registerSecret(KEY);

/** The first 12-character piece of the key found in `text`, or undefined. */
function pieceIn(text: string): string | undefined {
  for (let i = 0; i + 12 <= KEY.length; i++) {
    const piece = KEY.slice(i, i + 12);
    if (text.includes(piece)) return piece;
  }
  return undefined;
}

/** Every usual view of an error, causes and all. */
function views(error: Error): string[] {
  const out = [
    error.message,
    String(error.stack),
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ];
  const api = error as Partial<StudioAPIError>;
  if (api.body !== undefined) out.push(JSON.stringify(api.body));
  if (api.headers !== undefined) out.push(JSON.stringify(api.headers));
  return out;
}

function expectClean(error: Error): void {
  for (const view of views(error)) expect(pieceIn(view), view.slice(0, 300)).toBeUndefined();
}

const unicodeEscaped = [...KEY]
  .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  .join("");
const percentAll = [...KEY]
  .map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
  .join("");

describe("redactText", () => {
  const forms: [string, string][] = [
    ["raw", `bad key ${KEY} given`],
    ["JSON \\u escapes, every character", `bad key ${unicodeEscaped} given`],
    ["JSON \\u escapes, some characters", `key ${KEY.slice(0, 5)}\\u0072${KEY.slice(6)}`],
    ["JSON \\/", `key ${KEY.replace("/", "\\/")}`],
    ["encodeURIComponent", `https://evil.test/?k=${encodeURIComponent(KEY)}`],
    ["percent-encoded, every character (lower-case hex)", `?k=${percentAll.toLowerCase()}`],
    ["percent-encoded twice", `?k=${encodeURIComponent(encodeURIComponent(KEY))}`],
    ["JSON-escaped inside a URL", `?k=${encodeURIComponent(unicodeEscaped)}`],
    ["HTML character references", [...KEY].map((c) => `&#${c.charCodeAt(0)};`).join("")],
    ["cut: all but the last character", `...${KEY.slice(0, -1)}`],
    ["cut: the last 12 characters", `${KEY.slice(-12)} end`],
    ["cut: a middle piece of 14", `x${KEY.slice(5, 19)}y`],
    ["twice, adjacent", `${KEY}${KEY}`],
  ];
  for (const [name, text] of forms) {
    it(name, () => {
      const out = redactText(text);
      expect(pieceIn(out)).toBeUndefined();
      expect(out).toContain(REDACTED);
    });
  }

  it("a key cut at 200 characters by a message limit, before or after redaction", () => {
    const message = `${"x".repeat(180)}${KEY} and more`;
    expect(pieceIn(redactText(message).slice(0, 200))).toBeUndefined();
    expect(pieceIn(redactText(message.slice(0, 200)))).toBeUndefined();
  });

  it("leaves text without the key exactly as it was (encodings included)", () => {
    for (const text of ["plain", "a%20b \\u0041 &#65; \\/", KEY.slice(0, 11), ""]) {
      expect(redactText(text)).toBe(text);
    }
  });

  it("a key shorter than a piece is redacted whole only", () => {
    registerSecret("tiny-key-9");
    expect(redactText("x tiny-key-9 y")).toBe(`x ${REDACTED} y`);
    expect(redactText("tiny-key")).toBe("tiny-key");
  });
});

describe("redactDeep", () => {
  it("walks a parsed body: values, keys, arrays, nesting; keeps a __proto__ key a key", () => {
    const body = JSON.parse(
      `{"error":{"message":"no","echo":["${unicodeEscaped}",{"${KEY}":1}]},"__proto__":{"k":"${KEY.replace("/", "\\/")}"}}`,
    );
    const safe = redactDeep(body) as Record<string, unknown>;
    expect(pieceIn(JSON.stringify(safe))).toBeUndefined();
    expect(Object.getPrototypeOf(safe)).toBe(Object.prototype);
    expect(Object.keys(safe)).toEqual(["error", "__proto__"]);
    expect(safe.error).toEqual({ message: "no", echo: [REDACTED, { [REDACTED]: 1 }] });
  });

  it("returns the same object when nothing needs redacting, and survives cycles", () => {
    const clean = { a: [1, "b", { c: null }] };
    expect(redactDeep(clean)).toBe(clean);
    const cyclic: Record<string, unknown> = { key: KEY };
    cyclic.self = cyclic;
    const safe = redactDeep(cyclic) as Record<string, unknown>;
    expect(safe.key).toBe(REDACTED);
    expect(safe.self).toBe("[circular]");
  });
});

describe("redactCause", () => {
  it("keeps a clean cause as it is", () => {
    const cause = new TypeError("fetch failed", { cause: new Error("ECONNRESET") });
    expect(redactCause(cause)).toBe(cause);
  });

  it("copies a chain holding the key, anywhere, redacted: message, stack, fields, deeper causes", () => {
    const deepest = Object.assign(new Error(`auth ${encodeURIComponent(KEY)}`), {
      code: "ECONNRESET",
      config: { headers: { authorization: KEY } },
    });
    const cause = new TypeError("fetch failed", { cause: deepest });
    const copy = redactCause(cause) as Error & { cause: Error & { code: string } };
    expect(copy).not.toBe(cause);
    expect(copy.name).toBe("TypeError");
    expect(copy.message).toBe("fetch failed");
    expect(copy.cause.code).toBe("ECONNRESET");
    expect(
      pieceIn(inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true })),
    ).toBeUndefined();
  });

  it("errors anywhere inside: AggregateError's errors, an error in a field, a cyclic cause", () => {
    const inner = new Error(`connect to ${KEY}`);
    const aggregate = new AggregateError([new Error("first"), inner], "all attempts failed");
    const cyclic = new Error(`loop ${KEY}`) as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    for (const cause of [aggregate, { details: { error: inner } }, cyclic]) {
      const copy = redactCause(cause);
      expect(copy).not.toBe(cause);
      expect(
        pieceIn(inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true })),
      ).toBeUndefined();
    }
    const copied = redactCause(aggregate) as AggregateError;
    expect(copied.message).toBe("all attempts failed");
    expect((copied.errors as Error[]).map((e) => e.message)).toEqual([
      "first",
      "connect to [REDACTED]",
    ]);
  });

  it("cuts a chain too long to walk", () => {
    let chain: Error = new Error(`bottom ${KEY}`);
    for (let i = 0; i < 100; i++) chain = new Error(`level ${i}`, { cause: chain });
    const copy = redactCause(chain) as Error;
    expect(pieceIn(inspect(copy, { depth: Number.POSITIVE_INFINITY }))).toBeUndefined();
  });
});

function head(status: number, headers: Record<string, string>): ResponseHead {
  return {
    status,
    header: (name) => headers[name],
    headerRecord: () => ({ ...headers }),
  };
}

describe("error classes", () => {
  it("an API error from a JSON body carrying the key escaped: body, message, every view", () => {
    const text = `{"error":{"message":"bad key ${unicodeEscaped}","code":"${KEY.replace("/", "\\/")}"},"echo":{"authorization":"${KEY.replace("/", "\\/")}"}}`;
    const error = apiErrorFromResponse(
      head(401, {
        "content-type": "application/json",
        "x-request-id": `req-${KEY}`,
        location: `https://evil.test/?k=${encodeURIComponent(KEY)}`,
        "x-echo": percentAll,
      }),
      text,
      "POST",
      "/chat/completions",
    );
    expect(error).toBeInstanceOf(StudioAPIError);
    expect(error.message).toContain(`bad key ${REDACTED}`);
    expect(error.headers.location).toBe(`https://evil.test/?k=${REDACTED}`);
    expectClean(error);
  });

  it("a huge JSON message is cut after redaction, so the cut never hides a piece", () => {
    const message = `${"m".repeat(995)}${unicodeEscaped}${"m".repeat(5000)}`;
    const { message: out } = parseErrorBody(JSON.stringify({ error: { message } }));
    expect(out?.length).toBeLessThan(1100);
    expect(pieceIn(out ?? "")).toBeUndefined();
  });

  it("an excerpt (also used for 2xx bodies that are not JSON) redacts before it cuts", () => {
    const shown = excerpt(`<p>${"x".repeat(190)}${KEY}</p>`);
    expect(shown).toBe(`${"x".repeat(190)}${REDACTED}`);
    expect(shown).not.toContain(KEY.slice(0, 4));
  });

  it("a non-JSON page is excerpted after redaction", () => {
    const page = `<html>${"p".repeat(190)}${KEY}</html>`;
    const { body, message } = parseErrorBody(page);
    expect(pieceIn(String(body))).toBeUndefined();
    expect(pieceIn(String(message))).toBeUndefined();
  });

  it("fields other than the message: path, request id, code; and causes", () => {
    const errors: Error[] = [
      StudioAPIError.fromResponse({
        status: 500,
        method: "GET",
        path: `/v1/threads/${encodeURIComponent(KEY)}`,
        serverMessage: "boom",
        code: KEY,
        requestId: KEY,
        body: { deep: [[[{ k: KEY }]]] },
      }),
      new StudioResponseError("GET", `/v1/threads/${KEY}`, "bad", {
        cause: new Error(`zod saw ${KEY}`),
      }),
      new StudioConnectionError("POST", "/chat/completions", `reset ${KEY}`, true, {
        cause: new TypeError("fetch failed", { cause: new Error(`socket ${KEY}`) }),
      }),
      new StudioStreamError(`/x/${KEY}`, `event ${unicodeEscaped}`),
      new StudioError(`${"a".repeat(190)}${KEY}`.slice(0, 200)),
    ];
    for (const error of errors) expectClean(error);
  });
});
