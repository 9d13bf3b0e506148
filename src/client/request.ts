/**
 * The one request path every method goes through: config checks, headers, the attempt loop with
 * retries, timeouts and abort, status handling and response validation; and its streaming twin.
 *
 * Per attempt it allocates what the request itself needs and little else: one AttemptControl that
 * both the timeout and the caller's signal end in, and one timer. Header sets are prebuilt, the
 * timer callback is a module function given its control as an argument, and the caller's signal
 * gets a listener only when there is one.
 */
import type { z } from "zod/v4";
import {
  StudioAPIError,
  StudioError,
  StudioResponseError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../errors";
import {
  checkCallOverrides,
  missingKeyError,
  type ResolvedConfig,
  requireEndpoint,
} from "./config";
import {
  apiErrorFromResponse,
  connectionError,
  describeChain,
  redirectError,
} from "./errors-from-response";
import { type AuthKind, buildHeaderSets, type HeaderSets, withCallHeaders } from "./headers";
import { abortReason, type RetryClass, retryDelay, shouldRetry, sleep } from "./retry";
import { SSEDecoder } from "./sse";
import { ChoiceTracker, type ChunkValidator, collectChunks } from "./stream";
import {
  AttemptControl,
  type BufferedResponse,
  ERROR_BODY_LIMIT,
  type HttpMethod,
  isSuccess,
  type ResponseHead,
  ResponseTooLargeError,
  type StreamingResponse,
  type Transport,
  type TransportRequest,
} from "./transport";
import { FetchTransport } from "./transport-fetch";
import { UndiciTransport } from "./transport-undici";
import type { RequestOptions } from "./types";
import { parseResponse } from "./validate-response";

/** Everything fixed about one kind of call; one constant per client method (see calls.ts). */
export interface CallSpec<T> {
  /** The client method, named in error messages. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly target: "studio" | "proxy";
  readonly auth: AuthKind;
  readonly retryClass: RetryClass;
  readonly schema: z.ZodType<T>;
  /** A cheap check proven to accept only what `schema` accepts unchanged (shape-checks.ts). */
  readonly check?: ((value: unknown) => value is T) | undefined;
}

// Abort reasons of the client's own timers; never thrown to callers.
const TIMEOUT = new Error("langchain-studio: request timeout");
const IDLE = new Error("langchain-studio: stream idle timeout");

function abortForTimeout(control: AttemptControl): void {
  control.abort(TIMEOUT);
}

function linkSignal(signal: AbortSignal, control: AttemptControl): () => void {
  const onAbort = () => control.abort(abortReason(signal));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** Stream idle timer: fires only while the client waits for the server, not for the consumer. */
class IdleWatch {
  waiting = true;
  readonly control: AttemptControl;
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout>;

  constructor(control: AttemptControl, ms: number) {
    this.control = control;
    this.#ms = ms;
    this.#timer = setTimeout(IdleWatch.#fire, ms, this);
  }

  static #fire(watch: IdleWatch): void {
    if (watch.waiting) watch.control.abort(IDLE);
  }

  arm(): void {
    this.waiting = true;
    // refresh() restarts even a fired timer without a new allocation; edge runtimes lack it.
    if (typeof this.#timer === "object" && typeof this.#timer.refresh === "function") {
      this.#timer.refresh();
    } else {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(IdleWatch.#fire, this.#ms, this);
    }
  }

  disarm(): void {
    this.waiting = false;
  }

  stop(): void {
    this.waiting = false;
    clearTimeout(this.#timer);
  }
}

interface OpenStream {
  readonly response: StreamingResponse;
  readonly iterator: AsyncIterator<Uint8Array>;
  readonly first: IteratorResult<Uint8Array>;
  readonly idle: IdleWatch;
  readonly unlink: (() => void) | undefined;
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
    this.transport = config.fetch
      ? new FetchTransport(config.fetch)
      : new UndiciTransport(config.dispatcher, config.connections);
    this.#headers = buildHeaderSets(config.apiKey, config.orgId, config.defaultHeaders);
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
   * A streaming call, one chunk at a time. Lazy like `streamBatches`, which does the work.
   */
  async *stream<T extends { choices: readonly { index: number }[] }>(
    spec: CallSpec<unknown>,
    validator: ChunkValidator<T>,
    path: string,
    body: () => unknown,
    options: RequestOptions | undefined,
  ): AsyncGenerator<T, void, undefined> {
    for await (const batch of this.streamBatches(spec, validator, path, body, options)) {
      for (let i = 0; i < batch.length; i++) yield batch[i]!;
    }
  }

  /**
   * A streaming call, as batches: the chunks of each network read together. Being an async
   * generator it is lazy: nothing is sent before the first `next()`. Retries happen only before
   * the first byte of the body; after that a failure is the caller's to see, since chunks were
   * already handed out.
   *
   * Why batches: a read holds hundreds of events, and every async generator layer costs each
   * chunk a promise round (measured: about 0.3 µs, a twentieth of LangChain's own cost per
   * token). A consumer that loops over a batch synchronously pays that per read instead. The
   * order of what a consumer sees is the same as one chunk at a time: when an event of a read is
   * bad, the good chunks before it are handed out first, then the error is thrown.
   */
  async *streamBatches<T extends { choices: readonly { index: number }[] }>(
    spec: CallSpec<unknown>,
    validator: ChunkValidator<T>,
    path: string,
    body: () => unknown,
    options: RequestOptions | undefined,
  ): AsyncGenerator<T[], void, undefined> {
    const request = this.#prepare(spec, path, body(), options, true);
    const maxRetries = options?.maxRetries ?? this.config.maxRetries;
    const timeout = options?.timeout ?? this.config.timeout;
    const idleMs = this.config.streamIdleTimeout ?? timeout;
    const signal = options?.signal;
    let open: OpenStream;
    for (let attempt = 0; ; attempt++) {
      try {
        open = await this.#openStream(spec, request, timeout, idleMs, signal);
        break;
      } catch (error) {
        if (attempt >= maxRetries || !shouldRetry(error, spec.retryClass)) throw error;
        await sleep(retryDelay(attempt, retryAfterHeader(error)), signal);
      }
    }
    const decoder = new SSEDecoder();
    const tracker = new ChoiceTracker();
    const streamPath = request.path;
    let bodyDone = false;
    let batch: T[] = [];
    try {
      let result = open.first;
      let done = false;
      while (!result.done) {
        done = collectChunks(decoder.decode(result.value), validator, tracker, streamPath, batch);
        if (done) {
          // Over: the socket goes back to the pool and the timers stop before the last batch
          // is handed out, not after the consumer is through with it.
          bodyDone = true;
          open.response.release();
          open.idle.stop();
          open.unlink?.();
          break;
        }
        if (batch.length > 0) {
          const ready = batch;
          batch = [];
          yield ready;
        }
        if (decoder.pending > this.config.maxResponseBytes) {
          throw new StudioStreamError(
            streamPath,
            `one event grew past maxResponseBytes (${this.config.maxResponseBytes} bytes) without ending; the stream was abandoned. Raise the maxResponseBytes option if such events are expected.`,
          );
        }
        open.idle.arm();
        result = await open.iterator.next();
        open.idle.disarm();
      }
      if (!done) {
        bodyDone = true;
        done = collectChunks(decoder.end(), validator, tracker, streamPath, batch);
      }
      if (batch.length > 0) {
        const ready = batch;
        batch = [];
        yield ready;
      }
      if (!done && !tracker.complete) {
        const type = open.response.header("content-type");
        const hint =
          type && !type.includes("event-stream")
            ? ` (the answer was ${type}, not text/event-stream)`
            : "";
        throw new StudioStreamError(streamPath, tracker.describeCut() + hint);
      }
    } catch (error) {
      const failure = this.#streamFailure(
        error,
        spec,
        streamPath,
        open.idle.control,
        signal,
        idleMs,
      );
      // The good chunks of the read that held the bad event go out before the error.
      if (batch.length > 0) {
        const ready = batch;
        batch = [];
        yield ready;
      }
      throw failure;
    } finally {
      open.idle.stop();
      open.unlink?.();
      if (!bodyDone) open.response.cancel();
    }
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
      checkCallOverrides(options.timeout, options.maxRetries);
      if (options.signal?.aborted) throw abortReason(options.signal);
    }
    const endpoint = requireEndpoint(this.config, spec.target);
    if (spec.auth !== "none" && this.config.apiKey === undefined) throw missingKeyError();
    const sets = stream
      ? this.#headers.sse
      : body === undefined
        ? this.#headers.noBody
        : this.#headers.json;
    return {
      method: spec.method,
      origin: endpoint.origin,
      path: endpoint.prefix + path,
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
    try {
      const response = await this.transport.buffered(
        request,
        control,
        this.config.maxResponseBytes,
      );
      if (!isSuccess(response.status)) throw this.#statusError(response, spec, request);
      return parseResponse(
        spec.schema,
        response.text(),
        spec.name,
        spec.method,
        request.path,
        spec.check,
      );
    } catch (error) {
      throw this.#failure(error, spec, request.path, control, signal, timeout);
    } finally {
      clearTimeout(timer);
      unlink?.();
    }
  }

  async #openStream(
    spec: CallSpec<unknown>,
    request: TransportRequest,
    timeout: number,
    idleMs: number,
    signal: AbortSignal | undefined,
  ): Promise<OpenStream> {
    if (this.#closed) throw closedError();
    const control = new AttemptControl();
    const timer = setTimeout(abortForTimeout, timeout, control);
    const unlink = signal === undefined ? undefined : linkSignal(signal, control);
    let response: StreamingResponse | undefined;
    let idle: IdleWatch | undefined;
    try {
      response = await this.transport.open(request, control);
      if (!isSuccess(response.status)) {
        let text = "";
        if (response.status < 300 || response.status >= 400) {
          text = await response.text(ERROR_BODY_LIMIT, true).catch(() => "");
        }
        throw this.#statusError(response, spec, request, text);
      }
      // `timeout` covers the wait for the headers; from here on only gaps between reads count.
      clearTimeout(timer);
      idle = new IdleWatch(control, idleMs);
      const iterator = response.chunks();
      const first = await iterator.next();
      idle.disarm();
      return { response, iterator, first, idle, unlink };
    } catch (error) {
      clearTimeout(timer);
      idle?.stop();
      unlink?.();
      response?.cancel();
      throw this.#failure(error, spec, request.path, control, signal, timeout, idleMs);
    }
  }

  #statusError(
    response: ResponseHead | BufferedResponse,
    spec: CallSpec<unknown>,
    request: TransportRequest,
    text?: string,
  ): StudioAPIError {
    if (response.status >= 300 && response.status < 400) {
      return redirectError(response, spec.method, request.path, request.origin + request.path);
    }
    const body = text ?? ("text" in response ? response.text() : "");
    return apiErrorFromResponse(response, body, spec.method, request.path);
  }

  /** What a failed attempt throws, whatever the transport raised. */
  #failure(
    error: unknown,
    spec: CallSpec<unknown>,
    path: string,
    control: AttemptControl,
    signal: AbortSignal | undefined,
    timeout: number,
    idleMs = timeout,
  ): Error {
    if (signal?.aborted) return abortReason(signal);
    if (control.reason === TIMEOUT) return new StudioTimeoutError(spec.method, path, timeout);
    if (control.reason === IDLE) return new StudioTimeoutError(spec.method, path, idleMs, "event");
    if (error instanceof StudioError) return error;
    if (error instanceof ResponseTooLargeError) {
      return new StudioResponseError(
        spec.method,
        path,
        `${spec.name} got a body larger than maxResponseBytes (${error.limit} bytes${error.declared ? `; the server declared ${error.declared}` : ""}). Raise the maxResponseBytes option if this is expected.`,
      );
    }
    if (this.#closed) return closedError();
    return connectionError(error, spec.method, path, control.responseStarted);
  }

  /** Failures after the first byte: the stream is cut, not merely unreachable. */
  #streamFailure(
    error: unknown,
    spec: CallSpec<unknown>,
    path: string,
    control: AttemptControl,
    signal: AbortSignal | undefined,
    idleMs: number,
  ): Error {
    if (signal?.aborted) return abortReason(signal);
    if (control.reason === IDLE) return new StudioTimeoutError(spec.method, path, idleMs, "event");
    if (error instanceof StudioError) return error;
    if (this.#closed) return closedError();
    return new StudioStreamError(
      path,
      `the connection was lost mid-stream (${describeChain(error)}); the answer is incomplete`,
      { cause: error },
    );
  }
}
