import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { ChatTool, DatasetThreadMessages } from "../../../src/api-types";
import {
  copyMessages,
  decodeRunThread,
  encodeRunThread,
  type RecordedRun,
} from "../../../src/datasets/run-thread";
import { StudioResponseError, StudioValidationError } from "../../../src/errors";
import { storeLikeServer, view } from "../../helpers/thread-messages";

const TOOLS: ChatTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather in a city.",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

function run(overrides: Partial<RecordedRun> = {}): RecordedRun {
  return {
    runId: "3f0c2d4e-run",
    model: "studio/echo-small",
    tools: TOOLS,
    messages: [
      new SystemMessage("Be brief."),
      new HumanMessage("Weather in Paris?"),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Paris" } }],
      }),
    ],
    ...overrides,
  };
}

/** The dataset listing's entry for a thread created with `body`, as a server stores it. */
function listed(body: ReturnType<typeof encodeRunThread>["body"]): DatasetThreadMessages {
  return {
    threadId: "thread_1",
    createdAt: 1_700_000_000,
    messages: (body.messages ?? []).map((input, i) =>
      storeLikeServer(input, { id: `msg_${i}`, threadId: "thread_1" }),
    ),
  };
}

describe("encodeRunThread", () => {
  it("is one create call: the dataset, the run id as thread key, a tools header, then the run", () => {
    const { body, batch } = encodeRunThread(run(), "ds_1");
    expect(body.datasetId).toBe("ds_1");
    expect(body.metadata).toEqual({
      lc_thread_key: "3f0c2d4e-run",
      lc_kind: "model_run",
      lc_model: "studio/echo-small",
    });
    expect(body.messages).toHaveLength(4);
    const header = body.messages![0]!;
    expect(header.role).toBe("user");
    expect(header.metadata?.lc_type).toBe("system");
    expect(header.content).toEqual([{ type: "text", text: JSON.stringify(TOOLS) }]);
    expect(body.messages!.map((m) => m.metadata?.lc_type)).toEqual([
      "system",
      "system",
      "human",
      "ai",
    ]);
    expect(batch.map((m) => m.input)).toEqual(body.messages);
    expect(new Set(batch.map((m) => m.clientId)).size).toBe(4);
  });

  it("leaves out a model name too long for metadata, and refuses such a run id", () => {
    expect(encodeRunThread(run({ model: "m".repeat(513) }), "ds").body.metadata).not.toHaveProperty(
      "lc_model",
    );
    expect(() => encodeRunThread(run({ runId: "r".repeat(513) }), "ds")).toThrow(
      StudioValidationError,
    );
  });

  it("names the message that cannot be stored, by its place in the run", () => {
    const huge = new ToolMessage({
      content: "ok",
      tool_call_id: "call_1",
      artifact: { blob: "x".repeat(10_000) },
    });
    const error = (() => {
      try {
        encodeRunThread(run({ messages: [new HumanMessage("hi"), huge] }), "ds");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe("messages[1]");
  });
});

describe("decodeRunThread", () => {
  it("gives back the run id, the tools and the messages exactly as recorded", () => {
    const recorded = run();
    const conversation = decodeRunThread(listed(encodeRunThread(recorded, "ds").body));
    expect(conversation.threadId).toBe("thread_1");
    expect(conversation.createdAt).toBe(1_700_000_000);
    expect(conversation.runId).toBe("3f0c2d4e-run");
    expect(conversation.tools).toEqual(TOOLS);
    expect(conversation.messages.map(view)).toEqual(recorded.messages.map(view));
  });

  it("finds the header wherever the listing puts it", () => {
    const entry = listed(encodeRunThread(run(), "ds").body);
    entry.messages.reverse();
    const conversation = decodeRunThread(entry);
    expect(conversation.runId).toBe("3f0c2d4e-run");
    expect(conversation.messages.map((m) => m.type)).toEqual(["ai", "human", "system"]);
  });

  it("reads a thread written by something else as a plain conversation", () => {
    const conversation = decodeRunThread({
      threadId: "t",
      messages: [
        { id: "m1", role: "user", content: [{ type: "text", text: "hi" }] },
        { id: "m2", role: "assistant", content: [{ type: "text", text: { value: "hello" } }] },
      ],
    });
    expect(conversation.runId).toBeUndefined();
    expect(conversation.tools).toEqual([]);
    expect(conversation.messages.map((m) => [m.type, m.text])).toEqual([
      ["human", "hi"],
      ["ai", "hello"],
    ]);
  });

  it("refuses a header whose tools were changed into something that is not a list", () => {
    const entry = listed(encodeRunThread(run(), "ds").body);
    entry.messages[0]!.content = [{ type: "text", text: '{"not": "a list"}' }];
    expect(() => decodeRunThread(entry)).toThrow(StudioResponseError);
    expect(() => decodeRunThread(entry)).toThrow(/thread_1 holds recorded run 3f0c2d4e-run/);
  });
});

describe("copyMessages", () => {
  it("copies equal to the originals, sharing nothing with them", () => {
    const originals = run().messages;
    const copies = copyMessages(originals);
    expect(copies.map(view)).toEqual(originals.map(view));
    (copies[1] as HumanMessage).content = "changed";
    (copies[2] as AIMessage).tool_calls![0]!.args.city = "Lima";
    expect(originals[1]!.content).toBe("Weather in Paris?");
    expect((originals[2] as AIMessage).tool_calls![0]!.args).toEqual({ city: "Paris" });
  });
});
