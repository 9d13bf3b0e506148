/**
 * Scripted replies: a test says what a model answers, request by request, instead of the
 * scripted model's echo. `emulator.script(model, replies)` queues them; each valid completion
 * request for that model takes the next one. A script that is used up answers a 400 saying so,
 * rather than falling back to the echo: an agent calling the model more often than its test
 * expects is a finding, not something to paper over.
 */
import type {
  ChatCompletionRequest,
  ChatMessageParam,
  ChatTool,
  CompletionParams,
  Model,
  ToolChoice,
} from "../api-types";
import { HttpError } from "./http-error";
import type { ChatScriptInput, ScriptChoice } from "./scripted-model";
import { describe, isObject } from "./validate";

export interface ScriptedToolCall {
  name: string;
  /** The arguments: an object (sent as JSON), or a string sent as written (say, broken JSON). */
  args?: Record<string, unknown> | string;
  /** Default: `call_<n>`, numbered like the scripted model's calls. */
  id?: string;
}

export interface ScriptedError {
  /** HTTP status, 400-599. */
  status: number;
  /** Default: "Scripted <status> error." */
  message?: string;
  /**
   * Default: by status, as the emulator's own errors (`invalid_request_error`, `server_error`...).
   */
  type?: string;
  code?: string;
  param?: string;
  /** Response headers, e.g. `{ "retry-after": "2" }` on a 429. */
  headers?: Record<string, string>;
  /**
   * Streamed requests get a 200 stream that sends the reply's `text`, then the error as an
   * event `{"error": {message, type, code: <status>}}` (how servers of this family fail
   * mid-stream); requests that are not streamed get the status as usual.
   */
  inStream?: boolean;
}

export interface ScriptedReplyFields {
  /** The answer's text; beside `toolCalls` it is the content sent with the calls. */
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * A structured answer, sent where the request asks for it: as JSON text when it has a
   * `response_format`; as the arguments of the forced tool call when it forces one (a named
   * `tool_choice`, or the last bound tool for `required`/`any`, where LangChain binds its
   * structured-output tool); else as JSON text.
   */
  structured?: unknown;
  /**
   * The model declines: answered as `message: {role: "assistant", content: null, refusal}`
   * (streamed as `delta.refusal` chunks), finish_reason "stop", as OpenAI-compatible servers
   * report a refusal. Stands alone; a text completion cannot carry one (a 400 `script_mismatch`).
   */
  refusal?: string;
  error?: ScriptedError;
  /** Default: "tool_calls" with calls, else "stop". */
  finishReason?: string;
  /** Wait this long before answering (before the response headers). */
  delayMs?: number;
}

/** A plain string is a text reply. */
export type ScriptedReply = string | ScriptedReplyFields;

/**
 * A completion request as received: a chat completion's body has `messages`, a text one `prompt`.
 */
export interface ScriptedRequest extends CompletionParams {
  messages?: ChatMessageParam[];
  tools?: ChatTool[];
  tool_choice?: ToolChoice | string;
  response_format?: ChatCompletionRequest["response_format"];
  prompt?: string;
}

/** What `emulator.script()` returns. */
export interface ModelScript {
  readonly model: string;
  /**
   * The scope the script answers (requests with `x-emulator-scope: <scope>`); undefined: unscoped.
   */
  readonly scope: string | undefined;
  /**
   * The bodies of the valid completion requests for `model` since the script was set, in
   * order: `requests[i]` was answered by reply `i` (one past the end: the "used up" 400).
   */
  readonly requests: readonly ScriptedRequest[];
  /** Replies not answered yet. */
  readonly remaining: number;
}

const REPLY_KEYS = new Set([
  "text",
  "toolCalls",
  "structured",
  "refusal",
  "error",
  "finishReason",
  "delayMs",
]);
const ANSWER_KEYS = ["text", "toolCalls", "structured", "refusal", "error"];
const CALL_KEYS = new Set(["name", "args", "id"]);
const ERROR_KEYS = new Set(["status", "message", "type", "code", "param", "headers", "inStream"]);

