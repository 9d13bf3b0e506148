/**
 * Bad input from the caller, across every class: each case must raise a `StudioValidationError`
 * naming the field, and nothing may reach the network. nock stands at both addresses (the
 * clients use the fetch transport) and counts what arrives; real connections are refused.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { loadAssistantAgent } from "../../../src/agents";
import type { Assistant, ChatCompletionRequest } from "../../../src/api-types";
import { createAssistant, getAssistant } from "../../../src/assistants";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient, type StudioClientOptions } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { useOfflineNock } from "../../helpers/nock";

const ORIGIN = "https://studio.test";
const KEY = "sk-bad-input-0123456789";
const MODEL = "studio/echo-small";

let requests: string[] = [];

useOfflineNock();
beforeEach(() => {
  requests = [];
  for (const method of ["GET", "POST", "DELETE"]) {
    nock(ORIGIN)
      .persist()
      .intercept(/.*/, method)
      .reply(function reply() {
        requests.push(`${this.req.method} ${this.req.path}`);
        return [500, { error: { message: "must not be reached" } }];
      });
  }
});

function client(options: StudioClientOptions = {}): StudioClient {
  return new StudioClient({
    fetch: globalThis.fetch,
    apiKey: KEY,
    baseUrl: `${ORIGIN}/studio`,
    proxyUrl: `${ORIGIN}/inference`,
    maxRetries: 0,
    ...options,
  });
}

/** Runs `fn` (sync throw or rejection) and returns the StudioValidationError it raised. */
async function rejection(fn: () => unknown): Promise<StudioValidationError> {
  let error: unknown;
  try {
    const result = fn();
    if (result && typeof (result as Promise<unknown>).then === "function") await result;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined)
    throw new Error("expected a StudioValidationError, but nothing was thrown");
  expect(error, String(error)).toBeInstanceOf(StudioValidationError);
  return error as StudioValidationError;
}

type Case = [name: string, field: string | RegExp, fn: () => unknown];

function check(cases: Case[]): void {
  for (const [name, field, fn] of cases) {
    it(`${name} -> ${String(field)}`, async () => {
      const error = await rejection(fn);
      if (typeof field === "string") expect(error.field).toBe(field);
      else expect(error.field).toMatch(field);
      // The message names the field too, for a reader without the object at hand.
      expect(error.message).toContain(error.field.split(".")[0]!.split("[")[0]!);
      expect(requests).toEqual([]);
    });
  }
}

const lookup = tool(async ({ q }) => q, {
  name: "lookup",
  description: "Looks something up",
  schema: z.object({ q: z.string() }),
});

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

/** A conversation whose AI turn calls a tool with `args`. */
function withToolArgs(args: unknown): BaseMessage[] {
  return [
    new HumanMessage("look it up"),
    new AIMessage({
      content: "",
      tool_calls: [{ id: "call_1", name: "lookup", args: args as Record<string, unknown> }],
    }),
    new ToolMessage({ content: "found", tool_call_id: "call_1" }),
  ];
}

/** Client options that build the class's own client on the fetch transport (nock sees it). */
const OWN_CLIENT = {
  apiKey: KEY,
  baseUrl: `${ORIGIN}/studio`,
  proxyUrl: `${ORIGIN}/inference`,
  fetch: globalThis.fetch,
  maxRetries: 0,
};

