/**
 * Chat and text completions (spec calls 2 and 3): request checks, the scripted model's answer as a
 * JSON body or as server-sent events in the notes' chunk layout, or forwarding to an upstream.
 */
import type { Model } from "../api-types";
import { HttpError, invalid } from "./http-error";
import type { Rng } from "./rng";
import type { HandlerResult, Route, SseOut } from "./router";
import {
  type ChatScriptInput,
  estimateTokens,
  type ScriptChoice,
  type ScriptMessage,
  type ScriptTool,
  type ScriptToolChoice,
  scriptChat,
  scriptText,
  tokenize,
} from "./scripted-model";
import type { Upstream } from "./upstream";
import {
  describe,
  isObject,
  type Json,
  MODEL_URI,
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  requireBodyObject,
} from "./validate";

const MAX_N = 128;
const TOOL_ARGUMENT_FRAGMENT = 8;

export interface CompletionDeps {
  models: () => readonly Model[];
  rng: Rng;
  upstream: Upstream | undefined;
  /** Numbers the `call_<n>` tool-call ids; owned by the caller so that `reset()` can rewind it. */
  counters: { toolCalls: number };
}

interface Sampling {
  model: string;
  n: number;
  maxTokens: number | undefined;
  stop: string[];
  stream: boolean;
  echo: boolean;
}

export function completionRoutes(deps: CompletionDeps, prefix: string): Route[] {
  const ids = {
    completion: (kind: string) => `${kind}-${deps.rng.token(24)}`,
    toolCall: () => `call_${++deps.counters.toolCalls}`,
  };
  return [
    {
      method: "POST",
      path: `${prefix}/chat/completions`,
      auth: "inference",
      handler: (ctx) => {
        if (deps.upstream) return deps.upstream.forward("/chat/completions", ctx.raw);
        const body = requireBodyObject(ctx.body);
        const sampling = readSampling(body, deps.models());
        const input = readChatInput(body, sampling);
        const choice = scriptChat(input);
        const promptChars = input.messages.reduce((sum, m) => sum + m.text.length, 0);
        return chatResult(sampling, choice, promptChars, ids);
      },
    },
    {
      method: "POST",
      path: `${prefix}/text/completions`,
      auth: "inference",
      handler: (ctx) => {
        // OpenAI-compatible servers serve text completions at `/completions`.
        if (deps.upstream) return deps.upstream.forward("/completions", ctx.raw);
        const body = requireBodyObject(ctx.body);
        const sampling = readSampling(body, deps.models());
        const prompt = body.prompt;
        if (prompt === undefined || prompt === null)
          throw invalid("prompt", "is required", "missing_field");
        if (typeof prompt !== "string")
          throw invalid("prompt", `must be a string (got ${describe(prompt)})`);
        const result = scriptText({
          prompt,
          maxTokens: sampling.maxTokens,
          stop: sampling.stop,
          echo: sampling.echo,
        });
        return textResult(sampling, result, prompt.length, ids);
      },
    },
  ];
}

function readSampling(body: Json, models: readonly Model[]): Sampling {
  const model = body.model;
  if (model === undefined || model === null) throw invalid("model", "is required", "missing_field");
  if (typeof model !== "string" || !MODEL_URI.test(model)) {
    throw invalid(
      "model",
      `must be a model uri shaped "<owner>/<model-name>" (got ${describe(model)})`,
    );
  }
  if (!models.some((m) => m.uri === model)) {
    throw new HttpError(
      404,
      `model ${JSON.stringify(model)} not found; list the models with ListPublicModels (e.g. "studio/echo-small")`,
      { code: "model_not_found", param: "model" },
    );
  }
  optionalNumber(body, "temperature", { min: 0, max: 2 });
  optionalNumber(body, "top_p", { min: 0, max: 1, minExclusive: true });
  optionalNumber(body, "presence_penalty");
  optionalNumber(body, "frequency_penalty");
  optionalNumber(body, "penalty");
  const logitBias = body.logit_bias;
  if (logitBias !== undefined && logitBias !== null) {
    if (!isObject(logitBias)) throw invalid("logit_bias", "must be an object of token to number");
    for (const [token, bias] of Object.entries(logitBias)) {
      if (typeof bias !== "number")
        throw invalid(`logit_bias.${token}`, `must be a number (got ${describe(bias)})`);
    }
  }
  return {
    model,
    n: optionalInteger(body, "n", { min: 1, max: MAX_N }) ?? 1,
    maxTokens: optionalInteger(body, "max_tokens", { min: 1 }),
    stop: readStop(body.stop),
    stream: optionalBoolean(body, "stream") ?? false,
    echo: optionalBoolean(body, "echo") ?? false,
  };
}

