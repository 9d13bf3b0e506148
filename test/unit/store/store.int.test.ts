/**
 * StudioStore against the emulator: what each operation costs in calls (counted with a wrapped
 * fetch) and that it does not grow with the store's size or age, TTL, writers in two processes,
 * failures, and the checks made before anything is sent.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioError } from "../../../src/errors";
import { StudioStore, type StudioStoreFields } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ recordRequests: false });
/** Tests that write dozens of namespaces or items: a bound for a loaded machine. */
const FILL_TIMEOUT_MS = 30_000;

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A store with a client of its own (a process of its own) whose calls are counted. */
function counted(fields: Omit<StudioStoreFields, "client"> = {}, fail?: (url: string) => boolean) {
  const calls: string[] = [];
  const { baseUrl, apiKey } = emulator.handle;
  const client = new StudioClient({
    baseUrl,
    apiKey,
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname.replace(/^\/studio/, "");
      calls.push(`${request.method} ${path}`);
      if (fail?.(`${request.method} ${path}`)) {
        return Response.json({ error: { message: "refused by the test" } }, { status: 400 });
      }
      return fetch(request);
    },
  });
  const store = new StudioStore({ client, ...fields });
  return {
    store,
    calls,
    /** Calls made by `run`. */
    async cost(run: (s: StudioStore) => Promise<unknown>): Promise<string[]> {
      const before = calls.length;
      await run(store);
      return calls.slice(before);
    },
  };
}

function plainClient(): StudioClient {
  const { baseUrl, apiKey } = emulator.handle;
  return new StudioClient({ baseUrl, apiKey });
}

async function fill(namespaces: number): Promise<void> {
  const { store } = counted();
  for (let i = 0; i < namespaces; i++) await store.put(["users", `u${i}`, "memories"], "m", { i });
}

describe("cost in calls", () => {
  it("a get is one call, a put or delete two, once the process knows the namespace", async () => {
    const { cost } = counted();
    await cost((s) => s.put(["users", "ada"], "prefs", { theme: "dark" }));
    expect(await cost((s) => s.get(["users", "ada"], "prefs"))).toEqual([
      expect.stringMatching(/^GET \/v1\/threads\/[^/]+\/messages$/),
    ]);
    expect(await cost((s) => s.put(["users", "ada"], "prefs", { theme: "light" }))).toEqual([
      expect.stringMatching(/^GET \/v1\/threads\/[^/]+\/messages$/),
      expect.stringMatching(/^POST \/v1\/threads\/[^/]+\/messages$/),
    ]);
    expect(await cost((s) => s.delete(["users", "ada"], "prefs"))).toHaveLength(2);
    expect(await cost((s) => s.search(["users", "ada"]))).toHaveLength(1);
    // A batch reads each namespace once and writes it once.
    const batch = await cost((s) =>
      s.batch([
        { namespace: ["users", "ada"], key: "a" },
        { namespace: ["users", "ada"], key: "a", value: { x: 1 } },
        { namespace: ["users", "ada"], key: "b", value: { x: 2 } },
      ]),
    );
    expect(batch).toHaveLength(2);
  });

  it(
    "a fresh process's get costs the same with 1 or 20 namespaces in the store",
    async () => {
      await fill(1);
      const small = await counted().cost((s) => s.get(["users", "u0", "memories"], "m"));
      await fill(20);
      const large = await counted().cost((s) => s.get(["users", "u0", "memories"], "m"));
      expect(small).toHaveLength(2);
      expect(large).toEqual(small);
      // A namespace that does not exist costs its look-up, and once per process the check that the
      // account files sessions by dataset (which is what lets an empty listing prove it absent).
      expect(await counted().cost((s) => s.get(["users", "nobody"], "m"))).toEqual([
        expect.stringMatching(/^GET \/v1\/threads$/),
        expect.stringMatching(/^GET \/v1\/threads$/),
      ]);
    },
    FILL_TIMEOUT_MS,
  );

  it(
    "searching a user's namespace reads that subtree only, not the other users'",
    async () => {
      await fill(20);
      const { cost } = counted();
      // Look-up and read of the namespace: the 19 other users are never listed.
      expect(await cost((s) => s.search(["users", "u7"]))).toHaveLength(4);
      const page = await counted().store.search(["users", "u7"]);
      expect(page.map((item) => item.value)).toEqual([{ i: 7 }]);
    },
    FILL_TIMEOUT_MS,
  );

  it(
    "a fresh process reads a key written 150 times in 2 calls: compaction keeps threads short",
    async () => {
      const { store } = counted();
      for (let i = 0; i < 150; i++) await store.put(["hot"], "counter", { i });
      const calls = await counted().cost(async (s) => {
        expect((await s.get(["hot"], "counter"))?.value).toEqual({ i: 149 });
      });
      expect(calls).toHaveLength(2);
    },
    FILL_TIMEOUT_MS,
  );
});

