/**
 * An in-memory stand-in for the StudioClient thread calls, with scripted failures, so each
 * reliability path of the thread writes and the history is exercised exactly (the emulator's
 * faults are random).
 */
import type {
  CreateMessageRequest,
  CreateThreadRequest,
  ListQuery,
  ListThreadsQuery,
  Thread,
  ThreadMessage,
} from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import { StudioAPIError } from "../../../src/errors";
import { storeLikeServer } from "../../helpers/thread-messages";

/**
 * What the next write does: succeed, fail before storing, store and then fail, or fail at once and
 * store `ms` later (a slow server committing after the client gave up).
 */
export type Step = "ok" | { before: Error } | { after: Error } | { late: Error; ms: number };

export class FakeThreads {
  threads: Thread[] = [];
  messages = new Map<string, ThreadMessage[]>();
  /** Scripted outcomes of the next createMessage / createThread calls ("ok" when empty). */
  messageSteps: Step[] = [];
  threadSteps: Step[] = [];
  /** Errors thrown by the next list calls. */
  listFailures: Error[] = [];
  calls: string[] = [];
  private next = 0;

  private client: StudioClient | undefined;

  /** A StudioClient (it passes `instanceof`) whose thread calls are this fake's. */
  asClient(): StudioClient {
    this.client ??= this.anotherClient();
    return this.client;
  }

  /** Another client on the same threads, with nothing cached: what another process has. */
  anotherClient(): StudioClient {
    const client = Object.create(StudioClient.prototype) as Record<string, unknown>;
    for (const name of [
      "createMessage",
      "createThread",
      "getThread",
      "iterateMessages",
      "iterateThreads",
      "deleteMessage",
      "deleteThread",
    ] as const) {
      const method = this[name] as (...args: unknown[]) => unknown;
      client[name] = method.bind(this);
    }
    return client as unknown as StudioClient;
  }

  private id(prefix: string): string {
    this.next += 1;
    return `${prefix}_${this.next}`;
  }

  private store(threadId: string, body: CreateMessageRequest): ThreadMessage {
    const list = this.messages.get(threadId);
    if (!list) {
      throw StudioAPIError.fromResponse({
        status: 404,
        method: "POST",
        path: `/v1/threads/${threadId}/messages`,
        serverMessage: "no thread",
      });
    }
    const message = storeLikeServer(body, { id: this.id("msg"), threadId });
    list.push(message);
    return message;
  }

  async createMessage(threadId: string, body: CreateMessageRequest): Promise<ThreadMessage> {
    this.calls.push("createMessage");
    const step = this.messageSteps.shift() ?? "ok";
    if (step !== "ok" && "before" in step) throw step.before;
    if (step !== "ok" && "late" in step) {
      setTimeout(() => this.store(threadId, body), step.ms);
      throw step.late;
    }
    const message = this.store(threadId, body);
    if (step !== "ok" && "after" in step) throw step.after;
    return message;
  }

  async createThread(body: CreateThreadRequest): Promise<Thread> {
    this.calls.push("createThread");
    const step = this.threadSteps.shift() ?? "ok";
    if (step !== "ok" && "before" in step) throw step.before;
    if (step !== "ok" && "late" in step) throw new Error("late thread creation is not scripted");
    const thread: Thread = {
      id: this.id("thread"),
      object: "thread",
      metadata: body.metadata ?? {},
      title: body.title ?? null,
      datasetId: body.datasetId ?? null,
    };
    this.threads.push(thread);
    this.messages.set(thread.id, []);
    for (const message of body.messages ?? []) this.store(thread.id, message);
    if (step !== "ok" && "after" in step) throw step.after;
    return thread;
  }

  async getThread(threadId: string): Promise<Thread> {
    this.calls.push("getThread");
    const thread = this.threads.find((t) => t.id === threadId);
    if (!thread) {
      throw StudioAPIError.fromResponse({
        status: 404,
        method: "GET",
        path: `/v1/threads/${threadId}`,
        serverMessage: "not found",
      });
    }
    return thread;
  }

  async *iterateMessages(threadId: string, query: ListQuery = {}): AsyncGenerator<ThreadMessage> {
    const list = [...(this.messages.get(threadId) ?? [])];
    if (query.order === "desc") list.reverse();
    const limit = query.limit ?? 20;
    for (let start = 0; start < list.length || start === 0; start += limit) {
      this.calls.push(`listMessages:${query.order}`);
      const failure = this.listFailures.shift();
      if (failure) throw failure;
      yield* list.slice(start, start + limit);
      if (start + limit >= list.length) return;
    }
  }

  async *iterateThreads(query: ListThreadsQuery = {}): AsyncGenerator<Thread> {
    this.calls.push(`listThreads:${query.order}`);
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    let list = this.threads.filter(
      (t) => query.datasetId === undefined || t.datasetId === query.datasetId,
    );
    if (query.order === "desc") list.reverse();
    if (query.after !== undefined) {
      const at = list.findIndex((t) => t.id === query.after);
      list = list.slice(at + 1);
    }
    yield* list;
  }

  async deleteMessage(threadId: string, messageId: string): Promise<unknown> {
    this.calls.push("deleteMessage");
    const list = this.messages.get(threadId) ?? [];
    this.messages.set(
      threadId,
      list.filter((m) => m.id !== messageId),
    );
    return { id: messageId, deleted: true };
  }

  async deleteThread(threadId: string): Promise<unknown> {
    this.calls.push("deleteThread");
    if (!this.messages.has(threadId)) {
      throw StudioAPIError.fromResponse({
        status: 404,
        method: "DELETE",
        path: `/v1/threads/${threadId}`,
        serverMessage: "not found",
      });
    }
    this.threads = this.threads.filter((t) => t.id !== threadId);
    this.messages.delete(threadId);
    return { id: threadId, deleted: true };
  }

  /** Texts of a thread's messages, in order. */
  texts(threadId: string): string[] {
    return (this.messages.get(threadId) ?? []).map((m) =>
      m.content.map((c) => (typeof c.text === "string" ? c.text : "")).join(""),
    );
  }
}
