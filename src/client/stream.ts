/**
 * The last stream stage: JSON payloads -> normalised chunks (normalise.ts' schemas, plus the one
 * normalisation that needs the stream's history: tool-call indexes), and the rules that say when
 * a stream is a whole answer.
 */
import type { ChatCompletionChunk, TextCompletionChunk, ToolCallDelta } from "../api-types";
import { StudioStreamError } from "../errors";
import {
  ChatCompletionChunkSchema,
  type ParsedChatCompletionChunk,
  type ParsedToolCallDelta,
  TextCompletionChunkSchema,
} from "./normalise";
import { formatIssue } from "./validate-response";

interface ChoiceLike {
  index: number;
  finish_reason?: string | null | undefined;
}

/**
 * Which choices a stream showed and which of them finished, and whether that makes a whole
 * answer:
 * - a stream that ended with `[DONE]` must have shown at least one choice (`[DONE]` alone
 *   answers nothing);
 * - a stream that ended without `[DONE]` must have finished (`finish_reason`) every choice it
 *   showed, else the connection was cut mid-answer;
 * - a request for `n` choices must get `n` of them.
 */
export class ChoiceTracker {
  readonly #seen = new Set<number>();
  readonly #finished = new Set<number>();

  observe(choices: readonly ChoiceLike[]): void {
    for (const choice of choices) {
      this.#seen.add(choice.index);
      if (choice.finish_reason) this.#finished.add(choice.index);
    }
  }

  /** Why the stream is not a whole answer, or undefined when it is. */
  incomplete(sawDone: boolean, expected: number): string | undefined {
    if (this.#seen.size === 0) {
      return sawDone
        ? "the stream ended ([DONE]) before any choice arrived: no answer"
        : "the stream ended before [DONE] and before any choice arrived";
    }
    if (!sawDone) {
      const open = [...this.#seen].filter((index) => !this.#finished.has(index));
      if (open.length > 0) {
        const list = open.sort((a, b) => a - b).join(", ");
        return (
          `the stream ended before [DONE] while choice ${list} had no finish_reason ` +
          "(connection cut?)"
        );
      }
    }
    if (this.#seen.size < expected) {
      const got = [...this.#seen].sort((a, b) => a - b).join(", ");
      return (
        `the request asked for ${expected} choices (n) but the stream ended with ` +
        `${this.#seen.size} (index ${got}); the answer is incomplete`
      );
    }
    return undefined;
  }
}

/**
 * Gives every tool-call fragment of one choice a stable `index`. Servers that send `index` are
 * taken at their word. For those that do not (Mistral streams each call whole, without `index`
 * or `type`): a fragment with a new `id` starts a new call, a known `id` continues its call, and
 * a fragment without an id continues the last call, unless it is a second entry of the same delta
 * or names a function when the last call already has a name: then it is a new call.
 */
export class ToolCallIndexes {
  readonly #byId = new Map<string, number>();
  readonly #named = new Set<number>();
  #last = -1;
  #next = 0;

  assign(calls: readonly ParsedToolCallDelta[]): ToolCallDelta[] {
    const usedHere = new Set<number>();
    return calls.map((call) => {
      let index = call.index;
      if (index === undefined) {
        const known = call.id === undefined ? undefined : this.#byId.get(call.id);
        if (known !== undefined) index = known;
        else if (
          call.id !== undefined ||
          this.#last === -1 ||
          usedHere.has(this.#last) ||
          (call.function.name !== undefined && this.#named.has(this.#last))
        ) {
          index = this.#next;
        } else {
          index = this.#last;
        }
      }
      if (call.id !== undefined && !this.#byId.has(call.id)) this.#byId.set(call.id, index);
      if (call.function.name !== undefined) this.#named.add(index);
      this.#last = index;
      this.#next = Math.max(this.#next, index + 1);
      usedHere.add(index);
      return { ...call, index } as ToolCallDelta;
    });
  }
}

/**
 * Whether a chunk carries part of the answer: text, reasoning, a refusal, a tool call, a finish
 * reason or usage. The chunks before the first such one (a role, empty text) can be dropped with a
 * failed attempt and nothing is lost.
 */
export function carriesToken(chunk: {
  choices: readonly {
    finish_reason?: string | null | undefined;
    text?: string | undefined;
    delta?: {
      content?: string | null;
      reasoning_content?: string;
      refusal?: unknown;
      tool_calls?: unknown[];
    };
  }[];
  usage?: unknown;
}): boolean {
  if (chunk.usage != null) return true;
  return chunk.choices.some(
    (choice) =>
      !!choice.finish_reason ||
      !!choice.text ||
      !!choice.delta?.content ||
      !!choice.delta?.reasoning_content ||
      !!choice.delta?.refusal ||
      (choice.delta?.tool_calls?.length ?? 0) > 0,
  );
}

/** Payload -> chunk for one stream; holds the state that normalising a stream needs. */
export interface ChunkReader<T extends { choices: readonly ChoiceLike[] }> {
  read(payload: unknown): T;
}

function parseChunk<T>(
  schema: {
    safeParse(
      value: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: unknown[] } };
  },
  payload: unknown,
  path: string,
): T {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  throw new StudioStreamError(
    path,
    `a chunk does not have the expected shape: ${formatIssue(result.error.issues[0] as never)}`,
  );
}

export function chatChunkReader(path: string): ChunkReader<ChatCompletionChunk> {
  const byChoice = new Map<number, ToolCallIndexes>();
  return {
    read(payload) {
      const chunk: ParsedChatCompletionChunk = parseChunk(ChatCompletionChunkSchema, payload, path);
      for (const choice of chunk.choices) {
        const calls = choice.delta.tool_calls;
        if (!calls) continue;
        let indexes = byChoice.get(choice.index);
        if (!indexes) {
          indexes = new ToolCallIndexes();
          byChoice.set(choice.index, indexes);
        }
        choice.delta.tool_calls = indexes.assign(calls);
      }
      return chunk as ChatCompletionChunk;
    },
  };
}

export function textChunkReader(path: string): ChunkReader<TextCompletionChunk> {
  return { read: (payload) => parseChunk(TextCompletionChunkSchema, payload, path) };
}