describe("ChatStudio constructor", () => {
  const make = (fields: Record<string, unknown>) => () =>
    new ChatStudio({ model: MODEL, client: client(), ...fields } as never);
  // Client options go without `client` (giving both is its own error).
  const own = (fields: Record<string, unknown>) => () =>
    new ChatStudio({ model: MODEL, ...OWN_CLIENT, ...fields } as never);
  check([
    ["model missing", "model", make({ model: undefined })],
    ["model not a uri", "model", make({ model: "just-a-name" })],
    ["model with spaces", "model", make({ model: "owner/has space" })],
    ["model a number", "model", make({ model: 42 })],
    ["temperature below 0", "temperature", make({ temperature: -0.1 })],
    ["temperature above 2", "temperature", make({ temperature: 2.01 })],
    ["temperature a string", "temperature", make({ temperature: "1" })],
    ["temperature NaN", "temperature", make({ temperature: Number.NaN })],
    ["topP 0", "topP", make({ topP: 0 })],
    ["topP above 1", "topP", make({ topP: 1.5 })],
    ["n 0", "n", make({ n: 0 })],
    ["n fractional", "n", make({ n: 1.5 })],
    ["maxTokens 0", "maxTokens", make({ maxTokens: 0 })],
    ["maxTokens negative", "maxTokens", make({ maxTokens: -3 })],
    ["maxTokens fractional", "maxTokens", make({ maxTokens: 2.5 })],
    ["stop a string", "stop", make({ stop: "END" })],
    ["stopSequences of numbers", "stopSequences[0]", make({ stopSequences: [1, 2] })],
    ["presencePenalty infinite", "presencePenalty", make({ presencePenalty: Infinity })],
    ["frequencyPenalty a string", "frequencyPenalty", make({ frequencyPenalty: "high" })],
    ["penalty NaN", "penalty", make({ penalty: Number.NaN })],
    ["logitBias of strings", "logitBias.50256", make({ logitBias: { "50256": "-100" } })],
    ["logitBias an array", "logitBias", make({ logitBias: [1] })],
    ["timeout 0", "timeout", own({ timeout: 0 })],
    ["timeout negative", "timeout", own({ timeout: -1 })],
    ["maxRetries negative", "maxRetries", own({ maxRetries: -1 })],
    ["maxRetries fractional", "maxRetries", own({ maxRetries: 0.5 })],
    ["modelKwargs a string", "modelKwargs", make({ modelKwargs: "x" })],
    [
      "modelKwargs overriding messages",
      "modelKwargs.messages",
      make({ modelKwargs: { messages: [] } }),
    ],
    ["apiKey a number", "apiKey", own({ apiKey: 12345 })],
    ["client not a StudioClient", "client", make({ client: { chatCompletion() {} } })],
  ]);
});

describe("ChatStudio calls", () => {
  const model = () => new ChatStudio({ model: MODEL, client: client() });
  check([
    ["empty message list", "messages", () => model().invoke([])],
    [
      "temperature out of range at call time",
      "temperature",
      () => model().invoke("hi", { temperature: 3 }),
    ],
    [
      "topP out of range in a stream",
      "topP",
      async () => {
        for await (const _ of await model().stream("hi", { topP: 0 })) {
          // never reached
        }
      },
    ],
    ["n 0 in a batch", "n", () => model().batch(["a", "b"], { n: 0 })],
    [
      "maxTokens a string at call time",
      "maxTokens",
      () => model().invoke("hi", { maxTokens: "10" as never }),
    ],
    [
      "unknown tool name in tool_choice",
      "tool_choice",
      () => model().bindTools([lookup], { tool_choice: "no_such_tool" }).invoke("hi"),
    ],
    [
      "tool_choice naming a tool when none are bound",
      "tool_choice",
      () => model().invoke("hi", { tool_choice: "lookup" }),
    ],
    [
      "a tool that is not a tool",
      /^tools\[0\]/,
      () =>
        model()
          .bindTools([42 as never])
          .invoke("hi"),
    ],
    [
      "two tools with one name",
      /^tools\[1\]/,
      () => model().bindTools([lookup, lookup]).invoke("hi"),
    ],
    [
      "an audio block the service cannot take",
      "messages[0].content[0]",
      () =>
        model().invoke([
          new HumanMessage({
            content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] as never,
          }),
        ]),
    ],
    [
      "BigInt in an AI message's tool_call args",
      /^messages\[1\]/,
      () => model().invoke(withToolArgs({ n: 10n })),
    ],
    [
      "a cycle in an AI message's tool_call args",
      /^messages\[1\]/,
      () => model().invoke(withToolArgs(cyclic())),
    ],
    [
      "a cycle in tool_call args, streamed",
      /^messages\[1\]/,
      async () => {
        for await (const _ of await model().stream(withToolArgs(cyclic()))) {
          // never reached
        }
      },
    ],
  ]);
});

describe("StudioLLM", () => {
  const make = (fields: Record<string, unknown>) => () =>
    new StudioLLM({ model: MODEL, client: client(), ...fields } as never);
  const own = (fields: Record<string, unknown>) => () =>
    new StudioLLM({ model: MODEL, ...OWN_CLIENT, ...fields } as never);
  const llm = () => new StudioLLM({ model: MODEL, client: client() });
  check([
    ["model not a uri", "model", make({ model: "nope" })],
    ["temperature above 2", "temperature", make({ temperature: 5 })],
    ["topP 0", "topP", make({ topP: 0 })],
    ["n 0", "n", make({ n: 0 })],
    ["maxTokens 0", "maxTokens", make({ maxTokens: 0 })],
    ["logitBias of strings", "logitBias.a", make({ logitBias: { a: "b" } })],
    ["echo a string", "echo", make({ echo: "yes" })],
    ["streaming a string", "streaming", make({ streaming: "yes" })],
    ["timeout negative", "timeout", own({ timeout: -5 })],
    ["maxRetries fractional", "maxRetries", own({ maxRetries: 1.5 })],
    ["temperature at call time", "temperature", () => llm().invoke("hi", { temperature: -1 })],
    ["n 0 in a batch", "n", () => llm().batch(["a", "b"], { n: 0 })],
    [
      "topP in a stream",
      "topP",
      async () => {
        for await (const _ of await llm().stream("hi", { topP: 2 })) {
          // never reached
        }
      },
    ],
  ]);
});

