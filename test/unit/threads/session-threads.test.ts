/**
 * Session threads with the in-memory client: where a session's thread is filed, how a fresh
 * process finds it, the race rule (another process creates the same session's thread between this
 * one's look-up and its create), a thread deleted elsewhere, and a service that refuses made-up
 * dataset ids.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CreateThreadRequest, ListThreadsQuery, Thread } from "../../../src/api-types";
import { StudioAPIError } from "../../../src/errors";
import { SESSION_LAYOUT_KIND } from "../../../src/records/kinds";
import { LAYOUT_DATASET } from "../../../src/records/session-layout";
import { StudioWriteNotConfirmedError } from "../../../src/threads/errors";
import { sessionDatasetId } from "../../../src/threads/session-datasets";
import {
  createSessionThread,
  findSessionThread,
  forgetSessionThread,
} from "../../../src/threads/session-threads";
import { FakeThreads } from "./fake-client";

const policy = { maxAttempts: 2, confirmDelayMs: 0 };

function serverError(status: number): StudioAPIError {
  return StudioAPIError.fromResponse({ status, method: "GET", path: "/t", serverMessage: "x" });
}

/** The threads that hold a session (the account's filing record aside). */
function sessionThreads(fake: FakeThreads): Thread[] {
  return fake.threads.filter((t) => t.metadata?.lc_session !== undefined);
}

