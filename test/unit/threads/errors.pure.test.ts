import { describe, expect, it } from "vitest";
import { StudioTimeoutError } from "../../../src/errors";
import { StudioWriteNotConfirmedError } from "../../../src/threads/errors";

describe("StudioWriteNotConfirmedError", () => {
  it("says which messages are stored, not stored and unknown, in which thread, and why", () => {
    const cause = new StudioTimeoutError("POST", "/v1/threads/thread_9/messages", 100);
    const error = new StudioWriteNotConfirmedError({
      threadId: "thread_9",
      stored: [0, 1],
      unknown: [2],
      notStored: [3, 4],
      totalCount: 5,
      attempts: 3,
      what: "store message 3 of 5 in thread thread_9",
      cause,
    });
    expect(error.message).toMatch(
      /^Could not store message 3 of 5 in thread thread_9 after 3 attempt\(s\) \(last error: POST \/v1\/threads\/thread_9\/messages timed out.*\)\. Thread thread_9\. Of 5 message\(s\): messages 1-2 stored; message 3 unknown \(may or may not be stored\); messages 4-5 not stored\. Call addMessages again on this history with the same message objects/,
    );
    expect(error.cause).toBe(cause);
    expect(error.storedCount).toBe(2);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: "StudioWriteNotConfirmedError",
      threadId: "thread_9",
      stored: [0, 1],
      unknown: [2],
      notStored: [3, 4],
      totalCount: 5,
    });
  });

  it("names an unknown thread and lists scattered indexes", () => {
    const error = new StudioWriteNotConfirmedError({
      threadId: undefined,
      stored: [],
      unknown: [0, 2],
      notStored: [1],
      totalCount: 3,
      attempts: 1,
      what: "create the thread",
      cause: new Error("socket hang up"),
    });
    expect(error.message).toContain("its id is unknown");
    expect(error.message).toContain("messages 1, 3 unknown");
    expect(error.message).toContain("message 2 not stored");
  });
});
