/**
 * The one request path every method goes through: config checks, headers, the attempt loop with
 * retries, timeouts and abort, status handling and response validation; and its streaming twin.
 */
import type * as z from "zod/v4/mini";
import {
  StudioAPIError,
  StudioError,
  StudioResponseError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../errors";
import { type Endpoint, missingKeyError, type ResolvedConfig, requireEndpoint } from "./config";
import type { BodyReader } from "./engine";
import {
  type AddressUsed,
  apiErrorFromResponse,
  connectionError,
  describeChain,
  redirectError,
} from "./errors-from-response";
import { type AuthKind, buildHeaderSets, type HeaderSets, withCallHeaders } from "./headers";
import { checkRequestOptions, type RequestOptions } from "./options";
import { abortReason, type RetryClass, retryDelay, shouldRetry, sleep } from "./retry";
import { DONE, parsePayload, SKIP, SSEDecoder, type SSEEvent } from "./sse";
import { ChoiceTracker, type ChunkReader, carriesToken } from "./stream";
import {
  AttemptControl,
  ERROR_BODY_LIMIT,
  type HttpMethod,
  isSuccess,
  ResponseTooLargeError,
  Transport,
  type TransportRequest,
  type WireResponse,
} from "./transport";
import { parseResponse } from "./validate-response";

/**
 * What a call's path holds: `rpc`, a remote-call path (`/svc.Studio/...`, where `rpcPathPrefix`
 * applies); `fixed`, a path with no id (a completion, a collection); `by-id`, a path naming a
 * resource by id. Only in the last can a 404 mean that the resource is missing.
 */
export type PathKind = "rpc" | "fixed" | "by-id";

/** Everything fixed about one kind of call; one constant per client method (see calls.ts). */
export interface CallSpec<T> {
  /** The client method, named in error messages. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly target: "studio" | "proxy";
  readonly auth: AuthKind;
  readonly retryClass: RetryClass;
  readonly schema: z.ZodMiniType<T>;
  readonly pathKind: PathKind;
}

// Abort reasons of the client's own timers; never thrown to callers.
const TIMEOUT = new Error("langchain-studio: request timeout");
const IDLE = new Error("langchain-studio: stream idle timeout");
const STREAM_TIMEOUT = new Error("langchain-studio: stream timeout");

function abortForTimeout(control: AttemptControl): void {
  control.abort(TIMEOUT);
}

function linkSignal(signal: AbortSignal, control: AttemptControl): () => void {
  const onAbort = () => control.abort(abortReason(signal));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/**
 * The stream idle clock: `ms` of waiting for the server between two complete events. It runs only
 * while the client waits for a read (not while the consumer holds a chunk), and only a complete
 * event winds it back up: bytes that complete none (a trickle, blank lines, comments) do not.
 */
class IdleClock {
  readonly #control: AttemptControl;
  readonly #ms: number;
  #left: number;
  #since = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(control: AttemptControl, ms: number) {
    this.#control = control;
    this.#ms = ms;
    this.#left = ms;
  }

  /** Before a read. */
  wait(): void {
    this.#since = Date.now();
    this.#timer = setTimeout(abortForIdle, Math.max(0, this.#left), this.#control);
  }

  /** After a read: the time it took is spent. */
  pause(): void {
    clearTimeout(this.#timer);
    this.#left -= Date.now() - this.#since;
  }

  /** A complete event arrived. */
  event(): void {
    this.#left = this.#ms;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

function abortForIdle(control: AttemptControl): void {
  control.abort(IDLE);
}

function abortForStreamTimeout(control: AttemptControl): void {
  control.abort(STREAM_TIMEOUT);
}

type ChoiceOf = { index: number; finish_reason?: string | null | undefined };

/** How many choices a request asks for (`n`, default 1). */
function expectedChoices(body: unknown): number {
  const n = (body as { n?: unknown } | undefined)?.n;
  return typeof n === "number" && Number.isInteger(n) && n > 1 ? n : 1;
}

/** After `[DONE]`, the rest of the body (normally nothing) is read briefly so the socket is reused. */
const DRAIN_GRACE_MS = 1000;
const DRAIN_LIMIT_BYTES = 64 * 1024;

function drain(reader: BodyReader): void {
  const timer = setTimeout(() => reader.cancel().catch(noop), DRAIN_GRACE_MS);
  let size = 0;
  const next = (): void => {
    reader.read().then(
      ({ done, value }) => {
        size += value?.byteLength ?? 0;
        if (done) clearTimeout(timer);
        else if (size > DRAIN_LIMIT_BYTES) {
          clearTimeout(timer);
          reader.cancel().catch(noop);
        } else next();
      },
      () => clearTimeout(timer),
    );
  };
  next();
}

function noop(): void {}

function addressOf(endpoint: Endpoint): string {
  return endpoint.origin + endpoint.prefix;
}

function retryAfterHeader(error: unknown): string | undefined {
  return error instanceof StudioAPIError ? error.headers["retry-after"] : undefined;
}

function toJson(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StudioValidationError("body", `cannot be sent as JSON (${reason})`);
  }
}

function closedError(): StudioError {
  return new StudioError(
    "This StudioClient is closed (close() was called); create a new client to make more calls.",
  );
}

export class Requester {
  readonly config: ResolvedConfig;
  readonly transport: Transport;
  readonly #headers: HeaderSets;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(config: ResolvedConfig) {
    this.config = config;
    this.transport = new Transport(config);
    this.#headers = buildHeaderSets(config);
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.transport.close();
    return this.#closing;
  }

  /** A non-streaming call: at most `1 + maxRetries` attempts. */
  async call<T>(
    spec: CallSpec<T>,
    path: string,
    body: unknown,
    options: RequestOptions | undefined,
  ): Promise<T> {
    const request = this.#prepare(spec, path, body, options, false);
    const maxRetries = options?.maxRetries ?? this.config.maxRetries;
    const timeout = options?.timeout ?? this.config.timeout;
    const signal = options?.signal;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(spec, request, timeout, signal);
      } catch (error) {
        if (attempt >= maxRetries || !shouldRetry(error, spec.retryClass)) throw error;
        await sleep(retryDelay(attempt, retryAfterHeader(error)), signal);
      }
    }
  }

  /**
   * A streaming call, one chunk at a time. Being an async generator it is lazy: nothing is sent
   * before the first `next()`. A failure before the first token (an HTTP error, an error event
   * with a status, a timeout) is retried like the same failure of a plain call; the
   * chunks before the first token carry nothing (a role, empty text) and are held back until it
   * comes, so a retry never shows the consumer a chunk twice. After the first token a failure is
   * the caller's to see. The whole stream, retries included, is capped by `streamTimeout`.
   */
  async *stream<T extends { choices: readonly ChoiceOf[] }>(
    spec: CallSpec<unknown>,
    makeReader: (path: string) => ChunkReader<T>,
    path: string,
    body: () => unknown,
    options: RequestOptions | undefined,
  ): AsyncGenerator<T, void, undefined> {
    const payload = body();
    const request = this.#prepare(spec, path, payload, options, true);
    const maxRetries = options?.maxRetries ?? this.config.maxRetries;
    const signal = options?.signal;
    const limits: StreamLimits = {
      timeout: options?.timeout ?? this.config.timeout,
      idleMs: this.config.streamIdleTimeout ?? options?.timeout ?? this.config.timeout,
      streamMs: this.config.streamTimeout,
      deadline: Date.now() + this.config.streamTimeout,
      choices: expectedChoices(payload),
    };
    for (let attempt = 0; ; attempt++) {
      let flowing = false;
      try {
        for await (const chunk of this.#streamAttempt(spec, request, makeReader, limits, signal)) {
          flowing = true;
          yield chunk;
          // Chunks decoded before the abort are not handed out after it.
          if (signal?.aborted) throw abortReason(signal);
        }
        return;
      } catch (error) {
        if (
          flowing ||
          attempt >= maxRetries ||
          Date.now() >= limits.deadline ||
          !shouldRetry(error, spec.retryClass)
        ) {
          throw error;
        }
        await sleep(retryDelay(attempt, retryAfterHeader(error)), signal);
      }
    }
  }

  async *#streamAttempt<T extends { choices: readonly ChoiceOf[] }>(
    spec: CallSpec<unknown>,
    request: TransportRequest,
    makeReader: (path: string) => ChunkReader<T>,
    limits: StreamLimits,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<T, void, undefined> {
    // close() may have come during a retry's backoff.
    if (this.#closed) throw closedError();
    const path = request.path;
    const control = new AttemptControl();
    const headersTimer = setTimeout(abortForTimeout, limits.timeout, control);
    const streamTimer = setTimeout(
      abortForStreamTimeout,
      Math.max(0, limits.deadline - Date.now()),
      control,
    );
    const idle = new IdleClock(control, limits.idleMs);
    let unlink: (() => void) | undefined;
    // However the attempt ends (the caller's signal, a timer), its timers end with it, at once: a
    // consumer that drops the stream while holding a chunk (LangChain does when its signal
    // aborts) never resumes this generator, so its `finally` would never run.
    control.signal.addEventListener(
      "abort",
      () => this.#stopTimers(headersTimer, streamTimer, idle, unlink),
      { once: true },
    );
    unlink = signal === undefined ? undefined : linkSignal(signal, control);
    let response: WireResponse | undefined;
    let reader: BodyReader | undefined;
    let over = false;
    try {
      response = await this.transport.send(request, control);
      if (!isSuccess(response.status)) {
        let text = "";
        if (response.status < 300 || response.status >= 400) {
          text = await response.text(ERROR_BODY_LIMIT, true).catch(() => "");
        }
        throw this.#statusError(response, spec, request, text);
      }
      // `timeout` covers the wait for the headers; from here on the idle clock counts.
      clearTimeout(headersTimer);
      reader = response.body ?? undefined;
      const decoder = new SSEDecoder();
      const chunks = makeReader(path);
      const tracker = new ChoiceTracker();
      const held: T[] = [];
      let flowing = false;
      let sawDone = false;
      /** Bytes read since the last complete event: one event may not grow past the cap. */
      let pending = 0;
      while (!over) {
        let events: SSEEvent[];
        let result: Awaited<ReturnType<BodyReader["read"]>> | undefined;
        if (reader) {
          idle.wait();
          result = await reader.read();
          idle.pause();
        }
        if (!result || result.done) {
          over = true;
          events = decoder.end();
        } else {
          const bytes = result.value ?? new Uint8Array(0);
          events = decoder.decode(bytes);
          if (events.length > 0) {
            idle.event();
            pending = decoder.pending;
          } else {
            pending += bytes.byteLength;
          }
          if (pending > this.config.maxResponseBytes) {
            throw new StudioStreamError(
              path,
              `one event grew past maxResponseBytes (${this.config.maxResponseBytes} bytes) without ending; the stream was abandoned. Raise the maxResponseBytes option if such events are expected.`,
            );
          }
        }
        for (const event of events) {
          const payload = parsePayload(event, path, spec.method);
          if (payload === SKIP) continue;
          if (payload === DONE) {
            sawDone = true;
            over = true;
            break;
          }
          const chunk = chunks.read(payload);
          tracker.observe(chunk.choices);
          if (flowing) {
            yield chunk;
          } else {
            held.push(chunk);
            if (carriesToken(chunk)) {
              flowing = true;
              while (held.length > 0) yield held.shift()!;
            }
          }
        }
      }
      // Over: the socket goes back to the pool and the timers stop before the last chunks are
      // handed out, not after the consumer is through with them.
      if (reader && sawDone) drain(reader);
      reader = undefined;
      this.#stopTimers(headersTimer, streamTimer, idle, unlink);
      const missing = tracker.incomplete(sawDone, limits.choices);
      if (missing) {
        const type = response.header("content-type");
        const hint =
          type && !type.includes("event-stream")
            ? ` (the answer was ${type}, not text/event-stream)`
            : "";
        throw new StudioStreamError(path, missing + hint);
      }
      while (held.length > 0) yield held.shift()!;
    } catch (error) {
      throw this.#failure(error, spec, path, control, signal, limits, response !== undefined);
    } finally {
      this.#stopTimers(headersTimer, streamTimer, idle, unlink);
      if (reader) reader.cancel().catch(noop);
      else if (!over) response?.cancel();
    }
  }

  #stopTimers(
    headersTimer: ReturnType<typeof setTimeout>,
    streamTimer: ReturnType<typeof setTimeout>,
    idle: IdleClock,
    unlink: (() => void) | undefined,
  ): void {
    clearTimeout(headersTimer);
    clearTimeout(streamTimer);
    idle.stop();
    unlink?.();
  }

  #prepare(
    spec: CallSpec<unknown>,
    path: string,
    body: unknown,
    options: RequestOptions | undefined,
    stream: boolean,
  ): TransportRequest {
    if (this.#closed) throw closedError();
    if (options) {
      checkRequestOptions(options, this.config.serviceKeyHeader);
      if (options.signal?.aborted) throw abortReason(options.signal);
    }
    const endpoint = requireEndpoint(this.config, spec.target);
    if (spec.auth !== "none" && this.config.apiKey === undefined) throw missingKeyError();
    const sets = stream
      ? this.#headers.sse
      : body === undefined
        ? this.#headers.noBody
        : this.#headers.json;
    // The spec's remote-call paths start with "/svc."; a deployment's prefix replaces the "/".
    const fullPath = spec.pathKind === "rpc" ? this.config.rpcPathPrefix + path.slice(1) : path;
    return {
      method: spec.method,
      origin: endpoint.origin,
      path: endpoint.prefix + fullPath,
      headers: withCallHeaders(sets[spec.auth], options?.headers),
      body: body === undefined ? undefined : toJson(body),
    };
  }

  async #attempt<T>(
    spec: CallSpec<T>,
    request: TransportRequest,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    // close() may have come during a retry's backoff.
    if (this.#closed) throw closedError();
    const control = new AttemptControl();
    const timer = setTimeout(abortForTimeout, timeout, control);
    const unlink = signal === undefined ? undefined : linkSignal(signal, control);
    let response: WireResponse | undefined;
    try {
      response = await this.transport.send(request, control);
      if (!isSuccess(response.status)) {
        let text = "";
        if (response.status < 300 || response.status >= 400) {
          text = await response.text(ERROR_BODY_LIMIT, true);
        } else {
          response.cancel();
        }
        throw this.#statusError(response, spec, request, text);
      }
      const text = await response.text(this.config.maxResponseBytes);
      return parseResponse(spec.schema, text, spec.name, spec.method, request.path);
    } catch (error) {
      const limits = { timeout, idleMs: timeout, streamMs: 0, deadline: 0, choices: 1 };
      throw this.#failure(error, spec, request.path, control, signal, limits, false);
    } finally {
      clearTimeout(timer);
      unlink?.();
    }
  }

  #statusError(
    response: WireResponse,
    spec: CallSpec<unknown>,
    request: TransportRequest,
    text: string,
  ): StudioAPIError {
    if (response.status >= 300 && response.status < 400) {
      return redirectError(response, spec.method, request.path, request.origin + request.path);
    }
    const sentTo = spec.pathKind === "by-id" ? undefined : this.#sentTo(spec);
    return apiErrorFromResponse(response, text, spec.method, request.path, sentTo);
  }

  /** The address a call without an id went to, for the advice a 404 there gets. */
  #sentTo(spec: CallSpec<unknown>): AddressUsed {
    const studio = spec.target === "studio";
    const address = addressOf(requireEndpoint(this.config, spec.target));
    const other = studio ? this.config.proxy : this.config.studio;
    const otherAddress = other === undefined ? undefined : addressOf(other);
    return {
      option: studio ? "baseUrl" : "proxyUrl",
      address,
      other: otherAddress === address ? undefined : otherAddress,
      remoteCall: spec.pathKind === "rpc",
    };
  }

  /**
   * What a failed attempt throws, whatever happened. `streaming`: a stream's body had begun, so
   * a lost connection cut the answer rather than failing to reach the server.
   */
  #failure(
    error: unknown,
    spec: CallSpec<unknown>,
    path: string,
    control: AttemptControl,
    signal: AbortSignal | undefined,
    limits: StreamLimits,
    streaming: boolean,
  ): Error {
    if (signal?.aborted) return abortReason(signal);
    const reason = control.reason;
    if (reason === TIMEOUT) return new StudioTimeoutError(spec.method, path, limits.timeout);
    if (reason === IDLE) return new StudioTimeoutError(spec.method, path, limits.idleMs, "event");
    if (reason === STREAM_TIMEOUT)
      return new StudioTimeoutError(spec.method, path, limits.streamMs, "stream");
    if (error instanceof StudioError) return error;
    if (error instanceof ResponseTooLargeError) {
      return new StudioResponseError(
        spec.method,
        path,
        `${spec.name} got a body larger than maxResponseBytes (${error.limit} bytes). Raise the maxResponseBytes option if this is expected.`,
      );
    }
    if (this.#closed) return closedError();
    if (streaming) {
      return new StudioStreamError(
        path,
        `the connection was lost mid-stream (${describeChain(error)}); the answer is incomplete`,
        { cause: error },
      );
    }
    return connectionError(error, spec.method, path, control.responseStarted);
  }
}

interface StreamLimits {
  /** Wait for the response headers. */
  readonly timeout: number;
  /** Wait between two complete events. */
  readonly idleMs: number;
  /** The whole stream, retries included; `deadline` is when it runs out. */
  readonly streamMs: number;
  readonly deadline: number;
  /** Choices the request asked for (`n`). */
  readonly choices: number;
}

/** `streamTimeout` ran out: the stream as a whole took too long, however lively it was. */
