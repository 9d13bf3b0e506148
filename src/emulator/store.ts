/**
 * The emulator's state: threads, their messages and assistants, in memory. Every mutation is one
 * synchronous `Change`: it is first handed to the journal (the data file's log, when there is
 * one), then applied, so concurrent requests are applied one at a time in arrival order, none is
 * lost, and a change the journal refuses is not applied either.
 */
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
  /**
   * `system` is what other tools of the service family write; the package writes user/assistant.
   */
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

/** One mutation of the state: what the data file's log holds, one per line. */
export type Change =
  | { op: "createThread"; thread: ThreadRecord; messages: MessageRecord[] }
  | { op: "deleteThread"; id: string }
  | { op: "addMessage"; message: MessageRecord }
  | { op: "deleteMessage"; threadId: string; id: string }
  | { op: "createAssistant"; assistant: AssistantRecord }
  | { op: "deleteAssistant"; id: string }
  | { op: "clear" };

/** The whole state at one moment; `seq` is the highest id sequence ever issued, deleted ids too. */
export interface Snapshot {
  seq: number;
  threads: ThreadRecord[];
  messages: MessageRecord[];
  assistants: AssistantRecord[];
}

const ID_RANDOM_CHARS = 12;

export class Store {
  readonly threads = new Collection<ThreadRecord>("thread");
  readonly assistants = new Collection<AssistantRecord>("asst");
  private readonly messagesByThread = new Map<string, Collection<MessageRecord>>();
  /**
   * The threads of each dataset: a dataset's listing costs what the dataset holds, not what the
   * account does, as on an indexed service (a scan of every thread was a tenth of the agent
   * server's bench time spent in the emulator once the account held a few thousand threads).
   */
  private readonly threadsByDataset = new Map<string, Collection<ThreadRecord>>();
  /**
   * Never goes back, not even on `clear()`: ids embed it, and a client may still hold an id from
   * before a reset or a restart; a new thread with that id would be another session's thread.
   */
  private seq = 0;

  constructor(
    private readonly rng: Rng,
    /** Sees every change before it is applied; a change it throws on is not applied. */
    private readonly journal: (change: Change) => void = () => {},
  ) {}

  createThread(thread: NewThread, messages: NewMessage[]): ThreadRecord {
    const record: ThreadRecord = {
      id: this.nextId("thread"),
      object: "thread",
      createdAt: new Date().toISOString(),
      ...thread,
    };
    this.commit({
      op: "createThread",
      thread: record,
      messages: messages.map((message) => this.messageRecord(record.id, message)),
    });
    return record;
  }

  deleteThread(threadId: string): boolean {
    if (!this.threads.get(threadId)) return false;
    this.commit({ op: "deleteThread", id: threadId });
    return true;
  }

  /** The threads filed under `datasetId`, in creation order. */
  datasetThreads(datasetId: string): Collection<ThreadRecord> {
    return this.threadsByDataset.get(datasetId) ?? new Collection<ThreadRecord>("thread");
  }

  private index(thread: ThreadRecord): void {
    if (thread.datasetId === undefined) return;
    let dataset = this.threadsByDataset.get(thread.datasetId);
    if (!dataset) {
      dataset = new Collection<ThreadRecord>("thread");
      this.threadsByDataset.set(thread.datasetId, dataset);
    }
    dataset.add(thread);
  }

  private unindex(threadId: string): void {
    const datasetId = this.threads.get(threadId)?.datasetId;
    if (datasetId === undefined) return;
    const dataset = this.threadsByDataset.get(datasetId);
    dataset?.remove(threadId);
    if (dataset?.size === 0) this.threadsByDataset.delete(datasetId);
  }

  /** Messages of a thread, or undefined when the thread does not exist. */
  messages(threadId: string): Collection<MessageRecord> | undefined {
    return this.messagesByThread.get(threadId);
  }

