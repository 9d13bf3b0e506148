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

/**
 * Where a `maxMessages` window starts, so that it never splits a tool exchange: OpenAI-style
 * servers refuse a conversation whose tool result comes without the assistant message that called
 * the tool. As LangChain's `trimMessages({ strategy: "last", startOn: "human" })` does, the window
 * is the newest messages cut at its first human message: the messages before it are left out, so
 * the window may be shorter than `maxMessages`, never longer (its cost stays one read). Where
 * `trimMessages` would then return nothing (no human message among the newest, as in a long run
 * of tool calls), the window starts at its first message that is not a tool result instead: an
 * assistant message whose calls are answered after it, inside the window.
 */
export function windowStart(types: readonly string[]): number {
  const human = types.indexOf("human");
  if (human !== -1) return human;
  const notTool = types.findIndex((type) => type !== "tool");
  return notTool === -1 ? types.length : notTool;
}

/**
 * `messages` (the newest of a thread, oldest first) as a window that starts as `windowStart` says.
 */
export function toolSafeWindow<M extends { getType(): string }>(messages: readonly M[]): M[] {
  return messages.slice(windowStart(messages.map((message) => message.getType())));
}
