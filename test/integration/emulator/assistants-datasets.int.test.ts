import { beforeEach, describe, expect, it } from "vitest";
import type {
  Assistant,
  ErrorBody,
  ListDatasetThreadsMessagesResponse,
  ListResponse,
  Thread,
} from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { useEmulator } from "../../helpers/emulator";
import { studio } from "./http";
import { checkCursorPaging } from "./paging";

const emulator = useEmulator();
type Err = ErrorBody;

beforeEach(async () => {
  await emulator.handle.reset();
});

function createAssistant(body: Record<string, unknown>) {
  return studio<Assistant & Err>(emulator.handle, "POST", PATHS.assistants, body);
}

describe("assistants", () => {
  const full = {
    assistantName: "Helper",
    modelName: "studio/echo-large",
    description: "Helps.",
    instructions: "Be helpful.",
    functionModel: { modelId: "studio/echo-small", temperature: 0.2, topP: 0.9 },
    responseModel: { modelId: "studio/echo-large", temperature: 1, topP: 1 },
    tools: [
      {
        type: "function",
        name: "get_time",
        function: {
          name: "get_time",
          description: "Time",
          parameters: { type: "object", properties: {} },
          required: [],
        },
      },
    ],
    metadata: { team: "support" },
    userFilters: { region: "eu", tier: "pro" },
  };

  it("creates an assistant with every field of the table, and gets it back", async () => {
    const r = await createAssistant(full);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^asst_[0-9a-z]+$/),
      object: "assistant",
      ...full,
      modelId: "mdl_echo_large",
      createdAt: expect.stringMatching(/^\d{4}-/),
    });
    const got = await studio<Assistant>(emulator.handle, "GET", PATHS.assistant(r.body.id));
    expect(got.body).toEqual(r.body);
  });

  it("fills absent fields with empty values", async () => {
    const r = await createAssistant({ assistantName: "Min" });
    expect(r.body).toMatchObject({
      modelName: "",
      modelId: "",
      description: "",
      instructions: "",
      functionModel: {},
      responseModel: {},
      tools: [],
      metadata: {},
      userFilters: {},
    });
  });

  it.each([
    ["no assistantName", { assistantName: undefined }, "assistantName"],
    ["a 513-character description", { description: "d".repeat(513) }, "description"],
    ["4 userFilters pairs", { userFilters: { a: "1", b: "2", c: "3", d: "4" } }, "userFilters"],
    ["a non-string userFilters value", { userFilters: { a: 1 } }, "userFilters.a"],
    ["a malformed modelName", { modelName: "no-owner" }, "modelName"],
    [
      "functionModel.temperature 3",
      { functionModel: { temperature: 3 } },
      "functionModel.temperature",
    ],
    ["responseModel.topP 0", { responseModel: { topP: 0 } }, "responseModel.topP"],
    [
      "17 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
      "metadata",
    ],
    ["a tool without type", { tools: [{ name: "x" }] }, "tools[0].type"],
  ])("rejects %s with 400 naming the field", async (_name, patch, param) => {
    const r = await createAssistant({ ...full, ...patch });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect(r.body.error.message.startsWith(param)).toBe(true);
  });

  it("accepts a 512-character description and 3 userFilters pairs", async () => {
    const r = await createAssistant({
      ...full,
      description: "d".repeat(512),
      userFilters: { a: "1", b: "2", c: "3" },
    });
    expect(r.status).toBe(200);
  });

  it("404 for an unknown assistant", async () => {
    const r = await studio<Err>(emulator.handle, "GET", PATHS.assistant("asst_missing"));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("assistant_not_found");
  });

  it("deletes an assistant: the OpenAI-style deleted object, then 404s for it", async () => {
    const keep = (await createAssistant({ assistantName: "keep" })).body.id;
    const id = (await createAssistant({ assistantName: "gone" })).body.id;
    const r = await studio<Err>(emulator.handle, "DELETE", PATHS.assistant(id));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, object: "assistant.deleted", deleted: true });
    expect((await studio<Err>(emulator.handle, "GET", PATHS.assistant(id))).status).toBe(404);
    const again = await studio<Err>(emulator.handle, "DELETE", PATHS.assistant(id));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("assistant_not_found");
    const list = await studio<ListResponse<Assistant>>(emulator.handle, "GET", PATHS.assistants);
    expect(list.body.data.map((a) => a.id)).toEqual([keep]);
  });

  it("lists assistants in both orders with cursors", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createAssistant({ assistantName: `a${i}` })).body.id);
    await checkCursorPaging(
      (q) => studio<ListResponse<Assistant>>(emulator.handle, "GET", `${PATHS.assistants}?${q}`),
      ids,
      2,
    );
  });
});