  addMessage(threadId: string, message: NewMessage): MessageRecord | undefined {
    if (!this.messagesByThread.has(threadId)) return undefined;
    const record = this.messageRecord(threadId, message);
    this.commit({ op: "addMessage", message: record });
    return record;
  }

  deleteMessage(threadId: string, messageId: string): boolean {
    if (!this.messagesByThread.get(threadId)?.get(messageId)) return false;
    this.commit({ op: "deleteMessage", threadId, id: messageId });
    return true;
  }

  createAssistant(assistant: NewAssistant): AssistantRecord {
    const record: AssistantRecord = {
      id: this.nextId("asst"),
      object: "assistant",
      ...assistant,
      createdAt: new Date().toISOString(),
    };
    this.commit({ op: "createAssistant", assistant: record });
    return record;
  }

  deleteAssistant(assistantId: string): boolean {
    if (!this.assistants.get(assistantId)) return false;
    this.commit({ op: "deleteAssistant", id: assistantId });
    return true;
  }

  clear(): void {
    this.commit({ op: "clear" });
  }

  /**
   * Applies a change without journaling it: every mutation above ends here, and so does the
   * replay of a data file's log. A change that no longer fits (a message for a thread deleted
   * since) is skipped, as the live mutation would have been refused.
   */
  apply(change: Change): void {
    switch (change.op) {
      case "createThread": {
        const messages = new Collection<MessageRecord>("msg");
        for (const message of change.messages) messages.add(message);
        this.threads.add(change.thread);
        this.index(change.thread);
        this.messagesByThread.set(change.thread.id, messages);
        this.noteIds([change.thread, ...change.messages]);
        return;
      }
      case "deleteThread":
        this.unindex(change.id);
        this.threads.remove(change.id);
        this.messagesByThread.delete(change.id);
        return;
      case "addMessage":
        this.messagesByThread.get(change.message.threadId)?.add(change.message);
        this.noteIds([change.message]);
        return;
      case "deleteMessage":
        this.messagesByThread.get(change.threadId)?.remove(change.id);
        return;
      case "createAssistant":
        this.assistants.add(change.assistant);
        this.noteIds([change.assistant]);
        return;
      case "deleteAssistant":
        this.assistants.remove(change.id);
        return;
      case "clear":
        this.threads.clear();
        this.threadsByDataset.clear();
        this.assistants.clear();
        this.messagesByThread.clear();
        return;
    }
  }

  snapshot(): Snapshot {
    const messages: MessageRecord[] = [];
    for (const thread of this.threads.all()) {
      const collection = this.messagesByThread.get(thread.id);
      if (collection) messages.push(...collection.all());
    }
    return {
      seq: this.seq,
      threads: [...this.threads.all()],
      messages,
      assistants: [...this.assistants.all()],
    };
  }

  /** Replaces the state with a checked snapshot (used once, at start). */
  restore(snapshot: Snapshot): void {
    this.apply({ op: "clear" });
    this.seq = Math.max(this.seq, snapshot.seq);
    for (const thread of snapshot.threads) {
      this.threads.add(thread);
      this.index(thread);
      this.messagesByThread.set(thread.id, new Collection<MessageRecord>("msg"));
    }
    for (const message of snapshot.messages) {
      this.messagesByThread.get(message.threadId)?.add(message);
    }
    for (const assistant of snapshot.assistants) this.assistants.add(assistant);
    // A hand-edited file may carry a stale counter; new ids must still sort after the old ones.
    this.noteIds(snapshot.threads);
    this.noteIds(snapshot.messages);
    this.noteIds(snapshot.assistants);
  }

  private commit(change: Change): void {
    this.journal(change);
    this.apply(change);
  }

  private nextId(prefix: string): string {
    this.seq += 1;
    return makeId(prefix, this.seq, this.rng.token(ID_RANDOM_CHARS));
  }

  private noteIds(records: readonly { id: string }[]): void {
    for (const record of records) this.seq = Math.max(this.seq, seqOf(record.id));
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
