import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  afterRun,
  matchesMetadata,
  previewFrom,
  searchThreads,
  stateMessages,
  type ThreadView,
  titleFrom,
} from "../../../src/server/thread-view";

function view(id: string, fields: Partial<ThreadView> = {}): ThreadView {
  return {
    thread_id: id,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    metadata: {},
    status: "idle",
    values: {},
    interrupts: {},
    title: null,
    preview: null,
    ...fields,
  };
}

describe("titles and previews", () => {
  it("reads messages as LangChain objects or SDK dicts", () => {
    const messages = stateMessages({
      messages: [
        new HumanMessage("  Hello\n  there "),
        { type: "ai", content: [{ type: "text", text: "Hi!" }] },
        { role: "user", content: "" },
      ],
    });
    expect(messages).toEqual([
      { type: "human", text: "  Hello\n  there " },
      { type: "ai", text: "Hi!" },
      { type: "human", text: "" },
    ]);
    expect(titleFrom(messages)).toBe("Hello there");
    expect(previewFrom(messages)).toBe("Hi!");
  });

  it("clips a long title and preview with an ellipsis", () => {
    const long = "word ".repeat(100);
    const messages = stateMessages({ messages: [new HumanMessage(long), new AIMessage(long)] });
    expect(titleFrom(messages)).toHaveLength(80);
    expect(titleFrom(messages)?.endsWith("…")).toBe(true);
    expect(previewFrom(messages)).toHaveLength(160);
  });

  it("keeps no title when there is no user text", () => {
    expect(titleFrom(stateMessages({ messages: [new AIMessage("only me")] }))).toBeNull();
    expect(stateMessages({ other: 1 })).toEqual([]);
  });
});

describe("afterRun", () => {
  const now = new Date("2026-02-02T00:00:00.000Z");
  const values = { messages: [new HumanMessage("first"), new AIMessage("answer")] };

  it("sets title once, preview, updated_at and status from interrupts", () => {
    const paused = afterRun(
      view("t"),
      { values, tasks: [{ id: "task", interrupts: [{ value: "ok?" }] }] },
      "success",
      now,
    );
    expect(paused).toMatchObject({
      title: "first",
      preview: "answer",
      status: "interrupted",
      updated_at: now.toISOString(),
      interrupts: { task: [{ value: "ok?" }] },
    });
    const later = afterRun(
      paused,
      { values: { messages: [new HumanMessage("second")] }, tasks: [] },
      "success",
      now,
    );
    expect(later).toMatchObject({
      title: "first",
      preview: "second",
      status: "idle",
      interrupts: {},
    });
  });

  it("prefers a title set in metadata, and marks a failed run", () => {
    const named = afterRun(
      view("t", { metadata: { title: "Mine" } }),
      { values, tasks: [] },
      "error",
      now,
    );
    expect(named).toMatchObject({ title: "Mine", status: "error" });
  });
});

describe("searchThreads", () => {
  const threads = [
    view("a", { updated_at: "2026-01-03T00:00:00.000Z", metadata: { team: "x", n: 1 } }),
    view("b", {
      updated_at: "2026-01-01T00:00:00.000Z",
      metadata: { team: "y" },
      status: "interrupted",
    }),
    view("c", { updated_at: "2026-01-02T00:00:00.000Z", metadata: { team: "x", n: 2 } }),
  ];
  const base = { limit: 10, offset: 0, sortBy: "updated_at" as const, sortOrder: "desc" as const };

  it("sorts by last activity, newest first, and pages", () => {
    expect(searchThreads(threads, base).page.map((t) => t.thread_id)).toEqual(["a", "c", "b"]);
    const page = searchThreads(threads, { ...base, limit: 1, offset: 1 });
    expect(page.page.map((t) => t.thread_id)).toEqual(["c"]);
    expect(page.total).toBe(3);
    const asc = searchThreads(threads, { ...base, sortOrder: "asc" });
    expect(asc.page.map((t) => t.thread_id)).toEqual(["b", "c", "a"]);
  });

  it("filters by metadata (JSON equality) and status", () => {
    expect(
      searchThreads(threads, { ...base, metadata: { team: "x" } }).page.map((t) => t.thread_id),
    ).toEqual(["a", "c"]);
    expect(searchThreads(threads, { ...base, metadata: { n: 2 } }).total).toBe(1);
    expect(
      searchThreads(threads, { ...base, status: "interrupted" }).page.map((t) => t.thread_id),
    ).toEqual(["b"]);
    expect(matchesMetadata({ a: { b: 1 } }, { a: { b: 1 } })).toBe(true);
    expect(matchesMetadata({ a: 1 }, { a: "1" })).toBe(false);
  });
});
