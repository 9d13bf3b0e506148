/**
 * exportFineTuneRecords over a scripted dataset listing: the records of each format, the pages
 * asked for, duplicate runs, and what happens to threads that are not valid records.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { ChatTool, DatasetThreadMessages, ThreadMessage } from "../../../src/api-types";
import {
  exportFineTuneRecords,
  type SkippedThread,
  StudioInvalidRecordError,
  validateFineTuneRecord,
} from "../../../src/datasets";
import { toOpenAIChatRecord } from "../../../src/datasets/export";
import { encodeRunThread } from "../../../src/datasets/run-thread";
import { StudioValidationError } from "../../../src/errors";
import { storeLikeServer, view } from "../../helpers/thread-messages";
import { fakeService, jsonResponse } from "./fake-service";

const TOOLS: ChatTool[] = [
  {
    type: "function",
    function: { name: "get_weather", parameters: { type: "object", properties: {} } },
  },
];

const RUN_MESSAGES = [
  new SystemMessage("Be brief."),
  new HumanMessage("Weather in Paris?"),
  new AIMessage({
    content: "",
    tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }],
  }),
  new ToolMessage({ content: "sunny", tool_call_id: "call_1" }),
  new AIMessage({
    content: "Sunny.",
    additional_kwargs: { reasoning_content: "the tool said so" },
  }),
];

const RUN_RECORD = {
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: "",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "sunny" },
    { role: "assistant", content: "Sunny." },
  ],
  tools: TOOLS,
};

/** A recorded run's thread as the dataset listing returns it. */
function runThread(
  threadId: string,
  runId: string,
  messages = RUN_MESSAGES,
): DatasetThreadMessages {
  const { body } = encodeRunThread({ runId, messages, tools: TOOLS, model: undefined }, "ds");
  return {
    threadId,
    createdAt: 1_700_000_000,
    messages: body.messages!.map((m, i) =>
      storeLikeServer(m, { id: `${threadId}_${i}`, threadId }),
    ),
  };
}

function foreignThread(threadId: string, texts: [string, string][]): DatasetThreadMessages {
  return {
    threadId,
    messages: texts.map(
      ([role, text], i): ThreadMessage => ({
        id: `${threadId}_${i}`,
        role,
        content: [{ type: "text", text }],
      }),
    ),
  };
}

