/**
 * Keeping each `addMessages` call's messages together. The service appends one message per call,
 * so when two processes write a turn each to one session at the same moment, the thread can hold
 * them interleaved (Q1 Q2 A1 A2); no call of the service appends several messages at once. So the
 * messages of one call get client ids `<call id>.<n>`, and reads put the messages of one call
 * together where the first of them stands (Q1 A1 Q2 A2). Within a call the thread's order is the
 * call's order (each message is confirmed before the next is sent). Messages written by other
 * tools, without such an id, stay where they are.
 */
import type { ThreadMessage } from "../api-types";
import { threadMessageClientId } from "../converters/thread-messages";

const SEPARATOR = ".";

/** Client ids for the `count` messages of one call. */
export function callClientIds(count: number): string[] {
  const call = crypto.randomUUID();
  return Array.from({ length: count }, (_, n) => `${call}${SEPARATOR}${n}`);
}

function callOf(message: ThreadMessage): string | undefined {
  const id = threadMessageClientId(message);
  const end = id?.lastIndexOf(SEPARATOR) ?? -1;
  return end > 0 ? id!.slice(0, end) : undefined;
}

/**
 * `messages` with each call's messages moved up next to the first of them, order kept otherwise.
 */
export function keepCallsTogether(messages: readonly ThreadMessage[]): ThreadMessage[] {
  const groups = new Map<string | ThreadMessage, ThreadMessage[]>();
  for (const message of messages) {
    const group = callOf(message) ?? message;
    const members = groups.get(group);
    if (members) members.push(message);
    else groups.set(group, [message]);
  }
  return [...groups.values()].flat();
}
