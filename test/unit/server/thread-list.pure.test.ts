import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { selectState } from "../../../src/server/state";
import { listedThread, parseExtractPath } from "../../../src/server/thread-list";
import { LABEL_CHARS, labelValues, type ThreadView } from "../../../src/server/thread-view";

const view: ThreadView = {
  thread_id: "t1",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-02T00:00:00.000Z",
  metadata: { topic: "trip", tags: ["a", "b"] },
  status: "idle",
  values: {
    messages: [
      { type: "human", content: "hi" },
      { type: "ai", content: "hello" },
    ],
  },
  interrupts: {},
  title: "hi",
  preview: "hello",
};

describe("labelValues", () => {
  it("keeps the first and the last message as { type, id, name, content }", () => {
    const values = labelValues({
      messages: [
        new HumanMessage({ id: "m1", content: "plan a trip" }),
        new AIMessage({ id: "m2", content: "where to?" }),
        new ToolMessage({ id: "m3", content: "sunny", tool_call_id: "c1", name: "weather" }),
      ],
      other: "not listed",
    });
    expect(values).toEqual({
      messages: [
        { type: "human", id: "m1", content: "plan a trip" },
        { type: "tool", id: "m3", name: "weather", content: "sunny" },
      ],
    });
  });

  it("one message is listed once; text of content blocks is joined; long text clipped", () => {
    const long = "y".repeat(LABEL_CHARS * 2);
    const values = labelValues({
      messages: [
        {
          type: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: long },
          ],
        },
      ],
    });
    const [only] = values.messages as { type: string; content: string }[];
    expect(values.messages).toHaveLength(1);
    expect(only?.type).toBe("human");
    expect(only?.content).toHaveLength(LABEL_CHARS);
    expect(only?.content.startsWith("ay")).toBe(true);
  });

  it("a state without messages lists {}", () => {
    expect(labelValues({ count: 3 })).toEqual({});
    expect(labelValues(undefined)).toEqual({});
    expect(labelValues({ messages: [] })).toEqual({ messages: [] });
  });
});

describe("extract paths", () => {
  it("reads keys and indices, negative from the end; nowhere is null", () => {
    const extract = {
      first: parseExtractPath("values.messages[0].content"),
      last: parseExtractPath("values.messages[-1].content"),
      tag: parseExtractPath("metadata.tags[1]"),
      missing: parseExtractPath("metadata.nope.deeper"),
      outside: parseExtractPath("values.messages[5]"),
      notAList: parseExtractPath("metadata.topic[0]"),
    } as Record<string, (string | number)[]>;
    expect(listedThread(view, { select: ["thread_id"], extract })).toEqual({
      thread_id: "t1",
      extracted: {
        first: "hi",
        last: "hello",
        tag: "b",
        missing: null,
        outside: null,
        notAList: null,
      },
    });
  });

  it("a path not starting at a field of the thread, or not a path, is a reason", () => {
    expect(parseExtractPath("config.x")).toMatch(/^must start with one of thread_id/);
    expect(parseExtractPath("values..x")).toMatch(/^must be a path/);
    expect(parseExtractPath("values[x]")).toMatch(/^must be a path/);
    expect(parseExtractPath("__proto__.x")).toMatch(/^must start with/);
  });

  it("an inherited key is not read", () => {
    const steps = parseExtractPath("metadata.constructor") as string[];
    expect(listedThread(view, { extract: { c: steps } }).extracted).toEqual({ c: null });
  });
});

describe("select", () => {
  it("a thread keeps only the selected fields; none selected is all of them", () => {
    expect(listedThread(view, { select: ["status", "title"] })).toEqual({
      status: "idle",
      title: "hi",
    });
    expect(listedThread(view, {})).toEqual(view);
  });

  it("a state keeps the selected fields, one key of values, and the tasks' interrupts", () => {
    const state = {
      values: { messages: [1], files: { a: 1 } },
      next: ["approve"],
      tasks: [
        { id: "t", interrupts: [{ value: "q1" }] },
        { id: "u", interrupts: [] },
      ],
      checkpoint: { checkpoint_id: "c" },
    };
    expect(selectState(state, ["values.files", "next", "interrupts"])).toEqual({
      values: { files: { a: 1 } },
      next: ["approve"],
      interrupts: [{ value: "q1" }],
    });
    expect(selectState(state, ["values", "values.files"])).toEqual({ values: state.values });
    expect(selectState(state, ["values.none"])).toEqual({ values: {} });
    expect(selectState(state, undefined)).toBe(state);
  });
});