/** The spec says string[]; OpenAI clients may send one string, which is read as a list of one. */
function readStop(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === "string") return [stop];
  if (!Array.isArray(stop) || stop.some((s) => typeof s !== "string")) {
    throw invalid("stop", `must be an array of strings (got ${describe(stop)})`);
  }
  return stop as string[];
}

function readChatInput(body: Json, sampling: Sampling): ChatScriptInput {
  const raw = body.messages;
  if (raw === undefined || raw === null) throw invalid("messages", "is required", "missing_field");
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalid("messages", "must be a non-empty array");
  const messages = raw.map((m, i) => readChatMessage(m, `messages[${i}]`));
  const tools = readTools(body.tools);
  return {
    messages,
    tools,
    toolChoice: readToolChoice(body.tool_choice, tools),
    maxTokens: sampling.maxTokens,
    stop: sampling.stop,
    responseFormat: readResponseFormat(body.response_format),
  };
}

function readChatMessage(value: unknown, path: string): ScriptMessage {
  if (!isObject(value)) throw invalid(path, `must be an object (got ${describe(value)})`);
  const role = value.role;
  if (typeof role !== "string" || role === "")
    throw invalid(`${path}.role`, "is required and must be a string");
  const content = value.content;
  if (typeof content === "string") return { role, text: content };
  if (content === undefined || content === null) {
    // Assistant turns that only call tools carry no content.
    if (role === "assistant") return { role, text: "" };
    throw invalid(`${path}.content`, "is required", "missing_field");
  }
  if (!Array.isArray(content)) {
    throw invalid(
      `${path}.content`,
      `must be a string or an array of content parts (got ${describe(content)})`,
    );
  }
  const texts: string[] = [];
  content.forEach((part, j) => {
    if (!isObject(part) || typeof part.type !== "string") {
      throw invalid(`${path}.content[${j}].type`, "is required and must be a string");
    }
    if (part.type === "text") {
      if (typeof part.text !== "string")
        throw invalid(`${path}.content[${j}].text`, "must be a string");
      texts.push(part.text);
    }
  });
  return { role, text: texts.join(" ") };
}

function readTools(value: unknown): ScriptTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid("tools", `must be an array (got ${describe(value)})`);
  return value.map((tool, i) => {
    if (!isObject(tool) || !isObject(tool.function) || typeof tool.function.name !== "string") {
      throw invalid(`tools[${i}].function.name`, "is required and must be a string");
    }
    if (tool.type !== undefined && tool.type !== "function") {
      throw invalid(`tools[${i}].type`, `must be "function" (got ${describe(tool.type)})`);
    }
    return { name: tool.function.name, parameters: tool.function.parameters };
  });
}

function readToolChoice(value: unknown, tools: ScriptTool[]): ScriptToolChoice {
  if (value === undefined || value === null || value === "auto") return "auto";
  if (value === "none" || value === "required") return value;
  if (isObject(value) && isObject(value.function) && typeof value.function.name === "string") {
    const name = value.function.name;
    if (!tools.some((t) => t.name === name)) {
      throw invalid(
        "tool_choice.function.name",
        `names ${JSON.stringify(name)}, which is not among tools`,
      );
    }
    return { name };
  }
  throw invalid(
    "tool_choice",
    `must be "auto", "none", "required" or {type: "function", function: {name}} (got ${describe(value)})`,
  );
}

function readResponseFormat(value: unknown): ChatScriptInput["responseFormat"] {
  if (value === undefined || value === null) return { type: "text" };
  if (!isObject(value))
    throw invalid("response_format", `must be an object (got ${describe(value)})`);
  if (value.type === "text" || value.type === "json_object") return { type: value.type };
  if (value.type === "json_schema") {
    const schema = isObject(value.json_schema) ? value.json_schema.schema : undefined;
    return { type: "json_schema", schema };
  }
  throw invalid(
    "response_format.type",
    `must be "text", "json_object" or "json_schema" (got ${describe(value.type)})`,
  );
}

interface Ids {
  completion(kind: string): string;
  toolCall(): string;
}

