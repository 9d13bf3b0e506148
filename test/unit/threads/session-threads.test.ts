/**
 * The race rule of session threads, made deterministic with the in-memory client: another process
 * creates the same session's thread between this one's look-up and its create.
 */
import { describe, expect, it } from "vitest";
import type { CreateThreadRequest, Thread } from "../../../src/api-types";
import { StudioAPIError } from "../../../src/errors";
import { StudioWriteNotConfirmedError } from "../../../src/threads/errors";
import {
  createSessionThread,
  findSessionThread,
  forgetSessionThread,
} from "../../../src/threads/session-threads";
import { FakeThreads } from "./fake-client";

const policy = { maxAttempts: 2, confirmDelayMs: 0 };

/** A fake where another process's create lands just before this one's. */
function racing(sessionId: string): FakeThreads {
  const fake = new FakeThreads();
  const create = fake.createThread.bind(fake);
  let raced = false;
  fake.createThread = async (body: CreateThreadRequest): Promise<Thread> => {
    if (!raced) {
      raced = true;
      await create({
        metadata: { lc_session: sessionId, lc_kind: "history", lc_thread_key: "theirs" },
        messages: [{ role: "user", content: "theirs", metadata: { lc_id: "t1" } }],
      });
    }
    return create(body);
  };
  return fake;
}

describe("createSessionThread", () => {
  it("loses a race to an older thread: moves its messages there and deletes its own", async () => {
    const fake = racing("s1");
    const result = await createSessionThread(fake.asClient(), "s1", "history", {
      messages: [
        { role: "user", content: "mine-1" },
        { role: "assistant", content: "mine-2" },
      ],
      policy,
    });
    const [theirs] = fake.threads;
    expect(result).toEqual({ threadId: theirs?.id, created: false });
    expect(fake.threads).toHaveLength(1);
    expect(fake.texts(theirs!.id)).toEqual(["theirs", "mine-1", "mine-2"]);
    expect(await findSessionThread(fake.asClient(), "s1", "history")).toBe(theirs?.id);
  });

  it("raises naming both threads when the move fails, leaving its own thread in place", async () => {
    const fake = racing("s2");
    const limited = () =>
      StudioAPIError.fromResponse({
        status: 429,
        method: "POST",
        path: "/m",
        serverMessage: "slow",
      });
    fake.messageSteps = [{ before: limited() }];
    const error = await createSessionThread(fake.asClient(), "s2", "history", {
      messages: [{ role: "user", content: "mine" }],
      policy,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    const [theirs, mine] = fake.threads;
    const e = error as StudioWriteNotConfirmedError;
    expect(e.threadId).toBe(theirs?.id);
    expect(e.notStored).toEqual([0]);
    expect(e.message).toContain(theirs!.id);
    expect(e.message).toContain(mine!.id);
    expect(fake.texts(mine!.id)).toEqual(["mine"]);
  });

  it("reports a failed look-up before the create as nothing stored", async () => {
    const fake = new FakeThreads();
    fake.listFailures = [
      StudioAPIError.fromResponse({ status: 500, method: "GET", path: "/t", serverMessage: "x" }),
    ];
    const error = await createSessionThread(fake.asClient(), "s3", "checkpoint", {
      messages: [{ role: "user", content: "a" }],
      policy,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ threadId: undefined, stored: [], notStored: [0], unknown: [] });
    expect(fake.calls).not.toContain("createThread");
  });

  it("forgets a deleted thread so that the next look-up lists again", async () => {
    const fake = new FakeThreads();
    const client = fake.asClient();
    const { threadId } = await createSessionThread(client, "s4", "history", { policy });
    await fake.deleteThread(threadId);
    expect(await findSessionThread(client, "s4", "history")).toBe(threadId);
    forgetSessionThread(client, "s4", "history", undefined, threadId);
    expect(await findSessionThread(client, "s4", "history")).toBeUndefined();
  });

  it("refuses an empty or over-long session id", async () => {
    const client = new FakeThreads().asClient();
    await expect(findSessionThread(client, "", "history")).rejects.toMatchObject({
      field: "sessionId",
    });
    await expect(createSessionThread(client, "x".repeat(513), "history")).rejects.toMatchObject({
      field: "sessionId",
    });
  });
});
