import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioConfigError, StudioValidationError } from "../../../src/errors";
import { StudioCheckpointSaver } from "../../../src/langgraph";

/** A saver whose client records every request and never reaches a network. */
function offlineSaver() {
  const calls: string[] = [];
  const client = new StudioClient({
    apiKey: "k",
    baseUrl: "http://studio.invalid",
    proxyUrl: "http://proxy.invalid",
    maxRetries: 0,
    fetch: async (url) => {
      calls.push(String(url));
      throw new Error("offline");
    },
  });
  return { calls, saver: new StudioCheckpointSaver({ client }) };
}

const meta = { source: "input" as const, step: -1, parents: {} };

describe("StudioCheckpointSaver input checks", () => {
  it("refuses a client together with client options, and bad options, naming them", () => {
    const client = new StudioClient({ apiKey: "k", baseUrl: "http://studio.invalid" });
    expect(() => new StudioCheckpointSaver({ client, apiKey: "other" })).toThrow(StudioConfigError);
    for (const [fields, field] of [
      [{ client, datasetId: "" }, "datasetId"],
      [{ client, maxMessageChars: 10 }, "maxMessageChars"],
      [{ client, maxCachedThreads: 0 }, "maxCachedThreads"],
      [{ client, keep: "some" as never }, "keep"],
    ] as const) {
      expect(() => new StudioCheckpointSaver(fields)).toThrow(
        expect.objectContaining({ name: "StudioValidationError", field }),
      );
    }
  });

  it("raises before any request when a write has no thread_id or checkpoint_id", async () => {
    const { calls, saver } = offlineSaver();
    await expect(saver.put({ configurable: {} }, emptyCheckpoint(), meta, {})).rejects.toThrow(
      expect.objectContaining({ field: "config.configurable.thread_id" }),
    );
    await expect(
      saver.putWrites({ configurable: { thread_id: "t" } }, [["a", 1]], "task"),
    ).rejects.toThrow(expect.objectContaining({ field: "config.configurable.checkpoint_id" }));
    await expect(
      saver.put({ configurable: { thread_id: { id: 1 } } }, emptyCheckpoint(), meta, {}),
    ).rejects.toThrow(StudioValidationError);
    expect(calls).toEqual([]);
  });

  it("makes versions that count up and differ per write, as strings LangGraph compares", () => {
    const { saver } = offlineSaver();
    const first = String(saver.getNextVersion(undefined));
    const again = String(saver.getNextVersion(undefined));
    expect(first).not.toBe(again);
    expect(String(saver.getNextVersion(first as never)) > first).toBe(true);
    expect(String(saver.getNextVersion(7)).startsWith("0000000000000008.")).toBe(true);
  });

  it("refuses prune and deleteThreads options that make no sense, before any request", async () => {
    const { calls, saver } = offlineSaver();
    await expect(saver.prune(["t"], { keepLast: 1.5 })).rejects.toThrow(
      expect.objectContaining({ field: "keepLast" }),
    );
    await expect(saver.deleteThreads({ olderThan: "yesterday" as never })).rejects.toThrow(
      expect.objectContaining({ field: "olderThan" }),
    );
    expect(calls).toEqual([]);
  });

  it("answers getTuple without a thread_id with undefined, without a request", async () => {
    const { calls, saver } = offlineSaver();
    expect(await saver.getTuple({ configurable: {} })).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
