/**
 * Chat and text completions (spec calls 2 and 3): a scripted reply, else the scripted model's
 * answer, as a JSON body or as server-sent events in the notes' chunk layout; or forwarding to
 * an upstream.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Model } from "../api-types";
import {
  checkContextLength,
  readChatInput,
  readSampling,
  type Sampling,
} from "./completion-request";
import { invalid } from "./http-error";
import { nextCompletionId, nextToolCallId } from "./process-ids";
import type { Rng } from "./rng";
import type { HandlerResult, Route, SseOut } from "./router";
import {
  replyChoice,
  replyHttpError,
  replyStreamError,
  replyText,
  type ScriptBook,
  type ScriptedReplyFields,
  type ScriptedRequest,
} from "./script";
import {
  estimateTokens,
  type ScriptChoice,
  scriptChat,
  scriptText,
  tokenize,
} from "./scripted-model";
import type { Upstream } from "./upstream";
import { describe, type Json, requireBodyObject } from "./validate";

const TOOL_ARGUMENT_FRAGMENT = 8;

export interface CompletionDeps {
  models: () => readonly Model[];
  rng: Rng;
  upstream: Upstream | undefined;
  scripts: ScriptBook;
  strictToolMessages: boolean;
}

export function completionRoutes(deps: CompletionDeps, prefix: string): Route[] {
  const ids = {
    completion: (kind: string) => nextCompletionId(kind, deps.rng),
    toolCall: nextToolCallId,
  };
  return [
    {
      method: "POST",
      path: `${prefix}/chat/completions`,
      auth: "inference",
      handler: async (ctx) => {
        if (deps.upstream) return deps.upstream.forward("/chat/completions", ctx.raw);
        const body = requireBodyObject(ctx.body);
        const sampling = readSampling(body, deps.models());
        const input = readChatInput(body, sampling, deps.strictToolMessages);
        const promptChars = input.messages.reduce((sum, m) => sum + m.text.length, 0);
        checkContextLength(sampling, estimateTokens(promptChars), "messages");
        const reply = await scriptedReply(deps, sampling, body, ctx.scope);
        if (!reply) return chatResult(sampling, scriptChat(input), promptChars, ids);
        const failure = streamFailure(reply, sampling);
        return chatResult(sampling, replyChoice(reply, input), promptChars, ids, failure);
      },
    },
    {
      method: "POST",
      path: `${prefix}/text/completions`,
      auth: "inference",
      handler: async (ctx) => {
        // OpenAI-compatible servers serve text completions at `/completions`.
        if (deps.upstream) return deps.upstream.forward("/completions", ctx.raw);
        const body = requireBodyObject(ctx.body);
        const sampling = readSampling(body, deps.models());
        const prompt = body.prompt;
        if (prompt === undefined || prompt === null)
          throw invalid("prompt", "is required", "missing_field");
        if (typeof prompt !== "string")
          throw invalid("prompt", `must be a string (got ${describe(prompt)})`);
        checkContextLength(sampling, estimateTokens(prompt.length), "prompt");
        const reply = await scriptedReply(deps, sampling, body, ctx.scope);
        if (!reply) {
          const result = scriptText({
            prompt,
            maxTokens: sampling.maxTokens,
            stop: sampling.stop,
            echo: sampling.echo,
          });
          return textResult(sampling, result, prompt.length, ids);
        }
        const failure = streamFailure(reply, sampling);
        return textResult(sampling, replyText(reply), prompt.length, ids, failure);
      },
    },
  ];
}

/**
 * The model's next scripted reply, after its delay, for a request already found valid (a real
 * server refuses those before generating anything). Errors not sent inside a stream are thrown.
 */
async function scriptedReply(
  deps: CompletionDeps,
  sampling: Sampling,
  body: Json,
  scope: string | undefined,
): Promise<ScriptedReplyFields | undefined> {
  const reply = deps.scripts.take(sampling.model, body as ScriptedRequest, scope);
  if (!reply) return undefined;
  if (reply.delayMs) await sleep(reply.delayMs, undefined, { ref: false });
  if (reply.error && !(reply.error.inStream && sampling.stream)) throw replyHttpError(reply.error);
  return reply;
}

