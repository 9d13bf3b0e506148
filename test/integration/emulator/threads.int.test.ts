import { beforeEach, describe, expect, it } from "vitest";
import type {
  Deleted,
  ErrorBody,
  ListResponse,
  Thread,
  ThreadMessage,
} from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { useEmulator } from "../../helpers/emulator";
import { call, studio } from "./http";
import { checkCursorPaging } from "./paging";

const emulator = useEmulator();
type Err = ErrorBody;

beforeEach(async () => {
  await emulator.handle.reset();
});

function createThread(body: Record<string, unknown> = {}) {
  return studio<Thread & Err>(emulator.handle, "POST", PATHS.threads, body);
}
function addMessage(threadId: string, body: Record<string, unknown>) {
  return studio<ThreadMessage & Err>(emulator.handle, "POST", PATHS.messages(threadId), body);
}
function listMessages(threadId: string, query: string) {
  return studio<ListResponse<ThreadMessage> & Err>(
    emulator.handle,
    "GET",
    `${PATHS.messages(threadId)}?${query}`,
  );
}

describe("studio auth", () => {
  const calls: [string, string, unknown][] = [
    ["POST", PATHS.threads, {}],
    ["GET", PATHS.threads, undefined],
    ["GET", PATHS.thread("thread_x"), undefined],
    ["DELETE", PATHS.thread("thread_x"), undefined],
    ["POST", PATHS.messages("thread_x"), { role: "user", content: "x" }],
    ["GET", PATHS.messages("thread_x"), undefined],
    ["DELETE", PATHS.message("thread_x", "msg_x"), undefined],
    ["POST", PATHS.assistants, { assistantName: "a" }],
    ["GET", PATHS.assistants, undefined],
    ["GET", PATHS.assistant("asst_x"), undefined],
    ["POST", PATHS.listDatasetThreadsMessages, { datasetId: "d", page: { limit: 1 } }],
  ];
  it.each(calls)(
    "%s %s: 401 without X-Service-Key, with a wrong one, or with only Authorization",
    async (method, path, body) => {
      const url = `${emulator.handle.baseUrl}${path}`;
      const cases: Record<string, string>[] = [
        {},
        { "x-service-key": "wrong" },
        { authorization: emulator.handle.apiKey },
      ];
      for (const headers of cases) {
        const r = await call<Err>(method, url, { body, headers });
        expect(r.status).toBe(401);
        expect(r.body.error.type).toBe("authentication_error");
        expect(r.text).not.toContain(emulator.handle.apiKey);
      }
      const hinted = await call<Err>(method, url, {
        body,
        headers: { authorization: emulator.handle.apiKey },
      });
      expect(hinted.body.error.message).toContain("X-Service-Key");
    },
  );
});