describe("StudioClient options and calls", () => {
  const make = (options: Record<string, unknown>) => () => client(options as StudioClientOptions);
  const body: ChatCompletionRequest = { model: MODEL, messages: [{ role: "user", content: "hi" }] };
  check([
    ["baseUrl not a URL", "baseUrl", make({ baseUrl: "not a url" })],
    ["baseUrl with another scheme", "baseUrl", make({ baseUrl: "ftp://studio.test" })],
    ["baseUrl with credentials", "baseUrl", make({ baseUrl: "https://user:pass@studio.test" })],
    ["proxyUrl a number", "proxyUrl", make({ proxyUrl: 8080 })],
    ["timeout 0", "timeout", make({ timeout: 0 })],
    ["timeout above the timer limit", "timeout", make({ timeout: 2 ** 31 })],
    ["streamIdleTimeout negative", "streamIdleTimeout", make({ streamIdleTimeout: -1 })],
    ["maxRetries negative", "maxRetries", make({ maxRetries: -1 })],
    ["maxResponseBytes 0", "maxResponseBytes", make({ maxResponseBytes: 0 })],
    [
      "defaultHeaders with a number value",
      "defaultHeaders",
      make({ defaultHeaders: { "x-a": 1 } }),
    ],
    ["dispatcher not a dispatcher", "dispatcher", make({ dispatcher: {} })],
    ["fetch not a function", "fetch", make({ fetch: "fetch" })],
    ["apiKey an object", "apiKey", make({ apiKey: { key: "x" } })],
    ["chat model not a uri", "model", () => client().chatCompletion({ ...body, model: "bad" })],
    ["chat without messages", "messages", () => client().chatCompletion({ model: MODEL } as never)],
    ["text without prompt", "prompt", () => client().textCompletion({ model: MODEL } as never)],
    ["per-call timeout negative", "timeout", () => client().chatCompletion(body, { timeout: -1 })],
    [
      "per-call maxRetries fractional",
      "maxRetries",
      () => client().chatCompletion(body, { maxRetries: 1.5 }),
    ],
    ["list limit 0", "limit", () => client().listThreads({ limit: 0 })],
    ["list limit 101", "limit", () => client().listMessages("thread_1", { limit: 101 })],
    ["list order sideways", "order", () => client().listAssistants({ order: "up" as never })],
    ["empty thread id", "threadId", () => client().getThread("")],
    [
      "thread id not a string",
      "threadId",
      () => client().createMessage(7 as never, { role: "user", content: "x" }),
    ],
    ["empty message id", "messageId", () => client().deleteMessage("thread_1", "")],
    ["empty dataset id", "datasetId", () => client().listDatasetThreadsMessages({ datasetId: "" })],
    ["message id ..", "messageId", () => client().deleteMessage("T1", "..")],
    ["thread id .", "threadId", () => client().deleteThread(".")],
    ["assistant id with a slash", "assistantId", () => client().deleteAssistant("a/b")],
    ["thread id with a query", "threadId", () => client().listMessages("t?after=x")],
    [
      "dataset id with a control character",
      "datasetId",
      () => client().listDatasetThreadsMessages({ datasetId: "d\u0000" }),
    ],
    [
      "signal a plain object",
      "signal",
      () => client().chatCompletion(body, { signal: {} as never }),
    ],
    ["defaultHeaders with a bad name", "defaultHeaders", make({ defaultHeaders: { "x y": "1" } })],
    [
      "defaultHeaders carrying Authorization",
      "defaultHeaders",
      make({ defaultHeaders: { Authorization: "Bearer x" } }),
    ],
    [
      "per-call header name with a colon",
      "headers",
      () => client().getThread("t", { headers: { "x:y": "1" } }),
    ],
    [
      "per-call header value with a line break",
      "headers",
      () => client().chatCompletion(body, { headers: { "x-a": "1\r\nx-b: 2" } }),
    ],
    [
      "a BigInt in a raw request body",
      /.+/,
      () => client().chatCompletion({ ...body, logit_bias: { a: 1n as never } }),
    ],
  ]);
});

