/**
 * Threads and messages: create/get/delete/list threads, add/get/list/delete messages (spec call 5
 * and the `/v1` calls of the notes).
 */
import { invalid, notFound } from "./http-error";
import { readListQuery } from "./list-query";
import type { RequestContext, Route } from "./router";
import type { ContentItemRecord, NewMessage, Store } from "./store";
import {
  describe,
  isObject,
  type Json,
  optionalArray,
  optionalMetadata,
  optionalObject,
  optionalString,
  requireBodyObject,
} from "./validate";

const CONTENT_TYPES = new Set(["text", "image_file", "image_url"]);
/** Roles a message may be written with: the notes' two, and `system`, which other tools write. */
const ROLES = new Set(["user", "assistant", "system"]);

export function threadRoutes(store: Store, prefix: string): Route[] {
  const thread = (ctx: RequestContext) => {
    const id = ctx.params.threadId!;
    const found = store.threads.get(id);
    if (!found) throw notFound("thread", id, "threadId");
    return found;
  };
  const messagesOf = (ctx: RequestContext) => {
    const id = ctx.params.threadId!;
    const messages = store.messages(id);
    if (!messages) throw notFound("thread", id, "threadId");
    return messages;
  };

  return [
    {
      method: "POST",
      path: `${prefix}/v1/threads`,
      auth: "studio",
      handler: (ctx) => {
        const body = requireBodyObject(ctx.body);
        const messages = (optionalArray(body, "messages") ?? []).map((m, i) =>
          readMessage(m, `messages[${i}]`),
        );
        const datasetId = optionalString(body, "datasetId");
        const record = store.createThread(
          {
            metadata: optionalMetadata(body, "metadata"),
            title: optionalString(body, "title") ?? null,
            toolResources: optionalObject(body, "toolResources") ?? {},
            ...(datasetId ? { datasetId } : {}),
          },
          messages,
        );
        return { kind: "json", body: record };
      },
    },
    {
      method: "GET",
      path: `${prefix}/v1/threads`,
      auth: "studio",
      handler: (ctx) => {
        const params = readListQuery(ctx.query, "asc");
        const datasetId = ctx.query.datasetId || undefined;
        const threads = datasetId === undefined ? store.threads : store.datasetThreads(datasetId);
        const page = threads.list(params);
        return { kind: "json", body: datasetId === undefined ? page : { ...page, datasetId } };
      },
    },
    {
      method: "GET",
      path: `${prefix}/v1/threads/:threadId`,
      auth: "studio",
      handler: (ctx) => ({ kind: "json", body: thread(ctx) }),
    },
    {
      method: "DELETE",
      path: `${prefix}/v1/threads/:threadId`,
      auth: "studio",
      handler: (ctx) => {
        const id = thread(ctx).id;
        store.deleteThread(id);
        return { kind: "json", body: { id, object: "thread.deleted", deleted: true } };
      },
    },
    {
      method: "POST",
      path: `${prefix}/v1/threads/:threadId/messages`,
      auth: "studio",
      handler: (ctx) => {
        const id = thread(ctx).id;
        const message = readMessage(requireBodyObject(ctx.body), "");
        const record = store.addMessage(id, message);
        if (!record) throw notFound("thread", id, "threadId");
        return { kind: "json", body: record };
      },
    },
    {
      method: "GET",
      path: `${prefix}/v1/threads/:threadId/messages`,
      auth: "studio",
      handler: (ctx) => ({
        kind: "json",
        body: messagesOf(ctx).list(readListQuery(ctx.query, "desc")),
      }),
    },
    {
      method: "GET",
      path: `${prefix}/v1/threads/:threadId/messages/:messageId`,
      auth: "studio",
      handler: (ctx) => {
        const message = messagesOf(ctx).get(ctx.params.messageId!);
        if (!message) throw notFound("message", ctx.params.messageId!, "messageId");
        return { kind: "json", body: message };
      },
    },
    {
      method: "DELETE",
      path: `${prefix}/v1/threads/:threadId/messages/:messageId`,
      auth: "studio",
      handler: (ctx) => {
        const threadId = thread(ctx).id;
        const messageId = ctx.params.messageId!;
        if (!store.deleteMessage(threadId, messageId))
          throw notFound("message", messageId, "messageId");
        return {
          kind: "json",
          body: { id: messageId, object: "thread.message.deleted", deleted: true },
        };
      },
    },
  ];
}

/** A new message as written by a caller (`path` prefixes field names: `messages[2].role`). */
export function readMessage(value: unknown, path: string): NewMessage {
  const at = (field: string) => (path ? `${path}.${field}` : field);
  if (!isObject(value))
    throw invalid(path || "request body", `must be an object (got ${describe(value)})`);
  const role = value.role;
  if (role === undefined || role === null)
    throw invalid(at("role"), "is required", "missing_field");
  if (typeof role !== "string" || !ROLES.has(role)) {
    throw invalid(at("role"), `must be "user", "assistant" or "system" (got ${describe(role)})`);
  }
  const attachments = (optionalArray(value, "attachments", at("attachments")) ?? []).map((a, i) => {
    if (!isObject(a) || typeof a.fileId !== "string") {
      throw invalid(at(`attachments[${i}].fileId`), "is required and must be a string");
    }
    return a;
  });
  return {
    role: role as NewMessage["role"],
    content: readContent(value, at("content")),
    attachments,
    assistantId: optionalString(value, "assistantId", at("assistantId")) ?? null,
    runId: optionalString(value, "runId", at("runId")) ?? null,
    metadata: optionalMetadata(value, "metadata", at("metadata")),
  };
}

function readContent(message: Json, path: string): ContentItemRecord[] {
  const content = message.content;
  if (content === undefined || content === null)
    throw invalid(path, "is required", "missing_field");
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) {
    throw invalid(path, `must be a string or an array of content items (got ${describe(content)})`);
  }
  return content.map((item, i) => readContentItem(item, `${path}[${i}]`));
}

function readContentItem(item: unknown, path: string): ContentItemRecord {
  if (!isObject(item)) throw invalid(path, `must be an object (got ${describe(item)})`);
  const type = item.type;
  if (typeof type !== "string" || !CONTENT_TYPES.has(type)) {
    throw invalid(
      `${path}.type`,
      `must be "text", "image_file" or "image_url" (got ${describe(type)})`,
    );
  }
  if (type === "text") {
    // The `{ value }` form of this service family is accepted; the string form is what is stored.
    const text = isObject(item.text) ? item.text.value : item.text;
    if (typeof text !== "string") throw invalid(`${path}.text`, "must be a string");
    return { type, text };
  }
  if (type === "image_file") {
    const file = item.imageFile;
    if (!isObject(file) || typeof file.fileId !== "string") {
      throw invalid(`${path}.imageFile.fileId`, "is required and must be a string");
    }
    return { type, imageFile: detailed({ fileId: file.fileId }, file.detail) };
  }
  const image = item.imageUrl;
  if (!isObject(image) || typeof image.url !== "string") {
    throw invalid(`${path}.imageUrl.url`, "is required and must be a string");
  }
  return { type, imageUrl: detailed({ url: image.url }, image.detail) };
}

function detailed<T extends object>(value: T, detail: unknown): T & { detail?: string } {
  return typeof detail === "string" ? { ...value, detail } : value;
}
