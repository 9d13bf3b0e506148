/**
 * Plain undici calls for the conformance suite: the emulator is tested over real HTTP without the
 * package's client, so a client bug cannot hide an emulator bug (or the reverse).
 */
import { request } from "undici";
import type { EmulatorHandle } from "../../../src/emulator";

export interface Reply<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is instead of `JSON.stringify(body)`. */
  raw?: string;
  headers?: Record<string, string>;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const payload =
    options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await request(url, {
    method: method as "GET",
    headers: {
      ...(payload === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    body: payload,
  });
  const text = await response.body.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Streams and non-JSON bodies stay text.
  }
  return { status: response.statusCode, headers: response.headers, text, body: body as T };
}

/** Studio calls (threads, assistants, datasets) with `X-Service-Key`. */
export function studio<T = Record<string, unknown>>(
  emulator: EmulatorHandle,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply<T>> {
  return call<T>(method, `${emulator.baseUrl}${path}`, {
    body,
    headers: { "x-service-key": emulator.apiKey },
  });
}

/** Completions with `Authorization: <key>`. */
export function inference<T = Record<string, unknown>>(
  emulator: EmulatorHandle,
  path: string,
  body: unknown,
): Promise<Reply<T>> {
  return call<T>("POST", `${emulator.proxyUrl}${path}`, {
    body,
    headers: { authorization: emulator.apiKey },
  });
}

/** Splits an event stream into its `data:` payloads; `done` tells whether `[DONE]` closed it. */
export function parseSse<T = Record<string, unknown>>(
  text: string,
): { events: T[]; done: boolean } {
  const events: T[] = [];
  let done = false;
  for (const block of text.split("\n\n")) {
    if (block === "") continue;
    if (!block.startsWith("data: ")) throw new Error(`not a data event: ${block.slice(0, 80)}`);
    const data = block.slice("data: ".length);
    if (done) throw new Error(`event after [DONE]: ${data.slice(0, 80)}`);
    if (data === "[DONE]") done = true;
    else events.push(JSON.parse(data) as T);
  }
  return { events, done };
}
