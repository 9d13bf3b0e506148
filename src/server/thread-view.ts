/**
 * A chat thread as the UI lists it (the SDK's `Thread`), and the pure rules around it: the title
 * from the first user message, the preview from the last message, the status from the graph's
 * state, and search (metadata filter, sort, page) over the owner's threads.
 */

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

/** What the service keeps of a thread besides its checkpoints (one snapshot message). */
export interface ThreadView {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  /** The checkpointed values are not copied here: `GET /threads/:id/state` reads them. */
  values: Record<string, unknown>;
  interrupts: Record<string, unknown[]>;
  title: string | null;
  preview: string | null;
  /**
   * The id the client chose for the thread (`POST /threads` with `thread_id`, protocol v2): the
   * API shows it as `thread_id`; `thread_id` here stays the service thread's id.
   */
  client_thread_id?: string | undefined;
}

export const PREVIEW_CHARS = 160;
export const TITLE_CHARS = 80;

export interface MessageLike {
  type: string;
  text: string;
}

/** A message of the graph's state, read tolerantly (a LangChain message or its dict). */
export function readMessage(value: unknown): MessageLike | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown> & {
    _getType?: () => string;
    getType?: () => string;
  };
  const type =
    typeof record.getType === "function"
      ? record.getType()
      : typeof record._getType === "function"
        ? record._getType()
        : typeof record.type === "string"
          ? record.type
          : typeof record.role === "string"
            ? record.role
            : "unknown";
  return { type: normaliseType(type), text: contentText(record.content) };
}

function normaliseType(type: string): string {
  if (type === "user" || type === "HumanMessageChunk") return "human";
  if (type === "assistant" || type === "AIMessageChunk") return "ai";
  return type;
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "string"
          ? part
          : typeof part === "object" && part !== null && typeof part.text === "string"
            ? part.text
            : "",
      )
      .join("");
  }
  return "";
}

function clip(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= chars ? flat : `${flat.slice(0, chars - 1)}…`;
}

/** The thread's messages in its state values, if it keeps them under `messages`. */
export function stateMessages(values: unknown): MessageLike[] {
  const list = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list)) return [];
  return list.map(readMessage).filter((m): m is MessageLike => m !== undefined);
}

export function titleFrom(messages: readonly MessageLike[]): string | null {
  const first = messages.find((m) => m.type === "human" && m.text.trim() !== "");
  return first ? clip(first.text, TITLE_CHARS) : null;
}

export function previewFrom(messages: readonly MessageLike[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = messages[i]?.text ?? "";
    if (text.trim() !== "") return clip(text, PREVIEW_CHARS);
  }
  return null;
}

/** The graph state's pending interrupts by task id (empty when the thread is not paused). */
export function interruptsOf(
  tasks: readonly { id: string; interrupts?: unknown[] }[],
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const task of tasks) {
    if (task.interrupts && task.interrupts.length > 0) out[task.id] = task.interrupts;
  }
  return out;
}

/**
 * The thread after a run: status from its interrupts (or the run's error), the title kept once
 * set (by the caller's metadata or the first run), the preview and `updated_at` refreshed.
 */
export function afterRun(
  view: ThreadView,
  state: { values: unknown; tasks: readonly { id: string; interrupts?: unknown[] }[] },
  outcome: "success" | "error" | "interrupted",
  now: Date,
): ThreadView {
  const messages = stateMessages(state.values);
  const interrupts = interruptsOf(state.tasks);
  const pending = Object.keys(interrupts).length > 0;
  return {
    ...view,
    updated_at: now.toISOString(),
    status: outcome === "error" ? "error" : pending ? "interrupted" : "idle",
    interrupts,
    title: titleOf(view) ?? titleFrom(messages),
    preview: previewFrom(messages) ?? view.preview,
  };
}

/**
 * The view without the conversation's words (the title taken from the first message, the
 * preview), for a server whose users' data is encrypted (`keyRing`): the thread list is stored in
 * plaintext. A title the caller set in metadata is kept (metadata is stored as given).
 */
export function withoutConversationText(view: ThreadView): ThreadView {
  const set = view.metadata.title;
  return { ...view, title: typeof set === "string" && set !== "" ? set : null, preview: null };
}

/** A title the caller set in metadata wins over the one taken from the first message. */
export function titleOf(view: ThreadView): string | null {
  const set = view.metadata.title;
  return typeof set === "string" && set !== "" ? set : view.title;
}

export interface SearchQuery {
  metadata?: Record<string, unknown> | undefined;
  status?: string | undefined;
  limit: number;
  offset: number;
  sortBy: "thread_id" | "status" | "created_at" | "updated_at";
  sortOrder: "asc" | "desc";
}

/** Whether `actual` holds every key of `filter` with an equal value (JSON equality). */
export function matchesMetadata(
  actual: Record<string, unknown>,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(
    ([key, value]) => JSON.stringify(actual[key]) === JSON.stringify(value),
  );
}

/** One page of the matching threads, and how many matched in all. */
export function searchThreads(
  threads: readonly ThreadView[],
  query: SearchQuery,
): { page: ThreadView[]; total: number } {
  const matching = threads.filter(
    (t) =>
      matchesMetadata(t.metadata, query.metadata) &&
      (query.status === undefined || t.status === query.status),
  );
  const sign = query.sortOrder === "asc" ? 1 : -1;
  const key = query.sortBy;
  matching.sort((a, b) => {
    const x = String(a[key]);
    const y = String(b[key]);
    if (x !== y) return x < y ? -sign : sign;
    return a.thread_id < b.thread_id ? -sign : a.thread_id > b.thread_id ? sign : 0;
  });
  return { page: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
}
