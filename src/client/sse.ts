/**
 * Server-sent events, decoded in stages, each testable alone:
 *   bytes -> text (`Utf8Text`: a streaming TextDecoder, so a character split across reads survives)
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
import { StudioStreamError } from "../errors";
import { extractServerMessage } from "./errors-from-response";

export interface SSEEvent {
  /** The `event:` field, when the server named the event. */
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** Incremental text -> events parser. Push text as it comes; `end()` once the body is over. */
export class SSELineParser {
  #buffer = "";
  /** The previous text ended with CR: a LF at the start of the next one belongs to it. */
  #pendingCR = false;
  /** The event's data lines so far, joined with "\n" (`#dataLines` tells "" from none). */
  #data = "";
  #dataLines = 0;
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
    // A pending CR always ended its text, so the buffer is empty whenever `start` is 1.
    const buf = this.#buffer === "" ? text : this.#buffer + text;
    this.#buffer = "";
    let lf = buf.indexOf("\n", start);
    let cr = buf.indexOf("\r", start);
    // Lines are handled as ranges of `buf` (no per-line string): this loop runs once per line
    // of every token of every stream.
    while (lf !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < buf.length) {
          next = buf.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          next = cr + 1;
          this.#pendingCR = true;
        }
      } else {
        end = lf;
        next = lf + 1;
      }
      this.#line(buf, start, end, out);
      start = next;
      if (lf !== -1 && lf < start) lf = buf.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buf.indexOf("\r", start);
    }
    if (start < buf.length) this.#buffer = buf.slice(start);
    return out;
  }

  /**
   * Characters held for an event that has not ended yet. A server that never ends an event would
   * otherwise grow this without bound; the caller compares it with its size cap.
   */
  get pending(): number {
    return this.#buffer.length + this.#dataSize;
  }

  /** The body ended: the last line (if unterminated) and the pending event are delivered. */
  end(out: SSEEvent[] = []): SSEEvent[] {
    if (this.#buffer !== "") {
      const last = this.#buffer;
      this.#buffer = "";
      this.#line(last, 0, last.length, out);
    }
    this.#pendingCR = false;
    this.#dispatch(out);
    return out;
  }

  /** The line `buf[start, end)`. */
  #line(buf: string, start: number, end: number, out: SSEEvent[]): void {
    if (start === end) {
      this.#dispatch(out);
      return;
    }
    const first = buf.charCodeAt(start);
    if (first === 58 /* ":" */) {
      this.comments++;
      return;
    }
    // The usual line, `data: <json>`, is sliced once, straight out of the buffer.
    if (first === 100 /* "d" */ && buf.startsWith("data:", start)) {
      const from = buf.charCodeAt(start + 5) === 32 /* " " */ ? start + 6 : start + 5;
      this.#addData(from < end ? buf.slice(from, end) : "");
      return;
    }
    const line = buf.slice(start, end);
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    switch (field) {
      case "data":
        this.#addData(value);
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

  #addData(value: string): void {
    this.#data = this.#dataLines === 0 ? value : `${this.#data}\n${value}`;
    this.#dataLines++;
    this.#dataSize += value.length;
  }

  #dispatch(out: SSEEvent[]): void {
    if (this.#dataLines > 0) out.push({ event: this.#event, data: this.#data, id: this.#id });
    this.#data = "";
    this.#dataLines = 0;
    this.#dataSize = 0;
    this.#event = undefined;
  }
}

/** One options object for every read, not one per read. */
const STREAMING = { stream: true };

/** bytes -> events: a streaming UTF-8 decoder in front of the line parser. */
export class SSEDecoder {
  readonly #text = new TextDecoder("utf-8");
  readonly #lines = new SSELineParser();

  /** Events completed by this chunk (possibly none). */
  decode(chunk: Uint8Array): SSEEvent[] {
    return this.#lines.push(this.#text.decode(chunk, STREAMING));
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
 * event -> JSON payload. Throws `StudioStreamError` for an error event, an `{"error": ...}`
 * payload (the notes: an error, not data) and for data that is not JSON. An event named anything
 * but `message` (the SSE default) or `error` is of a kind this client does not know, such as a
 * keep-alive `event: ping`: it is skipped, not taken for a chunk, so it cannot fail the stream.
 */
export function parsePayload(event: SSEEvent, path: string): unknown {
  const kind = event.event;
  if (kind !== undefined && kind !== "message" && kind !== "error") return SKIP;
  const data = event.data;
  // Data starting with "{" (every chunk) cannot trim to [DONE]; only other data pays for a trim.
  if (data === "[DONE]" || (data.charCodeAt(0) !== 123 /* "{" */ && data.trim() === "[DONE]")) {
    return DONE;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch (error) {
    if (kind === "error") {
      throw new StudioStreamError(path, `the server sent an error event: ${shorten(data)}`);
    }
    throw new StudioStreamError(path, `an event is not valid JSON: ${shorten(data)}`, {
      cause: error,
    });
  }
  if (
    kind === "error" ||
    (typeof payload === "object" &&
      payload !== null &&
      (payload as { error?: unknown }).error != null)
  ) {
    const message = extractServerMessage(payload) ?? shorten(data);
    throw new StudioStreamError(path, `the server sent an error event: ${message}`);
  }
  return payload;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
