/**
 * Protocol v2's pure parts: LangGraph's events turned into the server's (interrupts announced
 * once, `__interrupt__` and empty values left out, a graph's own channel as a named `custom`),
 * state messages in the protocol's shape, and a thread's event log (numbering, filters, replay
 * after `since`, the buffer's bound).
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  EventLogs,
  MAX_EVENTS,
  MAX_IDLE_THREADS,
  ThreadEventLog,
} from "../../../src/server/v2/event-log";
import { draftEvents } from "../../../src/server/v2/protocol-events";
import { stateValues } from "../../../src/server/v2/state-messages";

describe("draftEvents", () => {
  it("announces each interrupt once and leaves __interrupt__ out of the values", () => {
    const announced = new Set<string>();
    const interrupt = { id: "i1", value: { question: "ok?" } };
    const values = {
      method: "values",
      params: { namespace: [], data: { __interrupt__: [interrupt] } },
    };
    expect(draftEvents(values, announced)).toEqual([
      {
        method: "input.requested",
        namespace: [],
        data: { interrupt_id: "i1", payload: { question: "ok?" } },
      },
    ]);
    const update = {
      method: "updates",
      params: { namespace: [], data: { node: "__interrupt__", values: [interrupt] } },
    };
    expect(draftEvents(update, announced)).toEqual([]);
  });

  it("leaves the root's lifecycle to the run, and names a graph's own channel", () => {
    const announced = new Set<string>();
    const root = { method: "lifecycle", params: { namespace: [], data: { event: "started" } } };
    expect(draftEvents(root, announced)).toEqual([]);
    const child = {
      method: "lifecycle",
      params: { namespace: ["a:1"], data: { event: "started" } },
    };
    expect(draftEvents(child, announced)).toHaveLength(1);
    const own = { method: "custom:progress", params: { namespace: [], data: 3 } };
    expect(draftEvents(own, announced)).toEqual([
      { method: "custom", namespace: [], data: { name: "progress", payload: 3 } },
    ]);
  });

  it("replaces a task's config with the checkpoint it names", () => {
    const task = {
      method: "tasks",
      params: {
        namespace: [],
        data: { id: "t", state: { configurable: { thread_id: "th", checkpoint_ns: "n" } } },
      },
    };
    expect(draftEvents(task, new Set())[0]?.data).toEqual({
      id: "t",
      checkpoint: {
        thread_id: "th",
        checkpoint_id: null,
        checkpoint_ns: "n",
        checkpoint_map: null,
      },
    });
  });
});

describe("stateValues", () => {
  it("gives messages the protocol's shape, tool call arguments parsed", () => {
    const values = stateValues({
      messages: [
        new HumanMessage({ id: "h", content: "hi" }),
        new AIMessage({
          id: "a",
          content: "",
          tool_calls: [{ id: "c", name: "get_weather", args: { city: "Oslo" } }],
        }),
        new ToolMessage({ id: "t", content: "sunny", tool_call_id: "c", status: "success" }),
        {
          type: "ai",
          content: "",
          tool_calls: [{ id: "d", function: { name: "f", arguments: "{" } }],
        },
      ],
      count: 2,
    });
    expect(values).toEqual({
      messages: [
        { type: "human", content: "hi", id: "h" },
        {
          type: "ai",
          content: "",
          id: "a",
          tool_calls: [{ id: "c", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" }],
        },
        { type: "tool", content: "sunny", id: "t", tool_call_id: "c", status: "success" },
        {
          type: "ai",
          content: "",
          invalid_tool_calls: [
            { id: "d", name: "f", args: "{", error: "Malformed args.", type: "invalid_tool_call" },
          ],
        },
      ],
      count: 2,
    });
  });
});

function logWith(methods: { method: string; namespace: string[] }[]): ThreadEventLog {
  const log = new ThreadEventLog();
  for (const { method, namespace } of methods) log.append({ method, namespace, data: {} });
  return log;
}

async function take(
  log: ThreadEventLog,
  filter: Parameters<ThreadEventLog["follow"]>[0],
  n: number,
) {
  const closed = new AbortController();
  const seen: number[] = [];
  for await (const event of log.follow(filter, closed.signal)) {
    seen.push(event.seq);
    if (seen.length === n) closed.abort();
  }
  return seen;
}

describe("ThreadEventLog", () => {
  const events = [
    { method: "values", namespace: [] },
    { method: "messages", namespace: ["a:1"] },
    { method: "lifecycle", namespace: [] },
    { method: "messages", namespace: ["a:1", "b:2"] },
  ];

  it("replays what a filter matches, after `since`, then the live events", async () => {
    const log = logWith(events);
    expect(await take(log, { channels: ["messages", "values", "lifecycle"] }, 4)).toEqual([
      1, 2, 3, 4,
    ]);
    expect(await take(log, { channels: ["messages"], since: 2 }, 1)).toEqual([4]);
    expect(await take(log, { channels: ["messages"], namespaces: [["a"]], depth: 0 }, 1)).toEqual([
      2,
    ]);
    const live = take(log, { channels: ["values"], since: 4 }, 1);
    log.append({ method: "values", namespace: [], data: {} });
    expect(await live).toEqual([5]);
  });

  it("keeps at most MAX_EVENTS, numbering on; clear keeps the numbering", async () => {
    const log = new ThreadEventLog();
    for (let i = 0; i < MAX_EVENTS + 5; i++)
      log.append({ method: "values", namespace: [], data: {} });
    expect((await take(log, { channels: ["values"] }, 1))[0]).toBe(6);
    log.clear();
    log.append({ method: "values", namespace: [], data: {} });
    expect(await take(log, { channels: ["values"] }, 1)).toEqual([MAX_EVENTS + 6]);
  });
});

describe("EventLogs", () => {
  it("keeps the logs of at most MAX_IDLE_THREADS idle threads, a live one whatever its age", () => {
    const logs = new EventLogs();
    logs.of("live").live = 1;
    for (let i = 0; i <= MAX_IDLE_THREADS; i++) {
      logs.of(`t${i}`).append({ method: "values", namespace: [], data: {} });
    }
    // The oldest idle log went when the newest came; the live one, older still, stayed.
    expect(logs.of("live").live).toBe(1);
    expect(logs.of(`t${MAX_IDLE_THREADS}`).lastSeq).toBe(1);
    expect(logs.of("t1").lastSeq).toBe(1);
    expect(logs.of("t0").lastSeq).toBe(0);
  });
});
