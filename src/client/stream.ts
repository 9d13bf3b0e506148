/**
 * The last stream stage: JSON payloads -> validated chunks, and the rule that a stream which stops
 * early is an error rather than a shorter answer.
 */
import type { z } from "zod/v4";
import { StudioStreamError } from "../errors";
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

/** payload -> chunk, or `StudioStreamError` naming the first field that does not fit. */
export function validateChunk<T>(schema: z.ZodType<T>, payload: unknown, path: string): T {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  throw new StudioStreamError(
    path,
    `a chunk does not have the expected shape: ${formatIssue(result.error.issues[0])}`,
  );
}
