/**
 * What a run needs before it starts, as pure functions: the input's size against
 * `maxInputBytes`, and the checkpoint it names to start from (by `checkpoint_id`, the SDK's
 * `checkpoint`, or the config's `configurable`).
 */
import { describe, expect, it } from "vitest";
import type { RunCreate } from "../../../src/server/requests";
import { checkInputSize, inputBytes, startCheckpoint } from "../../../src/server/run-admission";

const run = (fields: Partial<RunCreate>): RunCreate => ({ assistant_id: "agent", ...fields });

describe("inputBytes and checkInputSize", () => {
  it("counts the input and the command as UTF-8 JSON", () => {
    expect(inputBytes(run({}))).toBe("[null,null]".length);
    expect(inputBytes(run({ input: { t: "é" } }))).toBe('[{"t":"é"},null]'.length + 1);
    expect(inputBytes(run({ command: { resume: "yes" } }))).toBe('[null,{"resume":"yes"}]'.length);
  });

  it("accepts an input at the limit and refuses one over it with a 413 naming the limit", () => {
    const body = run({ input: "x".repeat(100) });
    const size = inputBytes(body);
    expect(() => checkInputSize(body, size)).not.toThrow();
    expect(() => checkInputSize(body, size - 1)).toThrow(
      `the run's input is ${size} bytes, over the server's maxInputBytes (${size - 1}); send a shorter message`,
    );
    try {
      checkInputSize(body, 1);
    } catch (error) {
      expect(error).toMatchObject({ status: 413, kind: "Payload Too Large" });
    }
  });
});

describe("startCheckpoint", () => {
  it("is undefined for a run from the thread's latest state", () => {
    expect(startCheckpoint("t1", run({}))).toBeUndefined();
    expect(startCheckpoint("t1", run({ checkpoint_id: "" }))).toBeUndefined();
  });

  it("reads checkpoint_id, the SDK's checkpoint and the config's configurable", () => {
    expect(startCheckpoint("t1", run({ checkpoint_id: "c1" }))).toEqual({
      checkpoint_id: "c1",
      checkpoint_ns: "",
    });
    expect(
      startCheckpoint("t1", run({ checkpoint: { checkpoint_id: "c2", checkpoint_ns: "sub" } })),
    ).toEqual({ checkpoint_id: "c2", checkpoint_ns: "sub" });
    expect(
      startCheckpoint("t1", run({ config: { configurable: { checkpoint_id: "c3" } } })),
    ).toEqual({ checkpoint_id: "c3", checkpoint_ns: "" });
  });
});