/** Checks every reply before the script is used, so a typo fails where it was written. */
export function checkReplies(model: string, replies: unknown): ScriptedReplyFields[] {
  const fail = (path: string, problem: string) =>
    new Error(`emulator.script(${JSON.stringify(model)}): ${path} ${problem}.`);
  if (!Array.isArray(replies) || replies.length === 0) {
    throw fail("replies", "must be a non-empty array (one reply per request)");
  }
  return replies.map((reply, i) => {
    const path = `replies[${i}]`;
    if (typeof reply === "string") return { text: reply };
    if (!isObject(reply))
      throw fail(path, `must be a string or an object (got ${describe(reply)})`);
    unknownKey(reply, REPLY_KEYS, path, fail);
    const { text, toolCalls, refusal, error, finishReason, delayMs } = reply;
    if (text !== undefined && typeof text !== "string")
      throw fail(`${path}.text`, `must be a string (got ${describe(text)})`);
    if (refusal !== undefined && (typeof refusal !== "string" || refusal === ""))
      throw fail(`${path}.refusal`, `must be a non-empty string (got ${describe(refusal)})`);
    if (toolCalls !== undefined) checkToolCalls(toolCalls, `${path}.toolCalls`, fail);
    if (error !== undefined) checkError(error, `${path}.error`, fail);
    if (finishReason !== undefined && (typeof finishReason !== "string" || finishReason === ""))
      throw fail(`${path}.finishReason`, "must be a non-empty string");
    if (delayMs !== undefined && !(typeof delayMs === "number" && delayMs >= 0 && delayMs < 1e9))
      throw fail(
        `${path}.delayMs`,
        `must be a number of milliseconds >= 0 (got ${describe(delayMs)})`,
      );
    if (reply.structured !== undefined) checkJson(reply.structured, `${path}.structured`, fail);
    const has = (key: string) => reply[key] !== undefined;
    if (!ANSWER_KEYS.some(has))
      throw fail(path, "needs one of text, toolCalls, structured, refusal or error");
    for (const alone of ["structured", "refusal"]) {
      const others = ANSWER_KEYS.filter((key) => key !== alone);
      if (has(alone) && others.some(has))
        throw fail(
          `${path}.${alone}`,
          `stands alone: drop ${others.slice(0, -1).join(", ")} and ${others.at(-1)} beside it`,
        );
    }
    if (has("error") && has("toolCalls")) throw fail(`${path}.error`, "cannot come with toolCalls");
    if (has("error") && has("text") && !(error as ScriptedError).inStream)
      throw fail(
        `${path}.text`,
        "comes with an error only when inStream is true (text sent before it)",
      );
    return reply as ScriptedReplyFields;
  });
}

type Fail = (path: string, problem: string) => Error;

function unknownKey(value: Record<string, unknown>, known: Set<string>, path: string, fail: Fail) {
  const extra = Object.keys(value).find((key) => !known.has(key));
  if (extra !== undefined)
    throw fail(`${path}.${extra}`, `is not a known field (known: ${[...known].join(", ")})`);
}

function checkToolCalls(value: unknown, path: string, fail: Fail): void {
  if (!Array.isArray(value) || value.length === 0) throw fail(path, "must be a non-empty array");
  value.forEach((call, j) => {
    const at = `${path}[${j}]`;
    if (!isObject(call))
      throw fail(at, `must be an object {name, args?, id?} (got ${describe(call)})`);
    unknownKey(call, CALL_KEYS, at, fail);
    if (typeof call.name !== "string" || call.name === "")
      throw fail(`${at}.name`, `must be a non-empty string (got ${describe(call.name)})`);
    if (call.args !== undefined && typeof call.args !== "string" && !isObject(call.args))
      throw fail(`${at}.args`, `must be an object or a string (got ${describe(call.args)})`);
    if (isObject(call.args)) checkJson(call.args, `${at}.args`, fail);
    if (call.id !== undefined && (typeof call.id !== "string" || call.id === ""))
      throw fail(`${at}.id`, "must be a non-empty string");
  });
}

/** Sent as JSON later, so what JSON cannot hold (a BigInt, a cycle) is refused now. */
function checkJson(value: unknown, path: string, fail: Fail): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw fail(path, `must be a JSON value (${(error as Error).message})`);
  }
  if (text === undefined) throw fail(path, `must be a JSON value (got ${describe(value)})`);
}

function checkError(value: unknown, path: string, fail: Fail): void {
  if (!isObject(value))
    throw fail(path, `must be an object {status, message?, ...} (got ${describe(value)})`);
  unknownKey(value, ERROR_KEYS, path, fail);
  const { status, headers, inStream } = value;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599)
    throw fail(`${path}.status`, `must be an HTTP error status 400-599 (got ${describe(status)})`);
  for (const key of ["message", "type", "code", "param"]) {
    if (value[key] !== undefined && typeof value[key] !== "string")
      throw fail(`${path}.${key}`, `must be a string (got ${describe(value[key])})`);
  }
  if (headers !== undefined) {
    if (!isObject(headers)) throw fail(`${path}.headers`, "must be an object of strings");
    for (const [name, v] of Object.entries(headers)) {
      if (typeof v !== "string")
        throw fail(`${path}.headers.${name}`, `must be a string (got ${describe(v)})`);
    }
  }
  if (inStream !== undefined && typeof inStream !== "boolean")
    throw fail(`${path}.inStream`, `must be a boolean (got ${describe(inStream)})`);
}

class ScriptState implements ModelScript {
  readonly requests: ScriptedRequest[] = [];
  private answered = 0;

  constructor(
    readonly model: string,
    readonly scope: string | undefined,
    private readonly replies: readonly ScriptedReplyFields[],
  ) {}

  get remaining(): number {
    return this.replies.length - this.answered;
  }