/** The serialized error event a streamed reply ends with, when it fails mid-stream. */
function streamFailure(reply: ScriptedReplyFields, sampling: Sampling): string | undefined {
  return reply.error && sampling.stream ? JSON.stringify(replyStreamError(reply.error)) : undefined;
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

/** `failure`: an error event that ends the stream after the first choice's text. */
function chatResult(
  sampling: Sampling,
  choice: ScriptChoice,
  promptChars: number,
  ids: Ids,
  failure?: string,
): HandlerResult {
  const id = ids.completion("chatcmpl");
  const created = Math.floor(Date.now() / 1000);
  const choices = Array.from({ length: sampling.n }, (_, index) => ({
    index,
    content: choice.content,
    refusal: choice.refusal,
    toolCalls: choice.toolCalls.map((call) => ({
      id: call.id ?? ids.toolCall(),
      type: "function" as const,
      function: { name: call.name, arguments: call.arguments },
    })),
    finishReason: choice.finishReason,
  }));
  const perChoiceChars =
    (choice.content?.length ?? 0) +
    (choice.refusal?.length ?? 0) +
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
            ...(c.refusal === undefined ? {} : { refusal: c.refusal }),
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
  const head =
    `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},` +
    `"model":${JSON.stringify(sampling.model)},"choices":`;
  const delta = (index: number, d: string, finish: string | null) =>
    `${head}[{"index":${index},"delta":${d},"logprobs":null,` +
    `"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]}`;
  return {
    kind: "sse",
    produce: async (out: SseOut) => {
      for (const c of choices) {
        if (c.refusal !== undefined) {
          // As OpenAI streams a refusal: null content, then the text in `delta.refusal` slices.
          await out.send(delta(c.index, '{"role":"assistant","content":null,"refusal":""}', null));
          for (const token of tokenize(c.refusal)) {
            const waiting = out.send(delta(c.index, `{"refusal":${JSON.stringify(token)}}`, null));
            if (waiting) await waiting;
            if (out.closed) return;
          }
        } else {
          await out.send(delta(c.index, '{"role":"assistant","content":""}', null));
        }
        if (c.content) {
          for (const token of tokenize(c.content)) {
            const waiting = out.send(delta(c.index, `{"content":${JSON.stringify(token)}}`, null));
            if (waiting) await waiting;
            if (out.closed) return;
          }
        }
        if (failure !== undefined) return fail(out, failure);
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
      if (sampling.includeUsage) await out.send(`${head}[],"usage":${JSON.stringify(tokens)}}`);
      await out.done();
    },
  };
}

function textResult(
  sampling: Sampling,
  result: { text: string; finishReason: string },
  promptChars: number,
  ids: Ids,
  failure?: string,
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
  const head =
    `{"id":${JSON.stringify(id)},"object":"text_completion","created":${created},` +
    `"model":${JSON.stringify(sampling.model)},"choices":`;
  const chunk = (index: number, text: string, finish: string | null) =>
    `${head}[{"index":${index},"text":${JSON.stringify(text)},"logprobs":null,` +
    `"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]}`;
  return {
    kind: "sse",
    produce: async (out: SseOut) => {
      for (let index = 0; index < sampling.n; index++) {
        for (const token of tokenize(result.text)) {
          const waiting = out.send(chunk(index, token, null));
          if (waiting) await waiting;
          if (out.closed) return;
        }
        if (failure !== undefined) return fail(out, failure);
        await out.send(chunk(index, "", result.finishReason));
        if (out.closed) return;
      }
      if (sampling.includeUsage) await out.send(`${head}[],"usage":${JSON.stringify(tokens)}}`);
      await out.done();
    },
  };
}

/** Ends a stream with an error event, then `[DONE]`, as servers of this family fail mid-stream. */
async function fail(out: SseOut, failure: string): Promise<void> {
  await out.send(failure);
  await out.done();
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