function usage(promptChars: number, completionChars: number) {
  const prompt_tokens = estimateTokens(promptChars);
  const completion_tokens = estimateTokens(completionChars);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function chatResult(
  sampling: Sampling,
  choice: ScriptChoice,
  promptChars: number,
  ids: Ids,
): HandlerResult {
  const id = ids.completion("chatcmpl");
  const created = Math.floor(Date.now() / 1000);
  const choices = Array.from({ length: sampling.n }, (_, index) => ({
    index,
    content: choice.content,
    toolCalls: choice.toolCalls.map((call) => ({
      id: ids.toolCall(),
      type: "function" as const,
      function: { name: call.name, arguments: call.arguments },
    })),
    finishReason: choice.finishReason,
  }));
  const perChoiceChars =
    (choice.content?.length ?? 0) +
    choice.toolCalls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0);
  const tokens = usage(promptChars, perChoiceChars * sampling.n);

  if (!sampling.stream) {
    return {
      kind: "json",
      body: {
        id,
        object: "chat.completion",
        created,
        model: sampling.model,
        choices: choices.map((c) => ({
          index: c.index,
          message: {
            role: "assistant",
            content: c.content,
            ...(c.toolCalls.length > 0 ? { tool_calls: c.toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: c.finishReason,
        })),
        usage: tokens,
      },
    };
  }

  // Chunks share everything but `choices`; the prefix is serialized once per stream.
  const head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(sampling.model)},"choices":`;
  const delta = (index: number, d: string, finish: string | null) =>
    `${head}[{"index":${index},"delta":${d},"logprobs":null,"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]}`;
  return {
    kind: "sse",
    produce: async (out: SseOut) => {
      for (const c of choices) {
        await out.send(delta(c.index, '{"role":"assistant","content":""}', null));
        if (c.content) {
          for (const token of tokenize(c.content)) {
            const waiting = out.send(delta(c.index, `{"content":${JSON.stringify(token)}}`, null));
            if (waiting) await waiting;
            if (out.closed) return;
          }
        }
        for (const [j, call] of c.toolCalls.entries()) {
          const first = {
            tool_calls: [
              {
                index: j,
                id: call.id,
                type: "function",
                function: { name: call.function.name, arguments: "" },
              },
            ],
          };
          await out.send(delta(c.index, JSON.stringify(first), null));
          for (const fragment of fragments(call.function.arguments)) {
            const d = { tool_calls: [{ index: j, function: { arguments: fragment } }] };
            const waiting = out.send(delta(c.index, JSON.stringify(d), null));
            if (waiting) await waiting;
            if (out.closed) return;
          }
        }
        await out.send(delta(c.index, "{}", c.finishReason));
        if (out.closed) return;
      }
      await out.send(`${head}[],"usage":${JSON.stringify(tokens)}}`);
      await out.done();
    },
  };
}

function textResult(
  sampling: Sampling,
  result: { text: string; finishReason: string },
  promptChars: number,
  ids: Ids,
): HandlerResult {
  const id = ids.completion("cmpl");
  const created = Math.floor(Date.now() / 1000);
  const tokens = usage(promptChars, result.text.length * sampling.n);
  if (!sampling.stream) {
    return {
      kind: "json",
      body: {
        id,
        object: "text_completion",
        created,
        model: sampling.model,
        choices: Array.from({ length: sampling.n }, (_, index) => ({
          index,
          text: result.text,
          logprobs: null,
          finish_reason: result.finishReason,
        })),
        usage: tokens,
      },
    };
  }
  const head = `{"id":${JSON.stringify(id)},"object":"text_completion","created":${created},"model":${JSON.stringify(sampling.model)},"choices":`;
  const chunk = (index: number, text: string, finish: string | null) =>
    `${head}[{"index":${index},"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]}`;
  return {
    kind: "sse",
    produce: async (out: SseOut) => {
      for (let index = 0; index < sampling.n; index++) {
        for (const token of tokenize(result.text)) {
          const waiting = out.send(chunk(index, token, null));
          if (waiting) await waiting;
          if (out.closed) return;
        }
        await out.send(chunk(index, "", result.finishReason));
        if (out.closed) return;
      }
      await out.send(`${head}[],"usage":${JSON.stringify(tokens)}}`);
      await out.done();
    },
  };
}

/** Tool-call arguments in small pieces, split on code points so no character is cut in two. */
function fragments(text: string): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += TOOL_ARGUMENT_FRAGMENT) {
    out.push(chars.slice(i, i + TOOL_ARGUMENT_FRAGMENT).join(""));
  }
  return out;
}