describe("ListThreadDatasetThreadsMessages", () => {
  function list(body: Record<string, unknown>) {
    return studio<ListDatasetThreadsMessagesResponse & Err>(
      emulator.handle,
      "POST",
      PATHS.listDatasetThreadsMessages,
      { auth: { organization: "org", cluster: "c" }, ...body },
    );
  }

  async function seed() {
    const threads: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await studio<Thread>(emulator.handle, "POST", PATHS.threads, {
        datasetId: "ds_1",
        messages: [
          { role: "user", content: `q${i}` },
          { role: "assistant", content: `a${i}` },
        ],
      });
      threads.push(r.body.id);
    }
    await studio(emulator.handle, "POST", PATHS.threads, { datasetId: "ds_other", messages: [] });
    await studio(emulator.handle, "POST", PATHS.threads, {
      messages: [{ role: "user", content: "no dataset" }],
    });
    return threads;
  }

  it("returns the dataset's threads (created_at asc by default) with their messages oldest first", async () => {
    const threads = await seed();
    const r = await list({
      datasetId: "ds_1",
      page: { limit: 100, prevPageToken: "", nextPageToken: "", totalPage: 0 },
    });
    expect(r.status).toBe(200);
    expect(r.body.threadsMessages.map((t) => t.threadId)).toEqual(threads);
    const first = r.body.threadsMessages[0]!;
    expect(first.createdAt).toEqual(expect.any(String));
    expect(first.messages.map((m) => [m.role, m.content[0]!.text])).toEqual([
      ["user", "q0"],
      ["assistant", "a0"],
    ]);
    expect(first.messages[0]).toMatchObject({ object: "thread.message", threadId: threads[0] });
    expect(r.body.page).toEqual({ limit: 100, prevPageToken: "", nextPageToken: "", totalPage: 1 });
  });

  it.each([
    ["asc", false],
    ["desc", true],
    ["created_at desc", true],
  ])("pages with page tokens in order %s", async (order, reversed) => {
    const threads = await seed();
    const expected = reversed ? [...threads].reverse() : threads;
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const r = await list({
        datasetId: "ds_1",
        order,
        page: { limit: 2, prevPageToken: "", nextPageToken: token, totalPage: 0 },
      });
      expect(r.status).toBe(200);
      expect(r.body.page).toMatchObject({ limit: 2, totalPage: 3 });
      expect(r.body.threadsMessages.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.threadsMessages.map((t) => t.threadId));
      token = r.body.page!.nextPageToken!;
      pages += 1;
    } while (token && pages < 10);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });

  it("returns nothing for an unknown dataset", async () => {
    const r = await list({ datasetId: "ds_none", page: { limit: 10 } });
    expect(r.body).toEqual({
      threadsMessages: [],
      page: { limit: 10, prevPageToken: "", nextPageToken: "", totalPage: 0 },
    });
  });

  it.each([
    [{ page: { limit: 10 } }, "datasetId"],
    [{ datasetId: "d", page: { limit: 0 } }, "page.limit"],
    [{ datasetId: "d", page: { limit: 5, nextPageToken: "zzz" } }, "page.nextPageToken"],
    [{ datasetId: "d", order: "sideways" }, "order"],
  ])("rejects %j naming %s", async (body, param) => {
    const r = await list(body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });
});
