/**
 * Server-sent events, decoded in stages, each testable alone:
 *   bytes -> text (a streaming TextDecoder, so a character split across reads survives)
 *   text -> events (`SSELineParser`: lines, fields, blank line ends an event)
 *   events -> JSON payloads (`parsePayload`: `[DONE]`, error payloads, bad JSON)
 * The last stage, payloads -> validated chunks, is in stream.ts.
 *
 * Tolerated on purpose (the notes list them): `data:` with or without the space, CR, LF or CRLF
 * line ends (a CRLF may be split across reads), `:` comment lines, multi-line data (joined with
 * "\n"). One deliberate departure from the WHATWG algorithm: an event still pending when the body
 * ends is delivered, not dropped, so a final `data: [DONE]` without its blank line still counts.
 * Events named other than `message` or `error` are skipped at the payload stage (`SKIP`).
 */
import { StudioAPIError, StudioStreamError } from "../errors";
import { extractCode, parseErrorBody } from "./errors-from-response";

export interface SSEEvent {
  /** The `event:` field, when the server named the event. */
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/**
 * Incremental text -> events parser. Push text as it comes; `end()` once the body is over.
 *
 * Linear in the size of the body however it is split: each pushed text is scanned once, and a
 * line that spans many pushes is kept as a list of pieces joined once, at its end (re-joining
 * the held text on every push would make one long line quadratic).
 */
export class SSELineParser {
  /** Pieces of the line in progress (its start came in earlier pushes). */
  #pieces: string[] = [];
  #piecesSize = 0;
  /** The previous text ended with CR: a LF at the start of the next one belongs to it. */
  #pendingCR = false;
  /** The data lines of the event in progress, joined with "\n" when it is dispatched. */
  #data: string[] = [];
  #dataSize = 0;
  #event: string | undefined;
  #id: string | undefined;
  /** Comment lines seen; servers send them as keep-alives. */
  comments = 0;

  push(text: string, out: SSEEvent[] = []): SSEEvent[] {
    if (text === "") return out;
    let start = 0;
    if (this.#pendingCR) {
      this.#pendingCR = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    // The next CR and LF are each searched once per line they end, not once per line.
    let lf = text.indexOf("\n", start);
    let cr = text.indexOf("\r", start);
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      let line = text.slice(start, end);
      if (this.#pieces.length > 0) {
        this.#pieces.push(line);
        line = this.#pieces.join("");
        this.#pieces = [];
        this.#piecesSize = 0;
      }
      this.#line(line, out);
      if (end === cr) {
        if (end + 1 === text.length) {
          this.#pendingCR = true;
          start = end + 1;
          break;
        }
        start = text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
    }
    if (start < text.length) {
      this.#pieces.push(start === 0 ? text : text.slice(start));
      this.#piecesSize += text.length - start;
    }
    return out;
  }

  /**
   * Characters held for an event that has not ended yet. A server that never ends an event would
   * otherwise grow this without bound; the caller compares it with its size cap.
   */
  get pending(): number {
    return this.#piecesSize + this.#dataSize;
  }

  /** The body ended: the last line (if unterminated) and the pending event are delivered. */
  end(out: SSEEvent[] = []): SSEEvent[] {
    if (this.#pieces.length > 0) {
      const last = this.#pieces.join("");
      this.#pieces = [];
      this.#piecesSize = 0;
      this.#line(last, out);
    }
    this.#pendingCR = false;
    this.#dispatch(out);
    return out;
  }

  #line(line: string, out: SSEEvent[]): void {
    if (line === "") {
      this.#dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        this.#dataSize += value.length;
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      // `retry` and unknown fields are ignored, as the SSE standard says.
    }
  }

  #dispatch(out: SSEEvent[]): void {
    if (this.#data.length > 0) {
      out.push({ event: this.#event, data: this.#data.join("\n"), id: this.#id });
    }
    this.#data = [];
    this.#dataSize = 0;
    this.#event = undefined;
  }
}

/** bytes -> events: a streaming UTF-8 decoder in front of the line parser. */
export class SSEDecoder {
  readonly #text = new TextDecoder("utf-8");
  readonly #lines = new SSELineParser();

  /** Events completed by this chunk (possibly none). */
  decode(chunk: Uint8Array): SSEEvent[] {
    return this.#lines.push(this.#text.decode(chunk, { stream: true }));
  }

  /** Characters held for the event in progress (see `SSELineParser.pending`). */
  get pending(): number {
    return this.#lines.pending;
  }

  /** Events still pending at the end of the body. */
  end(): SSEEvent[] {
    const out = this.#lines.push(this.#text.decode());
    return this.#lines.end(out);
  }
}

/** Decodes a whole byte stream into its events (tests and one-shot use). */
export async function* sseEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SSEEvent> {
  const decoder = new SSEDecoder();
  for await (const chunk of chunks) yield* decoder.decode(chunk);
  yield* decoder.end();
}

/** Returned by `parsePayload` for the `[DONE]` terminator. */
export const DONE: unique symbol = Symbol("[DONE]");

/** Returned by `parsePayload` for an event of a kind that carries no chunk (`event: ping`). */
export const SKIP: unique symbol = Symbol("skip");

/**
 * event -> JSON payload. Throws for an error event, an `{"error": ...}` payload (the notes: an
 * error, not data) and for data that is not JSON. An event named anything but `message` (the SSE
 * default) or `error` is of a kind this client does not know, such as a keep-alive `event: ping`:
 * it is skipped, not taken for a chunk, so it cannot fail the stream.
 *
 * An error that carries an HTTP status (`{"error":{"code":429,...}}`, or `status_code`) becomes
 * the `StudioAPIError` of that status, so it is retried (before the first token) and caught like
 * the same status sent as a response; one without is a `StudioStreamError`.
 */
export function parsePayload(event: SSEEvent, path: string, method = "POST"): unknown {
  const kind = event.event;
  if (kind !== undefined && kind !== "message" && kind !== "error") return SKIP;
  const data = event.data;
  if (data.trim() === "[DONE]") return DONE;
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch (error) {
    if (kind === "error") throw streamError(undefined, data, path, method);
    throw new StudioStreamError(path, `an event is not valid JSON: ${shorten(data)}`, {
      cause: error,
    });
  }
  if (kind === "error" || (isRecord(payload) && payload.error != null)) {
    throw streamError(payload, data, path, method);
  }
  return payload;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An HTTP error status (400-599) as a number or a string of digits, else undefined. */
function httpStatus(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined;
}

/** The status an error payload names: `status_code`, `status` or a numeric `code`. */
function statusOf(payload: unknown): number | undefined {
  for (const holder of [isRecord(payload) ? payload.error : undefined, payload]) {
    if (!isRecord(holder)) continue;
    const status =
      httpStatus(holder.status_code) ?? httpStatus(holder.status) ?? httpStatus(holder.code);
    if (status !== undefined) return status;
  }
  return undefined;
}

function streamError(
  payload: unknown,
  data: string,
  path: string,
  method: string,
): StudioAPIError | StudioStreamError {
  const parsed = parseErrorBody(data);
  const message = (payload === undefined ? undefined : parsed.message) ?? shorten(data);
  const status = statusOf(payload);
  if (status === undefined) {
    return new StudioStreamError(path, `the server sent an error event: ${message}`);
  }
  return StudioAPIError.fromResponse({
    status,
    method,
    path,
    serverMessage: `${message} (sent as an error event inside the stream; the HTTP status was 200)`,
    code: extractCode(parsed.body),
    body: parsed.body,
  });
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
