/**
 * What `getMessages()` returns of what it read: pure, tested without I/O (test/unit/chat_history).
 */
import type { ThreadMessage } from "../api-types";
import { threadMessageClientId } from "../converters/thread-messages";

/** Drops the messages whose client id was already seen (a duplicate that landed late). */
export function firstOfEachClientId(messages: readonly ThreadMessage[]): ThreadMessage[] {
  const seen = new Set<string>();
  return messages.filter((message) => {
    const id = threadMessageClientId(message);
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * Collects the newest `count` distinct messages from `newestFirst` (a thread read from its newest
 * end), and says when to stop reading. A client id seen twice keeps its newest copy: the oldest of
 * a duplicate pair is what the full read keeps, and both hold the same message.
 */
export class NewestMessages {
  readonly #count: number;
  readonly #seen = new Set<string>();
  readonly #newestFirst: ThreadMessage[] = [];

  constructor(count: number) {
    this.#count = count;
  }

  /** Takes the next older message; false once `count` messages are held. */
  add(message: ThreadMessage): boolean {
    const id = threadMessageClientId(message);
    if (id !== undefined) {
      if (this.#seen.has(id)) return true;
      this.#seen.add(id);
    }
    this.#newestFirst.push(message);
    return this.#newestFirst.length < this.#count;
  }

  /** The messages held, oldest first. */
  oldestFirst(): ThreadMessage[] {
    return [...this.#newestFirst].reverse();
  }
}
