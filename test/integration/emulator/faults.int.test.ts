import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ErrorBody, ListResponse, Thread, ThreadMessage } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { startEmulator } from "../../../src/emulator";
import { useEmulator } from "../../helpers/emulator";
import { call, inference, studio } from "./http";

const emulator = useEmulator();

beforeEach(async () => {
  emulator.handle.setFaults(undefined);
  await emulator.handle.reset();
});
afterEach(() => {
  emulator.handle.setFaults(undefined);
});

async function threadCount(): Promise<number> {
  emulator.handle.setFaults(undefined);
  const r = await studio<ListResponse<Thread>>(
    emulator.handle,
    "GET",
    `${PATHS.threads}?limit=100`,
  );
  return r.body.data.length;
}

/** A request whose connection is destroyed: undici rejects with a socket error. */
async function expectReset(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );
  expect(error).toBeDefined();
  expect(String(error?.code ?? error?.message)).toMatch(
    /UND_ERR_SOCKET|ECONNRESET|other side closed|socket/i,
  );
}

describe("fault injection", () => {
  it("rate429: 429 with Retry-After and a JSON error", async () => {
    emulator.handle.setFaults({ rate429: 1, retryAfterSeconds: 3 });
    const r = await studio<ErrorBody>(emulator.handle, "POST", PATHS.threads, {});
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("3");
    expect(r.body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(await threadCount()).toBe(0);
  });

  it("rate429 defaults Retry-After to 0", async () => {
    emulator.handle.setFaults("rate429=1");
    const r = await studio(emulator.handle, "GET", PATHS.threads);
    expect(r.headers["retry-after"]).toBe("0");
  });

  it.each([
    ["rate500Before", 500],
    ["rate503Before", 503],
  ])("%s: fails before the work, nothing is committed", async (kind, status) => {
    emulator.handle.setFaults({ [kind]: 1 });
    const r = await studio<ErrorBody>(emulator.handle, "POST", PATHS.threads, {});
    expect(r.status).toBe(status);
    expect(r.body.error.message).toMatch(/injected/);
    expect(await threadCount()).toBe(0);
  });

  it("rate500After: the work is committed, then 500", async () => {
    emulator.handle.setFaults({ rate500After: 1 });
    const r = await studio<ErrorBody>(emulator.handle, "POST", PATHS.threads, {
      title: "committed",
    });
    expect(r.status).toBe(500);
    expect(await threadCount()).toBe(1);
  });

  it("rate500After on add message: the message is stored although the caller saw 500", async () => {
    const thread = (await studio<Thread>(emulator.handle, "POST", PATHS.threads, {})).body;
    emulator.handle.setFaults({ rate500After: 1, match: "/messages" });
    const r = await studio(emulator.handle, "POST", PATHS.messages(thread.id), {
      role: "user",
      content: "dup?",
    });
    expect(r.status).toBe(500);
    emulator.handle.setFaults(undefined);
    const listed = await studio<ListResponse<ThreadMessage>>(
      emulator.handle,
      "GET",
      `${PATHS.messages(thread.id)}?order=asc`,
    );
    expect(listed.body.data.map((m) => m.content[0]!.text)).toEqual(["dup?"]);
  });

  it("resetBefore: the connection drops and nothing is committed", async () => {
    emulator.handle.setFaults({ resetBefore: 1 });
    await expectReset(studio(emulator.handle, "POST", PATHS.threads, {}));
    expect(await threadCount()).toBe(0);
  });

  it("resetAfter: the connection drops after the work was committed", async () => {
    emulator.handle.setFaults({ resetAfter: 1 });
    await expectReset(studio(emulator.handle, "POST", PATHS.threads, {}));
    expect(await threadCount()).toBe(1);
  });

  it("streamCut: a streamed completion stops after a few chunks, without [DONE]", async () => {
    emulator.handle.setFaults({ streamCut: 1 });
    const partial: string[] = [];
    const error = await (async () => {
      const { request } = await import("undici");
      const response = await request(`${emulator.handle.proxyUrl}${PATHS.chatCompletions}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: emulator.handle.apiKey },
        body: JSON.stringify({
          model: "studio/echo-small",
          stream: true,
          messages: [
            { role: "user", content: "a long enough reply to be cut somewhere in the middle" },
          ],
        }),
      });
      expect(response.statusCode).toBe(200);
      for await (const chunk of response.body) partial.push(String(chunk));
      return undefined;
    })().catch((e: unknown) => e);
    expect(error).toBeDefined();
    const text = partial.join("");
    expect(text).not.toContain("[DONE]");
    const events = text.split("\n\n").filter((b) => b.startsWith("data: "));
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.length).toBeLessThanOrEqual(4);
    expect(text).not.toContain('"finish_reason":"stop"');
  });

  it("streamCut leaves non-streamed calls alone", async () => {
    emulator.handle.setFaults({ streamCut: 1 });
    const r = await inference(emulator.handle, PATHS.chatCompletions, {
      model: "studio/echo-small",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.status).toBe(200);
  });

  it("latencyMs: the answer waits at least that long", async () => {
    emulator.handle.setFaults({ latencyMs: 120 });
    const started = performance.now();
    const r = await studio(emulator.handle, "GET", PATHS.threads);
    expect(r.status).toBe(200);
    // A lower bound only (timers may fire a millisecond early); no upper bound is asserted.
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it("match: only matching paths get faults", async () => {
    emulator.handle.setFaults("rate500Before=1,match=/chat/completions");
    expect((await studio(emulator.handle, "POST", PATHS.threads, {})).status).toBe(200);
    const r = await inference(emulator.handle, PATHS.chatCompletions, {
      model: "studio/echo-small",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.status).toBe(500);
  });

  it("draws are reproducible for a seed, across reset() and across instances", async () => {
    const statuses = async (handle: typeof emulator.handle) => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await studio(handle, "GET", PATHS.threads)).status);
      return out;
    };
    const a = await startEmulator({ port: 0, seed: 42, faults: "rate429=0.3,rate503Before=0.2" });
    const b = await startEmulator({
      port: 0,
      seed: 42,
      faults: { rate429: 0.3, rate503Before: 0.2 },
    });
    const c = await startEmulator({ port: 0, seed: 7, faults: "rate429=0.3,rate503Before=0.2" });
    try {
      const first = await statuses(a);
      expect(new Set(first)).toEqual(new Set([200, 429, 503]));
      await a.reset();
      expect(await statuses(a)).toEqual(first);
      expect(await statuses(b)).toEqual(first);
      expect(await statuses(c)).not.toEqual(first);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it("rejects unknown fault names and out-of-range rates with clear errors", async () => {
    expect(() => emulator.handle.setFaults("rate42=1")).toThrow(/Unknown fault "rate42"/);
    expect(() => emulator.handle.setFaults({ rate429: 2 })).toThrow(/between 0 and 1/);
    expect(() => emulator.handle.setFaults("rate429")).toThrow(/name=value/);
    await expect(startEmulator({ port: 0, faults: "latencyMs=-1" })).rejects.toThrow(/latencyMs/);
  });

  it("answers health checks without faults", async () => {
    emulator.handle.setFaults({ rate500Before: 1 });
    const origin = new URL(emulator.handle.baseUrl).origin;
    expect((await call("GET", `${origin}/health`)).status).toBe(200);
  });
});