  take(body: ScriptedRequest): ScriptedReplyFields {
    this.requests.push(body);
    const reply = this.replies[this.answered];
    if (reply === undefined) {
      const of = this.scope === undefined ? "" : ` in scope ${JSON.stringify(this.scope)}`;
      throw new HttpError(
        400,
        `The script of ${JSON.stringify(this.model)}${of} is used up: its ${this.replies.length} ` +
          `replies answered the requests before this one (request ${this.requests.length}). ` +
          "Script one reply per request the code under test makes, or call emulator.reset() to " +
          "drop the script.",
        { code: "script_exhausted" },
      );
    }
    this.answered += 1;
    return reply;
  }
}

/**
 * The scripts by scope and model uri; a new script for a model in a scope replaces the old one.
 * A request in a scope (the `x-emulator-scope` header) takes only that scope's scripts, and an
 * unscoped request only the unscoped ones, so tests sharing one emulator never take each other's
 * replies; a model with no script in the request's scope answers with the scripted model's echo.
 */
export class ScriptBook {
  private readonly scripts = new Map<string, ScriptState>();

  set(
    model: string,
    replies: unknown,
    models: readonly Model[],
    scope: string | undefined = undefined,
  ): ModelScript {
    if (!models.some((m) => m.uri === model)) {
      throw new Error(
        `emulator.script(${JSON.stringify(model)}): no such model; the emulator serves ` +
          `${models.map((m) => m.uri).join(", ")}.`,
      );
    }
    const script = new ScriptState(model, scope, checkReplies(model, replies));
    this.scripts.set(key(scope, model), script);
    return script;
  }

  /** The script of `model` in `scope`, if one is set. */
  get(model: string, scope: string | undefined): ModelScript | undefined {
    return this.scripts.get(key(scope, model));
  }

  /** The next reply for `model`, undefined when it has no script; throws when it is used up. */
  take(
    model: string,
    body: ScriptedRequest,
    scope: string | undefined = undefined,
  ): ScriptedReplyFields | undefined {
    return this.scripts.get(key(scope, model))?.take(body);
  }

  /** Drops every script, or only those of one scope. */
  clear(scope?: string): void {
    if (scope === undefined) {
      this.scripts.clear();
      return;
    }
    for (const [k, script] of this.scripts) if (script.scope === scope) this.scripts.delete(k);
  }
}

/** Scopes are header values (no control characters), so a NUL cannot occur in one. */
function key(scope: string | undefined, model: string): string {
  return scope === undefined ? model : `${scope}\u0000${model}`;
}

/**
 * The error a reply answers with, as an HTTP response (`inStream` errors of unstreamed requests
 * too).
 */
export function replyHttpError(error: ScriptedError): HttpError {
  return new HttpError(error.status, error.message ?? `Scripted ${error.status} error.`, {
    ...(error.type === undefined ? {} : { type: error.type }),
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error.headers === undefined ? {} : { headers: error.headers }),
  });
}

/** The event payload of an in-stream error: the status as an HTTP-like `code`, as the notes say. */
export function replyStreamError(error: ScriptedError): { error: Record<string, unknown> } {
  const http = replyHttpError(error);
  return { error: { message: http.message, type: http.type, code: error.status } };
}

/** The chat choice a (non-error) reply stands for, given the request it answers. */
export function replyChoice(reply: ScriptedReplyFields, input: ChatScriptInput): ScriptChoice {
  if (reply.refusal !== undefined) {
    return {
      content: null,
      refusal: reply.refusal,
      toolCalls: [],
      finishReason: finish(reply, "stop"),
    };
  }
  if (reply.structured !== undefined) {
    const json = JSON.stringify(reply.structured);
    const forced = input.responseFormat.type === "text" ? forcedTool(input) : undefined;
    if (forced !== undefined) {
      return {
        content: null,
        toolCalls: [{ name: forced, arguments: json }],
        finishReason: finish(reply, "tool_calls"),
      };
    }
    return { content: json, toolCalls: [], finishReason: finish(reply, "stop") };
  }
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    name: call.name,
    arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
    ...(call.id === undefined ? {} : { id: call.id }),
  }));
  return {
    content: reply.text ?? (toolCalls.length > 0 ? null : ""),
    toolCalls,
    finishReason: finish(reply, toolCalls.length > 0 ? "tool_calls" : "stop"),
  };
}

/** A reply to a text completion: its text, or its structured value as JSON text. */
export function replyText(reply: ScriptedReplyFields): { text: string; finishReason: string } {
  const unfit =
    reply.toolCalls !== undefined
      ? "toolCalls"
      : reply.refusal !== undefined
        ? "a refusal"
        : undefined;
  if (unfit !== undefined) {
    throw new HttpError(
      400,
      `The scripted reply has ${unfit}, which a text completion cannot answer; script a text ` +
        "reply for it.",
      { code: "script_mismatch" },
    );
  }
  const text =
    reply.structured !== undefined ? JSON.stringify(reply.structured) : (reply.text ?? "");
  return { text, finishReason: finish(reply, "stop") };
}

function finish(reply: ScriptedReplyFields, otherwise: string): string {
  return reply.finishReason ?? otherwise;
}

function forcedTool(input: ChatScriptInput): string | undefined {
  if (typeof input.toolChoice === "object") return input.toolChoice.name;
  if (input.toolChoice === "required") return input.tools.at(-1)?.name;
  return undefined;
}
