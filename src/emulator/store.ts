/**
 * The emulator's state: threads, their messages and assistants, in memory. Every mutation is
 * synchronous, so concurrent requests are applied one at a time in arrival order and none is lost;
 * `onChange` tells persistence that a save is due.
 */
import { z } from "zod/v4";
import { AssistantSchema, ThreadMessageSchema, ThreadSchema } from "../api-types";
import { Collection, makeId, SEQ_WIDTH } from "./collection";
import type { Rng } from "./rng";

export interface ContentItemRecord {
  type: string;
  text?: string;
  imageFile?: { fileId: string; detail?: string };
  imageUrl?: { url: string; detail?: string };
}

export interface MessageRecord {
  id: string;
  object: "thread.message";
  createdAt: string;
  threadId: string;
  /** `system` is what other tools of the service family write; the package writes user/assistant. */
  role: "user" | "assistant" | "system";
  content: ContentItemRecord[];
  attachments: unknown[];
  assistantId: string | null;
  runId: string | null;
  metadata: Record<string, string>;
}

export interface ThreadRecord {
  id: string;
  object: "thread";
  createdAt: string;
  metadata: Record<string, string>;
  title: string | null;
  toolResources: Record<string, unknown>;
  datasetId?: string;
}

export interface AssistantRecord {
  id: string;
  object: "assistant";
  assistantName: string;
  modelName: string;
  modelId: string;
  description: string;
  instructions: string;
  functionModel: Record<string, unknown>;
  responseModel: Record<string, unknown>;
  tools: unknown[];
  metadata: Record<string, string>;
  userFilters: Record<string, string>;
  createdAt: string;
}

export type NewMessage = Omit<MessageRecord, "id" | "object" | "createdAt" | "threadId">;
export type NewThread = Omit<ThreadRecord, "id" | "object" | "createdAt">;
export type NewAssistant = Omit<AssistantRecord, "id" | "object" | "createdAt">;

const ID_RANDOM_CHARS = 12;
export const DATA_FORMAT = "langchain-studio-emulator";
export const DATA_VERSION = 1;

/** Layout of the data file; the wire schemas check the resources themselves. */
export const SnapshotSchema = z.object({
  format: z.literal(DATA_FORMAT),
  version: z.literal(DATA_VERSION),
  seq: z.number().int().nonnegative(),
  // The wire schemas use zod's mini API (no methods), so they are extended by spreading shapes.
  threads: z.array(z.looseObject({ ...ThreadSchema.shape, id: z.string().startsWith("thread_") })),
  messages: z.array(z.looseObject({ ...ThreadMessageSchema.shape, threadId: z.string() })),
  assistants: z.array(
    z.looseObject({ ...AssistantSchema.shape, id: z.string().startsWith("asst_") }),
  ),
});
/** What is saved: the records themselves (the schema above only checks what is loaded). */
export interface Snapshot {
  format: typeof DATA_FORMAT;
  version: typeof DATA_VERSION;
  seq: number;
  threads: ThreadRecord[];
  messages: MessageRecord[];
  assistants: AssistantRecord[];
}

export class Store {
  readonly threads = new Collection<ThreadRecord>("thread");
  readonly assistants = new Collection<AssistantRecord>("asst");
  private readonly messagesByThread = new Map<string, Collection<MessageRecord>>();
  private seq = 0;

  constructor(
    private readonly rng: Rng,
    private readonly onChange: () => void = () => {},
  ) {}

  private nextId(prefix: string): string {
    this.seq += 1;
    return makeId(prefix, this.seq, this.rng.token(ID_RANDOM_CHARS));
  }

  createThread(thread: NewThread, messages: NewMessage[]): ThreadRecord {
    const record: ThreadRecord = {
      id: this.nextId("thread"),
      object: "thread",
      createdAt: new Date().toISOString(),
      ...thread,
    };
    this.threads.add(record);
    const collection = new Collection<MessageRecord>("msg");
    this.messagesByThread.set(record.id, collection);
    for (const message of messages) collection.add(this.messageRecord(record.id, message));
    this.onChange();
    return record;
  }

  deleteThread(threadId: string): boolean {
    const removed = this.threads.remove(threadId);
    this.messagesByThread.delete(threadId);
    if (removed) this.onChange();
    return removed !== undefined;
  }

  /** Messages of a thread, or undefined when the thread does not exist. */
  messages(threadId: string): Collection<MessageRecord> | undefined {
    return this.messagesByThread.get(threadId);
  }

  addMessage(threadId: string, message: NewMessage): MessageRecord | undefined {
    const collection = this.messagesByThread.get(threadId);
    if (!collection) return undefined;
    const record = this.messageRecord(threadId, message);
    collection.add(record);
    this.onChange();
    return record;
  }

  deleteMessage(threadId: string, messageId: string): boolean {
    const removed = this.messagesByThread.get(threadId)?.remove(messageId);
    if (removed) this.onChange();
    return removed !== undefined;
  }

  createAssistant(assistant: NewAssistant): AssistantRecord {
    const record: AssistantRecord = {
      id: this.nextId("asst"),
      object: "assistant",
      ...assistant,
      createdAt: new Date().toISOString(),
    };
    this.assistants.add(record);
    this.onChange();
    return record;
  }

  clear(): void {
    this.threads.clear();
    this.assistants.clear();
    this.messagesByThread.clear();
    this.seq = 0;
    this.onChange();
  }

  snapshot(): Snapshot {
    const messages: MessageRecord[] = [];
    for (const thread of this.threads.all()) {
      const collection = this.messagesByThread.get(thread.id);
      if (collection) messages.push(...collection.all());
    }
    return {
      format: DATA_FORMAT,
      version: DATA_VERSION,
      seq: this.seq,
      threads: [...this.threads.all()],
      messages,
      assistants: [...this.assistants.all()],
    };
  }

  /** Replaces the state with a checked snapshot (used once, at start). */
  restore(snapshot: Snapshot): void {
    this.threads.clear();
    this.assistants.clear();
    this.messagesByThread.clear();
    this.seq = snapshot.seq;
    for (const thread of snapshot.threads) {
      this.threads.add(thread);
      this.messagesByThread.set(thread.id, new Collection<MessageRecord>("msg"));
    }
    for (const message of snapshot.messages) {
      this.messagesByThread.get(message.threadId)?.add(message);
    }
    for (const assistant of snapshot.assistants) {
      this.assistants.add(assistant);
    }
    // A hand-edited file may carry a stale counter; new ids must still sort after the old ones.
    for (const id of [...snapshot.threads, ...snapshot.messages, ...snapshot.assistants].map(
      (r) => r.id,
    )) {
      this.seq = Math.max(this.seq, seqOf(id));
    }
  }

  private messageRecord(threadId: string, message: NewMessage): MessageRecord {
    return {
      id: this.nextId("msg"),
      object: "thread.message",
      createdAt: new Date().toISOString(),
      threadId,
      ...message,
    };
  }
}

function seqOf(id: string): number {
  const digits = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + SEQ_WIDTH);
  const seq = Number.parseInt(digits, 36);
  return Number.isFinite(seq) ? seq : 0;
}