describe("search over a prefix", () => {
  /** A store whose reads of thread messages are counted, with the most in flight at once. */
  function concurrencyCounted(maxConcurrentReads?: number) {
    const seen = { reads: 0, inFlight: 0, maxInFlight: 0 };
    const { baseUrl, apiKey } = emulator.handle;
    const client = new StudioClient({
      baseUrl,
      apiKey,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.reads += 1;
        seen.inFlight += 1;
        seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
        try {
          // A round trip long enough for reads to overlap when they are sent together.
          await new Promise((resolve) => setTimeout(resolve, 5));
          return await fetch(request);
        } finally {
          seen.inFlight -= 1;
        }
      },
    });
    return { store: new StudioStore({ client, maxConcurrentReads }), seen };
  }

  it(
    "reads its namespaces concurrently, at most maxConcurrentReads at once, one call each once known",
    async () => {
      await fill(20); // ["users"], 20 users, each with ["memories"]: 41 namespaces to read
      const { store, seen } = concurrencyCounted(8);
      expect(await store.search(["users"], { limit: 100 })).toHaveLength(20);
      expect(seen.maxInFlight).toBe(8);
      seen.reads = 0;
      seen.maxInFlight = 0;
      const page = await store.search(["users"], { limit: 100 });
      expect(page.map((item) => item.value)).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
      expect(seen.reads).toBe(41);
      expect(seen.maxInFlight).toBe(8);
      // The default reads more at once; listing walks the same way.
      const wide = concurrencyCounted();
      expect(await wide.store.listNamespaces({ prefix: ["users"] })).toHaveLength(20);
      expect(wide.seen.maxInFlight).toBeGreaterThan(8);
      expect(wide.seen.maxInFlight).toBeLessThanOrEqual(32);
    },
    FILL_TIMEOUT_MS,
  );
});

describe("TTL", () => {
  it("hides an item once expired, moves expiry on reads, and sweeps expired values away", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const { store } = counted({ ttl: { defaultTtl: 10 } });
    await store.put(["s"], "default", { text: "ten minutes" });
    await store.put(["s"], "short", { text: "one minute" }, undefined, { ttl: 1 });
    await store.put(["s"], "forever", { text: "no ttl" }, undefined, { ttl: null });

    vi.setSystemTime(new Date("2030-01-01T00:00:50Z"));
    expect(await store.get(["s"], "short")).not.toBeNull(); // read: expires at 00:01:50 now
    vi.setSystemTime(new Date("2030-01-01T00:01:40Z"));
    expect(await store.get(["s"], "short")).not.toBeNull();
    // Another process sees the refreshed expiry too.
    expect(await counted().store.get(["s"], "short")).not.toBeNull();

    vi.setSystemTime(new Date("2030-01-01T00:20:00Z"));
    const other = counted().store;
    expect(await other.get(["s"], "short")).toBeNull();
    expect(await other.get(["s"], "default")).toBeNull();
    expect((await other.search(["s"])).map((item) => item.key)).toEqual(["forever"]);

    expect(await other.sweepExpiredItems()).toBe(2);
    const client = plainClient();
    const texts: string[] = [];
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      for await (const message of client.iterateMessages(thread.id, { order: "asc" })) {
        texts.push(JSON.stringify(message.content));
      }
    }
    expect(texts.join("\n")).not.toContain("ten minutes");
    expect(texts.join("\n")).not.toContain("one minute");
    expect(texts.join("\n")).toContain("no ttl");
    expect(await other.listNamespaces()).toEqual([["s"]]);
  });

  it("does not refresh on read when refreshOnRead is false", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const { store, cost } = counted({ ttl: { defaultTtl: 1, refreshOnRead: false } });
    await store.put(["s"], "k", { v: 1 });
    vi.setSystemTime(new Date("2030-01-01T00:00:50Z"));
    expect(await cost((s) => s.get(["s"], "k"))).toHaveLength(1);
    vi.setSystemTime(new Date("2030-01-01T00:01:10Z"));
    expect(await store.get(["s"], "k")).toBeNull();
  });
});

