import { describe, expect, it } from "vitest";
import { eventFilter, wantsSubgraphs } from "../../../src/server/run-fields";
import { selectRunFields } from "../../../src/server/run-select";
import { RunRecord } from "../../../src/server/runs";

const event = (name: string) => ({ id: "0", event: name, data: "{}" });

describe("eventFilter", () => {
  it("passes everything when nothing is asked", () => {
    expect(eventFilter({})).toBeUndefined();
  });

  it("keeps the namespaces asked for, by full name or by node names, and the control events", () => {
    const keep = eventFilter({ namespace: ["", "inner"] })!;
    expect(keep(event("values"))).toBe(true);
    expect(keep(event("values|inner:1f0a"))).toBe(true);
    expect(keep(event("values|inner:1f0a|deeper:2b"))).toBe(false);
    expect(keep(event("values|other:9"))).toBe(false);
    expect(keep(event("metadata"))).toBe(true);
    expect(keep(event("error"))).toBe(true);
    const exact = eventFilter({ namespace: "inner:1f0a" })!;
    expect(exact(event("updates|inner:1f0a"))).toBe(true);
    expect(exact(event("updates"))).toBe(false);
  });

  it("keeps the stream modes asked for, messages-tuple as messages, and refuses another", () => {
    const keep = eventFilter({ stream_mode: ["messages-tuple", "updates"] })!;
    expect(keep(event("messages"))).toBe(true);
    expect(keep(event("updates|inner:1"))).toBe(true);
    expect(keep(event("values"))).toBe(false);
    expect(() => eventFilter({ stream_mode: "events" })).toThrow(/^stream_mode: "events"/);
  });

  it("needs subgraph events only for a namespace other than the root", () => {
    expect(wantsSubgraphs([""])).toBe(false);
    expect(wantsSubgraphs(undefined)).toBe(false);
    expect(wantsSubgraphs(["", "inner"])).toBe(true);
  });
});

describe("selectRunFields", () => {
  const run = new RunRecord({
    threadId: "t",
    assistantId: "agent",
    metadata: {},
    multitaskStrategy: "enqueue",
    resumable: false,
    pending: true,
    kwargs: { input: { messages: [] }, command: null },
  });

  it("cuts each run to the fields named, and names a field a run does not have", () => {
    expect(selectRunFields([run], ["run_id", "kwargs"])).toEqual([
      { run_id: run.run_id, kwargs: { input: { messages: [] }, command: null } },
    ]);
    expect(selectRunFields([run], undefined)).toEqual([run]);
    expect(() => selectRunFields([run], ["nope"])).toThrow(/^select: a run has no field "nope"/);
  });

  it("lists a run's input only while it has not ended", () => {
    run.end("success");
    expect(selectRunFields([run], "kwargs")).toEqual([{ kwargs: {} }]);
  });
});