describe("threads", () => {
  it("creates a thread with every field and initial messages", async () => {
    const r = await createThread({
      title: "Support",
      metadata: { user: "u1" },
      datasetId: "ds_1",
      toolResources: { codeInterpreter: { fileIds: ["f1"] } },
      messages: [
        { role: "user", content: "Hello", metadata: { n: "1" } },
        { role: "assistant", content: [{ type: "text", text: { value: "Hi!" } }] },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^thread_[0-9a-z]+$/),
      object: "thread",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      metadata: { user: "u1" },
      title: "Support",
      toolResources: { codeInterpreter: { fileIds: ["f1"] } },
      datasetId: "ds_1",
    });
    const messages = await listMessages(r.body.id, "order=asc");
    expect(messages.body.data).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        object: "thread.message",
        createdAt: expect.any(String),
        threadId: r.body.id,
        role: "user",
        content: [{ type: "text", text: "Hello" }],
        attachments: [],
        assistantId: null,
        runId: null,
        metadata: { n: "1" },
      },
      expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "Hi!" }] }),
    ]);
  });

  it("creates an empty thread from an empty body", async () => {
    const r = await call<Thread>("POST", `${emulator.handle.baseUrl}${PATHS.threads}`, {
      headers: { "x-service-key": emulator.handle.apiKey },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: "thread",
      metadata: {},
      title: null,
      toolResources: {},
    });
  });

  it("gets and deletes a thread; deleting removes its messages", async () => {
    const { body: thread } = await createThread({ messages: [{ role: "user", content: "x" }] });
    expect((await studio<Thread>(emulator.handle, "GET", PATHS.thread(thread.id))).body).toEqual(
      thread,
    );
    const deleted = await studio<Deleted>(emulator.handle, "DELETE", PATHS.thread(thread.id));
    expect(deleted.body).toEqual({ id: thread.id, object: "thread.deleted", deleted: true });
    for (const [method, path] of [
      ["GET", PATHS.thread(thread.id)],
      ["DELETE", PATHS.thread(thread.id)],
      ["GET", PATHS.messages(thread.id)],
    ] as const) {
      const r = await studio<Err>(emulator.handle, method, path);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: "not_found_error", code: "thread_not_found" });
      expect(r.body.error.message).toContain(thread.id);
    }
    expect((await addMessage(thread.id, { role: "user", content: "late" })).status).toBe(404);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["a tool message", { messages: [{ role: "tool", content: "x" }] }, "messages[0].role"],
    ["a message without role", { messages: [{ content: "x" }] }, "messages[0].role"],
    ["a message without content", { messages: [{ role: "user" }] }, "messages[0].content"],
    [
      "an unknown content type",
      { messages: [{ role: "user", content: [{ type: "audio" }] }] },
      "messages[0].content[0].type",
    ],
    [
      "an image_file without fileId",
      { messages: [{ role: "user", content: [{ type: "image_file", imageFile: {} }] }] },
      "messages[0].content[0].imageFile.fileId",
    ],
    [
      "17 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
      "metadata",
    ],
    [
      "a 65-character metadata key",
      { metadata: { ["k".repeat(65)]: "v" } },
      `metadata.${"k".repeat(20)}...`,
    ],
    ["a 513-character metadata value", { metadata: { k: "v".repeat(513) } }, "metadata.k"],
    ["a non-string metadata value", { metadata: { k: 1 } }, "metadata.k"],
    ["a non-string title", { title: 5 }, "title"],
    ["messages not an array", { messages: "hi" }, "messages"],
  ];
  it.each(invalid)("rejects %s with 400 naming the field", async (_name, body, param) => {
    const r = await createThread(body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect(r.body.error.message.startsWith(param)).toBe(true);
  });

  it("accepts metadata at the limits", async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [
        `${"k".repeat(62)}${String(i).padStart(2, "0")}`,
        "v".repeat(512),
      ]),
    );
    expect((await createThread({ metadata })).status).toBe(200);
  });

  it("rejects a body that is not an object, and malformed JSON", async () => {
    const arr = await studio<Err>(emulator.handle, "POST", PATHS.threads, [1]);
    expect(arr.status).toBe(400);
    const bad = await call<Err>("POST", `${emulator.handle.baseUrl}${PATHS.threads}`, {
      raw: "{nope",
      headers: { "x-service-key": emulator.handle.apiKey },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_json");
  });

  it("lists threads in both orders with cursors", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createThread({ title: `t${i}` })).body.id);
    await checkCursorPaging(
      (q) => studio<ListResponse<Thread>>(emulator.handle, "GET", `${PATHS.threads}?${q}`),
      ids,
      3,
    );
  });

  it("defaults to limit 20, order asc", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push((await createThread()).body.id);
    const r = await studio<ListResponse<Thread>>(emulator.handle, "GET", PATHS.threads);
    expect(r.body.data.map((t) => t.id)).toEqual(ids.slice(0, 20));
    expect(r.body.hasMore).toBe(true);
  });

  it("keeps paging after the cursor item was deleted", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createThread()).body.id);
    await studio(emulator.handle, "DELETE", PATHS.thread(ids[1]!));
    const r = await studio<ListResponse<Thread>>(
      emulator.handle,
      "GET",
      `${PATHS.threads}?order=asc&after=${ids[1]}`,
    );
    expect(r.body.data.map((t) => t.id)).toEqual(ids.slice(2));
  });

  it("filters by datasetId and echoes it", async () => {
    const a = (await createThread({ datasetId: "ds_a" })).body.id;
    await createThread({ datasetId: "ds_b" });
    await createThread();
    const r = await studio<ListResponse<Thread>>(
      emulator.handle,
      "GET",
      `${PATHS.threads}?datasetId=ds_a`,
    );
    expect(r.body.data.map((t) => t.id)).toEqual([a]);
    expect(r.body.datasetId).toBe("ds_a");
    const all = await studio<ListResponse<Thread>>(emulator.handle, "GET", PATHS.threads);
    expect(all.body.data).toHaveLength(3);
    expect(all.body.datasetId).toBeUndefined();
  });

  it("leaves a deleted thread out of its dataset's listings", async () => {
    const [a, b] = [
      (await createThread({ datasetId: "ds_a" })).body.id,
      (await createThread({ datasetId: "ds_a" })).body.id,
    ];
    await studio(emulator.handle, "DELETE", PATHS.thread(a));
    const listed = await studio<ListResponse<Thread>>(
      emulator.handle,
      "GET",
      `${PATHS.threads}?datasetId=ds_a`,
    );
    expect(listed.body.data.map((t) => t.id)).toEqual([b]);
    const withMessages = await studio<{ threadsMessages: { threadId: string }[] }>(
      emulator.handle,
      "POST",
      PATHS.listDatasetThreadsMessages,
      { datasetId: "ds_a", page: { limit: 10 } },
    );
    expect(withMessages.body.threadsMessages.map((t) => t.threadId)).toEqual([b]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["limit=2.5", "limit"],
    ["order=up", "order"],
    ["after=nope", "after"],
    ["before=msg_0000000001xyz", "before"],
  ])("rejects %s", async (query, param) => {
    const r = await studio<Err>(emulator.handle, "GET", `${PATHS.threads}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });
});

describe("messages", () => {
  it("adds a message with string content, content items, metadata and attachments", async () => {
    const { body: thread } = await createThread();
    const text = await addMessage(thread.id, { role: "user", content: "Hello" });
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({
      object: "thread.message",
      threadId: thread.id,
      role: "user",
      content: [{ type: "text", text: "Hello" }],
    });
    // Every field of the input comes back as written.
    const richInput = {
      role: "assistant",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", imageUrl: { url: "https://example.com/a.png", detail: "low" } },
        { type: "image_file", imageFile: { fileId: "file_1" } },
      ],
      metadata: { lc_kwargs: "{}" },
      attachments: [{ fileId: "file_1", tools: [{ type: "code_interpreter" }] }],
    };
    const rich = await addMessage(thread.id, richInput);
    expect(rich.body).toMatchObject(richInput);
    const got = await studio<ThreadMessage>(
      emulator.handle,
      "GET",
      PATHS.message(thread.id, rich.body.id),
    );
    expect(got.body).toEqual(rich.body);
  });

  it.each([
    [{ role: "developer", content: "x" }, "role"],
    [{ role: "tool", content: "x" }, "role"],
    [{ role: "user" }, "content"],
    [{ role: "user", content: 5 }, "content"],
    [{ role: "user", content: "x", metadata: { k: 1 } }, "metadata.k"],
    [{ role: "user", content: "x", attachments: [{}] }, "attachments[0].fileId"],
  ])("rejects %j naming %s", async (body, param) => {
    const { body: thread } = await createThread();
    const r = await addMessage(thread.id, body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });

  it("lists messages in both orders with cursors; the default order is desc", async () => {
    const { body: thread } = await createThread();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push(
        (await addMessage(thread.id, { role: i % 2 ? "assistant" : "user", content: `m${i}` })).body
          .id,
      );
    await checkCursorPaging((q) => listMessages(thread.id, q), ids, 3);
    const byDefault = await studio<ListResponse<ThreadMessage>>(
      emulator.handle,
      "GET",
      PATHS.messages(thread.id),
    );
    expect(byDefault.body.data.map((m) => m.id)).toEqual([...ids].reverse());
  });

  it("deletes a message; unknown messages and threads are 404", async () => {
    const { body: thread } = await createThread({
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
    });
    const [first, second] = (await listMessages(thread.id, "order=asc")).body.data;
    const deleted = await studio<Deleted>(
      emulator.handle,
      "DELETE",
      PATHS.message(thread.id, first!.id),
    );
    expect(deleted.body).toEqual({
      id: first!.id,
      object: "thread.message.deleted",
      deleted: true,
    });
    expect((await listMessages(thread.id, "order=asc")).body.data.map((m) => m.id)).toEqual([
      second!.id,
    ]);
    const again = await studio<Err>(emulator.handle, "DELETE", PATHS.message(thread.id, first!.id));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("message_not_found");
    expect((await addMessage("thread_missing", { role: "user", content: "x" })).status).toBe(404);
    expect((await listMessages("thread_missing", "order=asc")).status).toBe(404);
  });

  it("keeps all of 100 concurrent writers on one thread, in arrival order", async () => {
    const { body: thread } = await createThread();
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        addMessage(thread.id, { role: "user", content: `writer ${i}` }),
      ),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const byCreation = [...replies].map((r) => r.body).sort((a, b) => (a.id < b.id ? -1 : 1));
    const listed: ThreadMessage[] = [];
    let after = "";
    for (let page = 0; page < 10; page++) {
      const r = await listMessages(
        thread.id,
        `order=asc&limit=30${after ? `&after=${after}` : ""}`,
      );
      listed.push(...r.body.data);
      if (!r.body.hasMore) break;
      after = r.body.lastId!;
    }
    expect(listed).toHaveLength(100);
    expect(new Set(listed.map((m) => m.content[0]!.text as string)).size).toBe(100);
    expect(listed.map((m) => m.id)).toEqual(byCreation.map((m) => m.id));
    // The listing order is the order in which the server received the writes.
    const arrived = emulator.handle.requests
      .filter((r) => r.method === "POST" && r.path.endsWith("/messages"))
      .map((r) => (r.body as { content: string }).content);
    expect(listed.map((m) => m.content[0]!.text)).toEqual(arrived);
  });
});

describe("what other tools write, and organizations (issues 13.16, 14.12, 14.13)", () => {
  it("accepts and returns system messages, in a new thread and added to one", async () => {
    const { body: thread } = await createThread({
      messages: [{ role: "system", content: "Be brief." }],
    });
    const added = await addMessage(thread.id, { role: "system", content: "Use French." });
    expect(added.status).toBe(200);
    const { body } = await listMessages(thread.id, "order=asc");
    expect(body.data.map((m) => [m.role, m.content[0]?.text])).toEqual([
      ["system", "Be brief."],
      ["system", "Use French."],
    ]);
  });

  it("stores and returns a metadata key named __proto__ like any other, on threads and messages", async () => {
    const raw = '{"__proto__":"p","constructor":"c","k":"v"}';
    const thread = await call<Thread & Err>("POST", `${emulator.handle.baseUrl}${PATHS.threads}`, {
      raw: `{"metadata":${raw},"messages":[{"role":"user","content":"x","metadata":${raw}}]}`,
      headers: { "x-service-key": emulator.handle.apiKey, "content-type": "application/json" },
    });
    expect(thread.status).toBe(200);
    expect(thread.text).toContain('"metadata":{"__proto__":"p","constructor":"c","k":"v"}');
    const got = await studio(emulator.handle, "GET", PATHS.thread(thread.body.id));
    expect(got.text).toContain('"__proto__":"p"');
    const messages = await listMessages(thread.body.id, "order=asc");
    expect(messages.text).toContain('"metadata":{"__proto__":"p","constructor":"c","k":"v"}');
  });

  it("accepts X-Org-Id on studio calls and refuses a blank one", async () => {
    const headers = { "x-service-key": emulator.handle.apiKey, "x-org-id": "org_42" };
    const url = `${emulator.handle.baseUrl}${PATHS.threads}`;
    expect((await call("POST", url, { body: {}, headers })).status).toBe(200);
    expect((await call("GET", url, { headers })).status).toBe(200);
    const dataset = await call(
      "POST",
      `${emulator.handle.baseUrl}${PATHS.listDatasetThreadsMessages}`,
      {
        body: { datasetId: "d", auth: { organization: "org_42" }, page: { limit: 1 } },
        headers,
      },
    );
    expect(dataset.status).toBe(200);
    const blank = await call<Err>("GET", url, { headers: { ...headers, "x-org-id": " " } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.param).toBe("X-Org-Id");
  });
});
