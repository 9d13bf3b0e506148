/**
 * The one request path every method goes through: config checks, headers, the one retry loop,
 * one attempt of a plain call, and one attempt of a stream (read until the first token inside the
 * retry loop, the rest outside it).
 */
import type * as z from "zod/v4/mini";
import { StudioAPIError, StudioStreamError, StudioValidationError } from "../errors";
import { type AttemptLimits, attemptFailure, closedError } from "./attempt-failure";
import { AttemptTimers } from "./attempt-timers";
import { type RetryClock, retryClock } from "./clock";
import { type Endpoint, missingKeyError, type ResolvedConfig, requireEndpoint } from "./config";
import { type AddressUsed, apiErrorFromResponse, redirectError } from "./errors-from-response";
import { type AuthKind, buildHeaderSets, type HeaderSets, withCallHeaders } from "./headers";
import { checkRequestOptions, type RequestOptions } from "./options";
import { abortReason, type RetryClass, retryDelay, shouldRetry } from "./retry";
import { DONE, parsePayload, SKIP } from "./sse";
import { ChoiceTracker, type ChunkReader, carriesToken } from "./stream";
import { StreamBody } from "./stream-body";
import {
  AttemptControl,
  ERROR_BODY_LIMIT,
  type HttpMethod,
  isSuccess,
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

type ChoiceOf = { index: number; finish_reason?: string | null | undefined };

/** How many choices a request asks for (`n`, default 1). */
function expectedChoices(body: unknown): number {
  const n = (body as { n?: unknown } | undefined)?.n;
  return typeof n === "number" && Number.isInteger(n) && n > 1 ? n : 1;
}

/** What one stream runs under, retries included. */
interface StreamPlan {
  readonly limits: AttemptLimits;
  /** The clock the retries wait on, and the deadline is read from. */
  readonly clock: RetryClock;
  /** When `streamTimeout` runs out, on that clock. */
  readonly deadline: number;
  /** Choices the request asked for (`n`). */
  readonly choices: number;
}

/**
 * A stream that got past the point where it may be retried: the chunks up to its first token
 * (they carry nothing a consumer shows, so a retry never showed any), and the attempt still
 * reading; or, for a stream that ended before any token, all its chunks and no attempt.
 */
interface StartedStream<T> {
  readonly held: T[];
  readonly rest: AsyncGenerator<T, void, undefined> | undefined;
}

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

  /**
   * A non-streaming call: at most `1 + maxRetries` attempts. Every failure rejects; none throws.
   */
  async call<T>(
    spec: CallSpec<T>,
    path: string,
    body: unknown,
    options: RequestOptions | undefined,
  ): Promise<T> {
    const request = this.#prepare(spec, path, body, options, false);
    const timeout = options?.timeout ?? this.config.timeout;
    return this.#retrying(spec, options, () =>
      this.#attempt(spec, request, timeout, options?.signal),
    );
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
    const signal = options?.signal;
    const clock = retryClock();
    const timeout = options?.timeout ?? this.config.timeout;
    const plan: StreamPlan = {
      limits: {
        timeout,
        idleMs: this.config.streamIdleTimeout ?? timeout,
        streamMs: this.config.streamTimeout,
      },
      clock,
      deadline: clock.now() + this.config.streamTimeout,
      choices: expectedChoices(payload),
    };
    const started = await this.#retrying(
      spec,
      options,
      () => untilFirstToken(this.#streamAttempt(spec, request, makeReader, plan, signal)),
      () => clock.now() < plan.deadline,
    );
    try {
      for (const chunk of started.held) {
        yield chunk;
        // Chunks decoded before the abort are not handed out after it.
        if (signal?.aborted) throw abortReason(signal);
      }
      if (started.rest === undefined) return;
      for await (const chunk of started.rest) {
        yield chunk;
        if (signal?.aborted) throw abortReason(signal);
      }
    } finally {
      // The consumer stopped early (or an abort did): the attempt ends and frees its connection.
      await started.rest?.return();
    }
  }

  /**
   * The one retry loop: `attempt` until it succeeds, or its failure is not retryable, the retries
   * are spent or `inTime` says the call's time is up. Between two attempts it waits
   * `retryDelay` (the server's `Retry-After`, else the backoff) on the retry clock.
   */
  async #retrying<T>(
    spec: CallSpec<unknown>,
    options: RequestOptions | undefined,
    attempt: () => Promise<T>,
    inTime: () => boolean = () => true,
  ): Promise<T> {
    const maxRetries = options?.maxRetries ?? this.config.maxRetries;
    const signal = options?.signal;
    const clock = retryClock();
    for (let retry = 0; ; retry++) {
      // close() may have come during a retry's backoff.
      if (this.#closed) throw closedError();
      try {
        return await attempt();
      } catch (error) {
        if (retry >= maxRetries || !inTime() || !shouldRetry(error, spec.retryClass)) throw error;
        await clock.sleep(retryDelay(retry, retryAfterHeader(error)), signal);
      }
    }
  }

  /** One attempt of a plain call: the answer parsed by the call's schema, or the typed error. */
  async #attempt<T>(
    spec: CallSpec<T>,
    request: TransportRequest,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const control = new AttemptControl();
    const timers = new AttemptTimers(control, timeout, signal);
    try {
      const response = await this.#send(spec, request, control, false);
      const text = await response.text(this.config.maxResponseBytes);
      return parseResponse(spec.schema, text, spec.name, spec.method, request.path);
    } catch (error) {
      throw this.#failure(error, spec, request, control, signal, false, {
        timeout,
        idleMs: timeout,
        streamMs: 0,
      });
    } finally {
      timers.stop();
    }
  }

  /**
   * One attempt of a stream: each chunk as it is decoded, then the check that the chunks made a
   * whole answer (every choice finished or `[DONE]`, `n` choices).
   */
  async *#streamAttempt<T extends { choices: readonly ChoiceOf[] }>(
    spec: CallSpec<unknown>,
    request: TransportRequest,
    makeReader: (path: string) => ChunkReader<T>,
    plan: StreamPlan,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<T, void, undefined> {
    const path = request.path;
    const control = new AttemptControl();
    const timers = new AttemptTimers(control, plan.limits.timeout, signal, {
      idleMs: plan.limits.idleMs,
      leftMs: plan.deadline - plan.clock.now(),
    });
    let response: WireResponse | undefined;
    let body: StreamBody | undefined;
    try {
      response = await this.#send(spec, request, control, true);
      timers.headersArrived();
      body = new StreamBody(
        response.body ?? undefined,
        timers.idle!,
        this.config.maxResponseBytes,
        path,
      );
      const chunks = makeReader(path);
      const tracker = new ChoiceTracker();
      let sawDone = false;
      while (!body.ended) {
        for (const event of await body.read()) {
          const payload = parsePayload(event, path, spec.method);
          if (payload === SKIP) continue;
          if (payload === DONE) {
            sawDone = true;
            body.finish();
            break;
          }
          const chunk = chunks.read(payload);
          tracker.observe(chunk.choices);
          yield chunk;
        }
      }
      // Over: the socket went back to the pool and the timers stop before the last chunks are
      // handed out, not after the consumer is through with them.
      timers.stop();
      const missing = tracker.incomplete(sawDone, plan.choices);
      if (missing) throw new StudioStreamError(path, missing + contentTypeHint(response));
    } catch (error) {
      throw this.#failure(
        error,
        spec,
        request,
        control,
        signal,
        response !== undefined,
        plan.limits,
      );
    } finally {
      timers.stop();
      // Left before its end: the body's reader is cancelled, else the response.
      if (!body?.ended && !body?.cancel()) response?.cancel();
    }
  }

  /** Sends one attempt's request: the response when its status is a success, else its error. */
  async #send(
    spec: CallSpec<unknown>,
    request: TransportRequest,
    control: AttemptControl,
    stream: boolean,
  ): Promise<WireResponse> {
    const response = await this.transport.send(request, control);
    if (isSuccess(response.status)) return response;
    let text = "";
    if (response.status < 300 || response.status >= 400) {
      const reading = response.text(ERROR_BODY_LIMIT, true);
      // A stream's error body is best effort: its status says enough.
      text = stream ? await reading.catch(() => "") : await reading;
    } else {
      response.cancel();
    }
    throw this.#statusError(response, spec, request, text);
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

  #failure(
    error: unknown,
    spec: CallSpec<unknown>,
    request: TransportRequest,
    control: AttemptControl,
    signal: AbortSignal | undefined,
    streaming: boolean,
    limits: AttemptLimits,
  ): Error {
    return attemptFailure(error, {
      name: spec.name,
      method: spec.method,
      path: request.path,
      control,
      signal,
      limits,
      closed: this.#closed,
      streaming,
    });
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
}

/**
 * Reads a stream attempt until its first token (or its end), holding back the chunks before it:
 * until then a failure may still be retried, since the consumer has seen nothing.
 */
async function untilFirstToken<T extends Parameters<typeof carriesToken>[0]>(
  attempt: AsyncGenerator<T, void, undefined>,
): Promise<StartedStream<T>> {
  const held: T[] = [];
  for (;;) {
    const next = await attempt.next();
    if (next.done) return { held, rest: undefined };
    held.push(next.value);
    if (carriesToken(next.value)) return { held, rest: attempt };
  }
}

/** Why a stream's answer may be cut: it was not a stream at all. */
function contentTypeHint(response: WireResponse): string {
  const type = response.header("content-type");
  return type && !type.includes("event-stream")
    ? ` (the answer was ${type}, not text/event-stream)`
    : "";
}
