/**
 * The last stream stage: JSON payloads -> validated chunks, and the rule that a stream which stops
 * early is an error rather than a shorter answer.
 */
import type { z } from "zod/v4";
import {
  type ChatCompletionChunk,
  ChatCompletionChunkSchema,
  type TextCompletionChunk,
  TextCompletionChunkSchema,
} from "../api-types";
import { StudioStreamError } from "../errors";
import { isChatCompletionChunk, isTextCompletionChunk } from "./shape-checks";
import { DONE, parsePayload, SKIP, type SSEEvent } from "./sse";
import { formatIssue } from "./validate-response";

interface ChoiceLike {
  index: number;
  finish_reason?: string | null | undefined;
}

/**
 * Tracks which choices are still open. A stream that ends without `[DONE]` is accepted only when
 * every choice it showed has a finish_reason: otherwise the connection was cut mid-answer.
 */
export class ChoiceTracker {
  readonly #open = new Set<number>();
  readonly #finished = new Set<number>();
  #seen = false;

  observe(choices: readonly ChoiceLike[]): void {
    for (const choice of choices) {
      this.#seen = true;
      if (choice.finish_reason) {
        this.#finished.add(choice.index);
        this.#open.delete(choice.index);
      } else if (!this.#finished.has(choice.index)) {
        this.#open.add(choice.index);
      }
    }
  }

  /** True when at least one choice was seen and all of them finished. */
  get complete(): boolean {
    return this.#seen && this.#open.size === 0;
  }

  /** Why the stream counts as cut, for the error message. */
  describeCut(): string {
    if (!this.#seen) return "the stream ended before [DONE] and before any choice arrived";
    const open = [...this.#open].sort((a, b) => a - b).join(", ");
    return `the stream ended before [DONE] while choice ${open} had no finish_reason (connection cut?)`;
  }
}

/**
 * How one kind of chunk is validated: its zod schema, and a cheap check proven to accept only
 * what the schema accepts and returns unchanged (shape-checks.ts). The check runs on every token,
 * so zod is left for what it does not accept: it decides, and words the error.
 */
export interface ChunkValidator<T> {
  readonly schema: z.ZodType<T>;
  readonly check: (value: unknown) => value is T;
}

export const CHAT_CHUNK: ChunkValidator<ChatCompletionChunk> = Object.freeze({
  schema: ChatCompletionChunkSchema,
  check: isChatCompletionChunk,
});

export const TEXT_CHUNK: ChunkValidator<TextCompletionChunk> = Object.freeze({
  schema: TextCompletionChunkSchema,
  check: isTextCompletionChunk,
});

/** payload -> chunk, or `StudioStreamError` naming the first field that does not fit. */
export function validateChunk<T>(validator: ChunkValidator<T>, payload: unknown, path: string): T {
  if (validator.check(payload)) return payload;
  const result = validator.schema.safeParse(payload);
  if (result.success) return result.data;
  throw new StudioStreamError(
    path,
    `a chunk does not have the expected shape: ${formatIssue(result.error.issues[0])}`,
  );
}

/**
 * The events of one read -> validated chunks, appended to `batch` (so that when an event throws,
 * the chunks before it are still there to hand out). Returns true at `[DONE]`; events after it
 * are not looked at, the stream being over.
 */
export function collectChunks<T extends { choices: readonly ChoiceLike[] }>(
  events: readonly SSEEvent[],
  validator: ChunkValidator<T>,
  tracker: ChoiceTracker,
  path: string,
  batch: T[],
): boolean {
  for (let i = 0; i < events.length; i++) {
    const payload = parsePayload(events[i]!, path);
    if (payload === DONE) return true;
    if (payload === SKIP) continue;
    const chunk = validateChunk(validator, payload, path);
    tracker.observe(chunk.choices);
    batch.push(chunk);
  }
  return false;
}