describe("TTL across processes and compactions", () => {
  it("a warm reader in another process sees the expiry a compaction folded from a read-refresh", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const a = counted({ ttl: { defaultTtl: 1 } }).store;
    // B only reads (no refresh of its own), as a worker that serves lookups.
    const b = counted({ ttl: { refreshOnRead: false } }).store;
    await a.put(["ttl"], "kept", { v: "read often" });
    await a.put(["ttl"], "gone", { v: "short" }, undefined, { ttl: 0.05 });
    expect(await b.get(["ttl"], "kept")).not.toBeNull(); // B has read the namespace: warm

    vi.setSystemTime(new Date("2030-01-01T00:00:50Z"));
    expect(await a.get(["ttl"], "kept")).not.toBeNull(); // refreshed: expires at 00:01:50
    // "gone" expired over a minute ago: the sweep compacts the namespace, folding the refresh into
    // a copy of "kept" and deleting the messages B read.
    vi.setSystemTime(new Date("2030-01-01T00:01:10Z"));
    expect(await a.sweepExpiredItems()).toBe(1);

    vi.setSystemTime(new Date("2030-01-01T00:01:20Z"));
    expect((await b.get(["ttl"], "kept"))?.value).toEqual({ v: "read often" });
    expect((await b.search(["ttl"])).map((item) => item.key)).toEqual(["kept"]);
    const fresh = counted({ ttl: { refreshOnRead: false } }).store;
    expect((await fresh.get(["ttl"], "kept"))?.value).toEqual({ v: "read often" });

    vi.setSystemTime(new Date("2030-01-01T00:01:51Z"));
    expect(await b.get(["ttl"], "kept")).toBeNull();
  });
});

describe("shared between processes", () => {
  it("the newest write wins in every process, and a delete is seen by all", async () => {
    const a = counted().store;
    const b = counted().store;
    await a.put(["team"], "lead", { name: "Ada" });
    expect((await b.get(["team"], "lead"))?.value).toEqual({ name: "Ada" });
    await b.put(["team"], "lead", { name: "Grace" });
    await a.put(["team"], "size", { n: 2 });
    expect((await a.get(["team"], "lead"))?.value).toEqual({ name: "Grace" });
    await a.delete(["team"], "lead");
    expect(await b.get(["team"], "lead")).toBeNull();
    expect((await b.search(["team"])).map((item) => item.key)).toEqual(["size"]);
  });

  it("starts over when another process deletes a namespace's thread", async () => {
    const a = counted().store;
    await a.put(["gone"], "k", { v: 1 });
    const client = plainClient();
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      if (thread.title === "LangGraph store: gone") await client.deleteThread(thread.id);
    }
    expect(await a.get(["gone"], "k")).toBeNull();
    await a.put(["gone"], "k", { v: 2 });
    expect((await counted().store.get(["gone"], "k"))?.value).toEqual({ v: 2 });
  });
});

describe("failures and checks", () => {
  it("says what is stored when a write fails, and that writing again is safe", async () => {
    const { store } = counted({}, (call) => call.startsWith("POST") && call.endsWith("/messages"));
    await store.put(["fresh"], "k", { v: 1 }); // created with its thread: no message POST
    const error = await store.put(["fresh"], "k", { v: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect((error as Error).message).toMatch(
      /^Could not store the write of key "k" in namespace \["fresh"\] \(thread [^)]+\): .*It is not stored\. Writing again is safe/,
    );
  });

  it("checks options and operations before anything is sent", async () => {
    const { store, calls } = counted({ maxMessageChars: 1_000 });
    const checks: [() => unknown, string][] = [
      [() => new StudioStore({ client: new StudioClient(), datasetId: "" }), "datasetId"],
      [
        () => new StudioStore({ client: new StudioClient(), maxMessageChars: 5 }),
        "maxMessageChars",
      ],
      [
        () => new StudioStore({ client: new StudioClient(), ttl: { defaultTtl: 0 } }),
        "ttl.defaultTtl",
      ],
      [
        () => new StudioStore({ client: new StudioClient(), index: { dims: 3 } as never }),
        "index.embeddings",
      ],
    ];
    for (const [build, field] of checks) {
      expect(build, field).toThrow(
        expect.objectContaining({ name: "StudioValidationError", field }),
      );
    }
    const refused: [Promise<unknown>, string][] = [
      [store.batch([{ namespace: ["a"], key: "k", value: [1] as never }]), "operations[0].value"],
      [store.put(["a"], "k", { v: 1 }, undefined, { ttl: -1 }), "operations[0].ttl"],
      [store.search(["a"], { limit: 1.5 }), "operations[0].limit"],
      [store.batch([{ nothing: true } as never]), "operations[0]"],
    ];
    for (const [promise, field] of refused) {
      await expect(promise, field).rejects.toThrow(
        expect.objectContaining({ name: "StudioValidationError", field }),
      );
    }
    await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toThrow(/periods/);
    expect(calls).toEqual([]);
  });
});