/** A fake where another process's create of the same session lands just before this one's. */
function racing(sessionId: string): FakeThreads {
  const fake = new FakeThreads();
  const create = fake.createThread.bind(fake);
  let raced = false;
  fake.createThread = async (body: CreateThreadRequest): Promise<Thread> => {
    if (!raced && body.metadata?.lc_session === sessionId) {
      raced = true;
      await create({
        ...(body.datasetId === undefined ? {} : { datasetId: body.datasetId }),
        metadata: { lc_session: sessionId, lc_kind: "history", lc_thread_key: "theirs" },
        messages: [{ role: "user", content: "theirs", metadata: { lc_id: "t1" } }],
      });
    }
    return create(body);
  };
  return fake;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("where a session's thread is filed, and how a fresh process finds it", () => {
  it("files the thread under the session's own dataset, which a fresh process lists in one call", async () => {
    const fake = new FakeThreads();
    for (let i = 0; i < 50; i++) {
      await fake.createThread({ metadata: { lc_session: `other-${i}`, lc_kind: "history" } });
    }
    const { threadId } = await createSessionThread(fake.asClient(), "s1", "history", { policy });
    const own = await sessionDatasetId("history", "s1");
    expect(own).toMatch(/^lc-history-[0-9a-f]{32}$/);
    expect(fake.threads.find((t) => t.id === threadId)?.datasetId).toBe(own);
    // The account records that it files sessions, once.
    expect(fake.threads.filter((t) => t.datasetId === LAYOUT_DATASET)).toEqual([
      expect.objectContaining({ metadata: { lc_kind: SESSION_LAYOUT_KIND.name } }),
    ]);

    const lists: ListThreadsQuery[] = [];
    const iterate = fake.iterateThreads.bind(fake);
    fake.iterateThreads = (query: ListThreadsQuery = {}) => {
      lists.push(query);
      return iterate(query);
    };
    expect(await findSessionThread(fake.anotherClient(), "s1", "history")).toBe(threadId);
    expect(lists).toEqual([{ datasetId: own, order: "asc", limit: 100 }]);

    // A new session: its dataset is empty and the account's record proves it new.
    lists.length = 0;
    expect(await findSessionThread(fake.anotherClient(), "s2", "history")).toBeUndefined();
    expect(lists.map((q) => q.datasetId)).toEqual([
      await sessionDatasetId("history", "s2"),
      LAYOUT_DATASET,
    ]);
    // Another kind is another session.
    expect(await findSessionThread(fake.anotherClient(), "s1", "checkpoint")).toBeUndefined();
  });

  it("without the account's record, proves a session new by listing the account", async () => {
    const fake = new FakeThreads();
    // An unfiled session thread, as a process that could not file it would leave.
    await fake.createThread({ metadata: { lc_session: "old", lc_kind: "history" } });
    fake.calls = [];
    expect(await findSessionThread(fake.anotherClient(), "old", "history")).toBe(
      fake.threads[0]?.id,
    );
    expect(fake.calls).toEqual(["listThreads:asc", "listThreads:asc", "listThreads:asc"]);
  });

  it("with the caller's datasetId, keeps the thread in that dataset and lists it", async () => {
    const fake = new FakeThreads();
    const { threadId } = await createSessionThread(fake.asClient(), "s1", "history", {
      datasetId: "evals",
      policy,
    });
    expect(fake.threads.map((t) => t.datasetId)).toEqual(["evals"]);
    expect(
      await findSessionThread(fake.anotherClient(), "s1", "history", { datasetId: "evals" }),
    ).toBe(threadId);
    // The same id without the dataset is another session.
    expect(await findSessionThread(fake.anotherClient(), "s1", "history")).toBeUndefined();
  });

  it("falls back to listing the account, with one warning, when the service refuses made-up dataset ids", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const fake = new FakeThreads();
    const create = fake.createThread.bind(fake);
    // Lists an unknown dataset as empty, but refuses it on create: the harder kind to notice.
    fake.createThread = async (body: CreateThreadRequest) => {
      if (body.datasetId?.startsWith("lc-")) {
        throw StudioAPIError.fromResponse({
          status: 404,
          method: "POST",
          path: "/v1/threads",
          serverMessage: `dataset ${body.datasetId} not found`,
        });
      }
      return create(body);
    };
    const first = await createSessionThread(fake.asClient(), "s1", "history", {
      messages: [{ role: "user", content: "hello" }],
      policy,
    });
    expect(first.created).toBe(true);
    expect(fake.threads).toEqual([
      expect.objectContaining({ id: first.threadId, datasetId: null }),
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/refused a dataset id.*listing every thread/);

    // Every process agrees on the thread, one that only reads included.
    expect(await findSessionThread(fake.anotherClient(), "s1", "history")).toBe(first.threadId);
    const again = await createSessionThread(fake.anotherClient(), "s1", "history", {
      messages: [{ role: "user", content: "again" }],
      policy,
    });
    expect(again).toEqual({ threadId: first.threadId, created: false });
    expect(fake.texts(first.threadId)).toEqual(["hello", "again"]);
    await createSessionThread(fake.asClient(), "s2", "history", { policy });
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe("createSessionThread: the race rule", () => {
  it("loses a race to an older thread: moves its messages there and deletes its own", async () => {
    const fake = racing("s1");
    const result = await createSessionThread(fake.asClient(), "s1", "history", {
      messages: [
        { role: "user", content: "mine-1" },
        { role: "assistant", content: "mine-2" },
      ],
      policy,
    });
    const [theirs] = sessionThreads(fake);
    expect(result).toEqual({ threadId: theirs?.id, created: false });
    expect(sessionThreads(fake)).toHaveLength(1);
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
    const [theirs, mine] = sessionThreads(fake);
    const e = error as StudioWriteNotConfirmedError;
    expect(e.threadId).toBe(theirs?.id);
    // Issue 28: its own thread holds the message, so it is never reported "not stored"; it is
    // unknown in the session's thread until the next look-up moves it there.
    expect(e.notStored).toEqual([]);
    expect(e.unknown).toEqual([0]);
    expect(e.message).toContain(theirs!.id);
    expect(e.message).toContain(mine!.id);
    expect(fake.texts(mine!.id)).toEqual(["mine"]);
    // The next look-up of the session in this process finishes the move and deletes its thread.
    expect(await findSessionThread(fake.asClient(), "s2", "history")).toBe(theirs!.id);
    expect(fake.texts(theirs!.id)).toContain("mine");
    expect(sessionThreads(fake).map((t) => t.id)).toEqual([theirs!.id]);
  });

  it("issue 28: a creation whose answer and key look-up were lost is found by its key on the next look-up, and moved if it lost a race", async () => {
    const fake = racing("s7");
    const create = fake.createThread.bind(fake);
    fake.createThread = async (body: CreateThreadRequest) => {
      const thread = await create(body);
      if (body.metadata?.lc_session === "s7" && body.metadata.lc_thread_key !== "theirs") {
        // Committed, but the answer is lost, and so is the listing that would find it by key.
        fake.listFailures.push(serverError(500));
        throw serverError(500);
      }
      return thread;
    };
    const error = await createSessionThread(fake.asClient(), "s7", "history", {
      messages: [{ role: "user", content: "mine" }],
      policy,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    expect((error as StudioWriteNotConfirmedError).unknown).toEqual([0]);
    const [theirs, mine] = sessionThreads(fake);
    expect(fake.texts(mine!.id)).toEqual(["mine"]);
    // The next look-up finds the thread by its key, moves its message and deletes it.
    expect(await findSessionThread(fake.asClient(), "s7", "history")).toBe(theirs!.id);
    expect(fake.texts(theirs!.id)).toEqual(["theirs", "mine"]);
    expect(sessionThreads(fake).map((t) => t.id)).toEqual([theirs!.id]);
  });

  it("issue 20.3: a lost race whose check failed is never taken for the session's thread; the next look-up moves its messages", async () => {
    const fake = racing("s5");
    // Right after this process's create, the listings that check for an older thread fail.
    const create = fake.createThread.bind(fake);
    fake.createThread = async (body: CreateThreadRequest) => {
      const thread = await create(body);
      if (body.metadata?.lc_thread_key !== "theirs" && body.metadata?.lc_session) {
        fake.listFailures = [serverError(503), serverError(503)];
      }
      return thread;
    };
    const client = fake.asClient();
    const error = (await createSessionThread(client, "s5", "history", {
      messages: [{ role: "user", content: "mine" }],
      policy,
    }).catch((e: unknown) => e)) as StudioWriteNotConfirmedError;
    const [theirs, mine] = sessionThreads(fake);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    expect(error).toMatchObject({ threadId: mine?.id, stored: [], unknown: [0] });
    expect(error.message).toContain("not known yet whether another process created");

    // The session's thread is the older one, never the younger, and the messages follow.
    expect(await findSessionThread(client, "s5", "history")).toBe(theirs?.id);
    expect(fake.texts(theirs!.id)).toEqual(["theirs", "mine"]);
    expect(sessionThreads(fake)).toHaveLength(1);
    const next = await createSessionThread(client, "s5", "history", {
      messages: [{ role: "user", content: "next" }],
      policy,
    });
    expect(next).toEqual({ threadId: theirs?.id, created: false });
  });

  it("reports a failed look-up before the create as nothing stored", async () => {
    const fake = new FakeThreads();
    fake.listFailures = [serverError(500)];
    const error = await createSessionThread(fake.asClient(), "s3", "checkpoint", {
      messages: [{ role: "user", content: "a" }],
      policy,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ threadId: undefined, stored: [], notStored: [0], unknown: [] });
    expect(fake.calls).not.toContain("createThread");
  });
});

describe("a session's thread deleted elsewhere", () => {
  it("forgetSessionThread makes the next look-up ask the service again", async () => {
    const fake = new FakeThreads();
    const client = fake.asClient();
    const { threadId } = await createSessionThread(client, "s4", "history", { policy });
    await fake.deleteThread(threadId);
    // Found before: no call, so the cache still answers.
    expect(await findSessionThread(client, "s4", "history")).toBe(threadId);
    forgetSessionThread(client, "s4", "history", undefined, threadId);
    expect(await findSessionThread(client, "s4", "history")).toBeUndefined();
  });

  it("issue 20.2: a write to it looks the session up again and lands whole in the session's thread", async () => {
    const fake = new FakeThreads();
    const client = fake.asClient();
    const { threadId: old } = await createSessionThread(client, "s6", "history", {
      messages: [{ role: "user", content: "before" }],
      policy,
    });
    await fake.deleteThread(old); // another process started the session over
    const again = await createSessionThread(client, "s6", "history", {
      messages: [
        { role: "user", content: "after-1" },
        { role: "assistant", content: "after-2" },
      ],
      policy,
    });
    expect(again.threadId).not.toBe(old);
    expect(fake.texts(again.threadId)).toEqual(["after-1", "after-2"]);
    expect(await findSessionThread(fake.anotherClient(), "s6", "history")).toBe(again.threadId);
  });
});

describe("session ids", () => {
  it("refuses an empty, over-long or not well-formed session id, naming the field", async () => {
    const client = new FakeThreads().asClient();
    await expect(findSessionThread(client, "", "history")).rejects.toMatchObject({
      field: "sessionId",
    });
    await expect(createSessionThread(client, "x".repeat(513), "history")).rejects.toMatchObject({
      field: "sessionId",
    });
    for (const lone of ["user-\ud800", "\udc00", "a\udbffb"]) {
      await expect(findSessionThread(client, lone, "history")).rejects.toMatchObject({
        name: "StudioValidationError",
        field: "sessionId",
        message: expect.stringMatching(/lone surrogate/),
      });
    }
    // A whole pair is fine, and hashes as its UTF-8.
    expect(await findSessionThread(client, "user-😀", "history")).toBeUndefined();
  });

  it("the session's dataset id is the SHA-256 of its kind and id as UTF-8", async () => {
    const { createHash } = await import("node:crypto");
    const hex = createHash("sha256").update("history\u0000user-😀", "utf8").digest("hex");
    expect(await sessionDatasetId("history", "user-😀")).toBe(`lc-history-${hex.slice(0, 32)}`);
  });
});
