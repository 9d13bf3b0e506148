/**
 * What redisCoordination keeps in Redis outlives the version that wrote it (docs/storage.md, "In
 * Redis"): a run as format 1 stored it (test/fixtures/redis/redis-run.json, written by a real
 * run) is read back by this version's instances (its record, the run list, a join replaying its
 * events), and a record of a newer format is an error naming it, never a run read wrongly.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisCoordination } from "../../src/server/redis";
import { useEmulator } from "../helpers/emulator";
import { REPO_ROOT } from "../helpers/run-command";
import { sdkClient, studioServer } from "../integration/server/harness";
import { type RedisServer, startRedisServer } from "../setup/redis-server";

interface Fixture {
  threadId: string;
  runId: string;
  record: Record<string, string>;
  events: { id: string; fields: string[] }[];
  runs: string[];
}

const fixture = JSON.parse(
  readFileSync(path.join(REPO_ROOT, "test/fixtures/redis/redis-run.json"), "utf8"),
) as Fixture;

const emulator = useEmulator();
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.close();
});

/**
 * Writes the fixture's keys into an empty Redis for `threadId` (a thread of this emulator: the
 * fixture's thread id is replaced wherever it is written), its record changed by `change`.
 */
async function load(threadId: string, change: Record<string, string> = {}): Promise<void> {
  const moved = (text: string) => text.replaceAll(fixture.threadId, threadId);
  const record = Object.entries({ ...fixture.record, ...change }).flatMap(([k, v]) => [
    k,
    moved(v),
  ]);
  const admin = createClient({ url: redis.url, RESP: 2 });
  await admin.connect();
  await admin.flushAll();
  await admin.sendCommand(["HSET", `lcs:r:${fixture.runId}`, ...record]);
  for (const { id, fields } of fixture.events) {
    await admin.sendCommand(["XADD", `lcs:e:${fixture.runId}`, id, ...fields.map(moved)]);
  }
  const [member = "", score = ""] = fixture.runs;
  await admin.sendCommand(["ZADD", `lcs:t:${threadId}:runs`, score, member]);
  await admin.close();
}

function server(reported: unknown[] = []) {
  const { handler } = studioServer(emulator.handle, {
    coordination: redisCoordination({ url: redis.url }),
    onError: (error) => reported.push(error),
  });
  return { handler, sdk: sdkClient(handler) };
}

describe("the run records redisCoordination keeps in Redis", () => {
  it("reads a format-1 run back: its record, the run list, and a join replaying its events", async () => {
    const { handler, sdk } = server();
    const { thread_id: threadId } = await sdk.threads.create();
    await load(threadId);
    try {
      const run = await sdk.runs.get(threadId, fixture.runId);
      expect(run).toMatchObject({
        run_id: fixture.runId,
        thread_id: threadId,
        assistant_id: "agent",
        status: "success",
        kwargs: {},
      });
      const listed = await sdk.runs.list(threadId);
      expect(listed.map((r) => r.run_id)).toEqual([fixture.runId]);
      const joined = await handler(
        new Request(`http://agent.test/threads/${threadId}/runs/${fixture.runId}/stream`),
      );
      const frames = (await joined.text()).split("\n\n").filter((f) => f.startsWith("event:"));
      const stored = fixture.events.filter((e) => e.id !== "1-0");
      expect(frames.map((f) => /^event: (.*)$/m.exec(f)?.[1])).toEqual(
        stored.map((e) => e.fields[1]),
      );
      const waited = await sdk.runs.join(threadId, fixture.runId);
      expect(JSON.stringify(waited)).toContain("weather in Oslo?");
    } finally {
      await handler.close();
    }
  });

  it("refuses a run record of a newer format, naming it, rather than reading it wrongly", async () => {
    const reported: unknown[] = [];
    const { handler, sdk } = server(reported);
    const { thread_id: threadId } = await sdk.threads.create();
    await load(threadId, { format: "2" });
    try {
      const error = await sdk.runs.get(threadId, fixture.runId).catch((e: unknown) => e);
      expect((error as { status?: number }).status).toBe(500);
      expect(reported).toHaveLength(1);
      expect(reported[0]).toMatchObject({
        name: "StudioStoredFormatError",
        kind: "redis-run",
        format: 2,
        newestReadable: 1,
      });
    } finally {
      await handler.close();
    }
  });
});
