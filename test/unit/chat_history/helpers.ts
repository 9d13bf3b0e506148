/**
 * Test helpers shared by the codec and history unit tests: what a server of this family stores
 * for a written message, and the observable fields of a LangChain message.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { ThreadMessage, ThreadMessageInput } from "../../../src/api-types";

export interface StoreOptions {
  id?: string;
  threadId?: string;
  /** Send text items back as `{ value }` objects, as some services of this family do. */
  valueForm?: boolean;
}

/** The message a server returns after storing `input` (through JSON, like the wire). */
export function storeLikeServer(
  input: ThreadMessageInput,
  options: StoreOptions = {},
): ThreadMessage {
  const wire = JSON.parse(JSON.stringify(input)) as ThreadMessageInput;
  const items =
    typeof wire.content === "string"
      ? [{ type: "text" as const, text: wire.content }]
      : wire.content;
  return {
    id: options.id ?? "msg_1",
    object: "thread.message",
    createdAt: 1_700_000_000,
    threadId: options.threadId ?? "thread_1",
    role: wire.role,
    content: items.map((item): ThreadMessage["content"][number] =>
      options.valueForm && typeof item.text === "string"
        ? { ...item, text: { value: item.text } }
        : { ...item },
    ),
    metadata: wire.metadata ?? {},
  };
}

/** Every field a LangChain message exposes, for equality checks that ignore `lc_kwargs`. */
export function view(message: BaseMessage): Record<string, unknown> {
  const m = message as unknown as Record<string, unknown>;
  const fields = [
    "content",
    "id",
    "name",
    "additional_kwargs",
    "response_metadata",
    "tool_calls",
    "invalid_tool_calls",
    "usage_metadata",
    "tool_call_id",
    "status",
    "artifact",
    "metadata",
    "role",
  ];
  const out: Record<string, unknown> = { type: message.getType() };
  for (const field of fields) if (m[field] !== undefined) out[field] = m[field];
  return out;
}