/** A dataset listing answering `pageSize` threads per page, by page token. */
function dataset(threads: DatasetThreadMessages[]) {
  return fakeService((request) => {
    const { page } = request.body as { page: { limit: number; nextPageToken: string } };
    const start = Number(page.nextPageToken || 0);
    const end = start + page.limit;
    return jsonResponse(200, {
      threadsMessages: threads.slice(start, end),
      page: { ...page, nextPageToken: end < threads.length ? String(end) : "" },
    });
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("toOpenAIChatRecord", () => {
  it("converts as ChatStudio sends, without the reasoning, with the tools when there are some", () => {
    expect(toOpenAIChatRecord(RUN_MESSAGES, TOOLS)).toEqual(RUN_RECORD);
    expect(toOpenAIChatRecord([new HumanMessage("hi"), new AIMessage("hello")], [])).toEqual({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ],
    });
  });
});

describe("exportFineTuneRecords", () => {
  it("issue 29: a run whose tool returned an empty string is exported, and validateFineTuneRecord agrees", async () => {
    const messages = RUN_MESSAGES.map((m) =>
      ToolMessage.isInstance(m) ? new ToolMessage({ content: "", tool_call_id: "call_1" }) : m,
    );
    const { client } = dataset([runThread("t1", "run-1", messages)]);
    const skipped: SkippedThread[] = [];
    const records = await collect(
      exportFineTuneRecords({
        client,
        datasetId: "ds",
        format: "openai-chat",
        invalid: "skip",
        onSkip: (s) => skipped.push(s),
      }),
    );
    expect(skipped).toEqual([]);
    const expected = structuredClone(RUN_RECORD);
    expected.messages[3] = { role: "tool", tool_call_id: "call_1", content: "" };
    expect(records).toEqual([expected]);
    expect(validateFineTuneRecord(records[0])).toEqual([]);
  });

  it("yields one openai-chat record per thread, reading every page once", async () => {
    const { client, requests } = dataset([
      runThread("t1", "run-1"),
      foreignThread("t2", [
        ["user", "hi"],
        ["assistant", "hello"],
      ]),
      runThread("t3", "run-3"),
    ]);
    const records = await collect(
      exportFineTuneRecords({ client, datasetId: "ds", format: "openai-chat", pageSize: 2 }),
    );
    expect(records).toEqual([
      RUN_RECORD,
      {
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
      },
      RUN_RECORD,
    ]);
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      [
        "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages",
        {
          datasetId: "ds",
          page: { limit: 2, prevPageToken: "", nextPageToken: "", totalPage: 0 },
        },
      ],
      [
        "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages",
        {
          datasetId: "ds",
          page: { limit: 2, prevPageToken: "", nextPageToken: "2", totalPage: 0 },
        },
      ],
    ]);
  });

  it("yields the LangChain messages, run id and tools in the langchain format", async () => {
    const { client } = dataset([runThread("t1", "run-1")]);
    const [record] = await collect(
      exportFineTuneRecords({ client, datasetId: "ds", format: "langchain" }),
    );
    expect(record).toMatchObject({
      threadId: "t1",
      createdAt: 1_700_000_000,
      runId: "run-1",
      tools: TOOLS,
    });
    expect(record!.messages.map(view)).toEqual(RUN_MESSAGES.map(view));
  });

  it("exports a run stored in two threads once, naming the copy to onSkip", async () => {
    const { client } = dataset([runThread("t1", "run-1"), runThread("t2", "run-1")]);
    const skipped: SkippedThread[] = [];
    const records = await collect(
      exportFineTuneRecords({
        client,
        datasetId: "ds",
        format: "openai-chat",
        onSkip: (s) => skipped.push(s),
      }),
    );
    expect(records).toEqual([RUN_RECORD]);
    expect(skipped).toEqual([
      { threadId: "t2", runId: "run-1", reason: "duplicate", problems: [] },
    ]);
  });

  it("fails on the first invalid thread by default, after yielding the ones before it", async () => {
    const { client } = dataset([
      runThread("t1", "run-1"),
      foreignThread("t2", [["user", "no answer yet"]]),
      runThread("t3", "run-3"),
    ]);
    const yielded: unknown[] = [];
    const failure = await (async () => {
      for await (const record of exportFineTuneRecords({
        client,
        datasetId: "ds",
        format: "openai-chat",
      })) {
        yielded.push(record);
      }
    })().catch((error: unknown) => error);
    expect(yielded).toEqual([RUN_RECORD]);
    expect(failure).toBeInstanceOf(StudioInvalidRecordError);
    expect(failure).toMatchObject({
      threadId: "t2",
      runId: undefined,
      problems: [expect.objectContaining({ code: "missing_final_assistant" })],
    });
    expect((failure as Error).message).toBe(
      'Thread t2 is not a valid fine-tuning record: messages[0]: the last message must be the assistant\'s. Fix or delete the thread, or pass invalid: "skip" to leave such threads out.',
    );
  });

  it("skips invalid and unreadable threads with invalid: skip, saying why", async () => {
    const damaged = runThread("t3", "run-3");
    damaged.messages[0]!.content = [{ type: "text", text: "not json" }];
    const withImage = runThread("t4", "run-4", [
      new HumanMessage({ content: [{ type: "file", url: "https://example.com/a.pdf" }] }),
      new AIMessage("a pdf"),
    ]);
    const { client } = dataset([
      foreignThread("t1", [["user", "question only"]]),
      runThread("t2", "run-2"),
      damaged,
      withImage,
    ]);
    const skipped: SkippedThread[] = [];
    const records = await collect(
      exportFineTuneRecords({
        client,
        datasetId: "ds",
        format: "openai-chat",
        invalid: "skip",
        onSkip: (s) => skipped.push(s),
      }),
    );
    expect(records).toEqual([RUN_RECORD]);
    expect(
      skipped.map((s) => [s.threadId, s.runId, s.reason, s.problems.map((p) => p.code)]),
    ).toEqual([
      ["t1", undefined, "invalid", ["missing_final_assistant"]],
      ["t3", undefined, "invalid", ["unreadable_thread"]],
      ["t4", "run-4", "invalid", ["unsupported_message"]],
    ]);
    expect(skipped[2]!.problems[0]!.path).toBe("messages[0].content[0]");
  });

  it("applies maxTokens to every record", async () => {
    const { client } = dataset([runThread("t1", "run-1")]);
    const skipped: SkippedThread[] = [];
    const records = await collect(
      exportFineTuneRecords({
        client,
        datasetId: "ds",
        format: "openai-chat",
        invalid: "skip",
        maxTokens: 10,
        onSkip: (s) => skipped.push(s),
      }),
    );
    expect(records).toEqual([]);
    expect(skipped[0]!.problems.map((p) => p.code)).toEqual(["too_large"]);
  });

  it("checks its input before any call", async () => {
    const { client, requests } = dataset([]);
    const fieldOf = async (input: Record<string, unknown>) => {
      const error = await collect(
        exportFineTuneRecords({
          client,
          datasetId: "ds",
          format: "openai-chat",
          ...input,
        } as never),
      ).catch((e: unknown) => e);
      return error instanceof StudioValidationError ? error.field : error;
    };
    expect(await fieldOf({ datasetId: "" })).toBe("datasetId");
    expect(await fieldOf({ format: "jsonl" })).toBe("format");
    expect(await fieldOf({ invalid: "keep" })).toBe("invalid");
    expect(await fieldOf({ onSkip: "log" })).toBe("onSkip");
    expect(await fieldOf({ maxTokens: -1 })).toBe("maxTokens");
    expect(requests).toEqual([]);
  });
});
