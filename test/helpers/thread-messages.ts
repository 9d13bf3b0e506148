/**
 * What a server of this family stores for a written thread message, and the observable fields of
 * a LangChain message: shared by the codec, history and property tests.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { ThreadMessage, ThreadMessageInput } from "../../src/api-types";

export interface StoreOptions {
  id?: string;
  threadId?: string;
  /** Send text items back as `{ value }` objects, as some services of this family do. */
  valueForm?: boolean;
  /** Keep strings as UTF-8, as a database would: a lone surrogate does not survive. */
  utf8?: boolean;
}

/** The message a server returns after storing `input` (through JSON, like the wire). */
export function storeLikeServer(
  input: ThreadMessageInput,
  options: StoreOptions = {},
): ThreadMessage {
  const keep = options.utf8
    ? (text: string) => Buffer.from(text, "utf8").toString("utf8")
    : (text: string) => text;
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
    content: items.map((item): ThreadMessage["content"][number] => {
      if (typeof item.text !== "string") return { ...item };
      const text = keep(item.text);
      return { ...item, text: options.valueForm ? { value: text } : text };
    }),
    metadata: Object.fromEntries(
      Object.entries(wire.metadata ?? {}).map(([key, value]) => [key, keep(value)]),
    ),
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