describe("StudioChatMessageHistory", () => {
  const keys = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
  const make = (fields: Record<string, unknown>) => () =>
    new StudioChatMessageHistory({ client: client(), ...fields } as never);
  const fresh = () => new StudioChatMessageHistory({ client: client() });
  const existing = () => new StudioChatMessageHistory({ client: client(), threadId: "thread_1" });
  const tooBig = () =>
    new HumanMessage({ content: "x", additional_kwargs: { blob: "y".repeat(8000) } });
  check([
    ["metadata with 17 keys", "metadata", make({ metadata: keys(17) })],
    ["metadata with 16 keys (one is the history's)", "metadata", make({ metadata: keys(16) })],
    ["metadata key of 65 characters", /^metadata\./, make({ metadata: { ["k".repeat(65)]: "v" } })],
    [
      "metadata value of 513 characters",
      "metadata.note",
      make({ metadata: { note: "v".repeat(513) } }),
    ],
    ["metadata value a number", "metadata.count", make({ metadata: { count: 3 } })],
    ["metadata an array", "metadata", make({ metadata: ["a"] })],
    [
      "metadata using the reserved key",
      "metadata.lc_thread_key",
      make({ metadata: { lc_thread_key: "x" } }),
    ],
    ["threadId empty", "threadId", make({ threadId: "" })],
    ["maxWriteAttempts 0", "maxWriteAttempts", make({ maxWriteAttempts: 0 })],
    [
      "a message too big for a thread message, on a new thread",
      "messages[1]",
      () => fresh().addMessages([new HumanMessage("fine"), tooBig()]),
    ],
    [
      "a message too big, on an existing thread: nothing of the batch is written",
      "messages[1]",
      () => existing().addMessages([new HumanMessage("fine"), tooBig()]),
    ],
    [
      "BigInt in additional_kwargs",
      "messages[0]",
      () =>
        existing().addMessages([
          new HumanMessage({ content: "x", additional_kwargs: { n: 1n } as never }),
        ]),
    ],
    [
      "a cycle in tool_call args",
      "messages[1]",
      () => existing().addMessages(withToolArgs(cyclic())),
    ],
    [
      "null in the batch",
      "messages[1]",
      () => existing().addMessages([new HumanMessage("ok"), null as never]),
    ],
    ["not a message", "messages[0]", () => existing().addMessages([{ content: "hi" } as never])],
  ]);
});

describe("assistants", () => {
  const keys = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
  const create = (input: Record<string, unknown>) => () =>
    createAssistant({ assistantName: "helper", ...input } as never, { client: client() });
  const record: Assistant = {
    id: "asst_1",
    assistantName: "helper",
    modelName: MODEL,
    functionModel: { modelId: MODEL },
    tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
  };
  check([
    ["assistantName empty", "assistantName", create({ assistantName: "" })],
    ["description of 513 characters", "description", create({ description: "d".repeat(513) })],
    ["four userFilters", "userFilters", create({ userFilters: keys(4) })],
    ["userFilters value a number", /^userFilters/, create({ userFilters: { team: 1 } })],
    [
      "functionModel.temperature 3",
      "functionModel.temperature",
      create({ functionModel: { temperature: 3 } }),
    ],
    ["responseModel.topP 0", "responseModel.topP", create({ responseModel: { topP: 0 } })],
    ["responseModel.topP a string", "responseModel.topP", create({ responseModel: { topP: "1" } })],
    ["metadata with 17 keys", "metadata", create({ metadata: keys(17) })],
    [
      "metadata value of 513 characters",
      "metadata.k",
      create({ metadata: { k: "v".repeat(513) } }),
    ],
    ["tools not a list", "tools", create({ tools: "lookup" })],
    ["two tools with one name", "tools[1]", create({ tools: [lookup, lookup] })],
    [
      "a tool schema with a cycle",
      /^tools\[0\]/,
      create({
        tools: [{ type: "function", function: { name: "x", parameters: cyclic() } }],
      }),
    ],
    ["getAssistant with an empty id", "assistantId", () => getAssistant("", { client: client() })],
    [
      "load with tools not a list",
      "tools",
      () => loadAssistantAgent({ assistant: record, tools: "lookup" as never, client: client() }),
    ],
    [
      "load with maxIterations 0",
      "maxIterations",
      () =>
        loadAssistantAgent({
          assistant: record,
          tools: [lookup],
          client: client(),
          maxIterations: 0,
        }),
    ],
    [
      "load with both assistant and assistantId",
      "assistant",
      () =>
        loadAssistantAgent({
          assistant: record,
          assistantId: "asst_1",
          tools: [lookup],
          client: client(),
        }),
    ],
  ]);
});

describe("the request counter itself", () => {
  it("sees a request that does go out (so zero above means zero)", async () => {
    await expect(client().getThread("thread_1")).rejects.toThrow();
    expect(requests).toEqual(["GET /studio/v1/threads/thread_1"]);
    expect(nock.pendingMocks().length).toBeGreaterThan(0);
  });
});
