import { Agent, request } from "undici";
import { describe, expect, it } from "vitest";
import type { ErrorBody } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { DEFAULT_EMULATOR_API_KEY, startEmulator } from "../../../src/emulator";
import { useEmulator } from "../../helpers/emulator";
import { call, studio } from "./http";

const emulator = useEmulator();

describe("HTTP rules", () => {
  it("404 JSON error for an unknown route", async () => {
    for (const url of [
      `${emulator.handle.baseUrl}/v2/threads`,
      `${emulator.handle.proxyUrl}/completions`,
      `${emulator.handle.baseUrl}//v1/threads`,
      `${new URL(emulator.handle.baseUrl).origin}/`,
    ]) {
      const r = await call<ErrorBody>("GET", url, {
        headers: { "x-service-key": emulator.handle.apiKey },
      });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: "not_found_error", code: "route_not_found" });
    }
  });

  it("405 with Allow for a known path and another method", async () => {
    const r = await call<ErrorBody>("PUT", `${emulator.handle.baseUrl}${PATHS.threads}`, {
      headers: { "x-service-key": emulator.handle.apiKey },
    });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("POST, GET");
    const c = await call("GET", `${emulator.handle.proxyUrl}${PATHS.chatCompletions}`);
    expect(c.status).toBe(405);
    const t = await call("PATCH", `${emulator.handle.baseUrl}${PATHS.thread("thread_x")}`);
    expect(t.status).toBe(405);
    expect(t.headers.allow).toBe("GET, DELETE");
  });

  it("415 for a body that is not declared as JSON", async () => {
    const r = await call<ErrorBody>("POST", `${emulator.handle.baseUrl}${PATHS.threads}`, {
      raw: "{}",
      headers: { "x-service-key": emulator.handle.apiKey, "content-type": "text/plain" },
    });
    expect(r.status).toBe(415);
  });

  it("sends a request id on every answer", async () => {
    const r = await studio(emulator.handle, "GET", PATHS.threads);
    expect(r.headers["x-request-id"]).toMatch(/^req_\d+$/);
  });

  it("records every request in arrival order with auth headers redacted", async () => {
    emulator.handle.clearRequests();
    await studio(emulator.handle, "POST", PATHS.threads, { title: "recorded" });
    await studio(emulator.handle, "GET", `${PATHS.threads}?limit=2&order=desc`);
    await call("POST", `${emulator.handle.proxyUrl}${PATHS.chatCompletions}`, {
      raw: "{broken",
      // A client with `serviceKeyHeader` set sends the key under a name the emulator cannot know.
      headers: {
        authorization: `Bearer ${emulator.handle.apiKey}`,
        "x-custom-key": emulator.handle.apiKey,
      },
    });
    const recorded = emulator.handle.requests;
    expect(recorded.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/studio/v1/threads"],
      ["GET", "/studio/v1/threads"],
      ["POST", "/inference/chat/completions"],
    ]);
    expect(recorded[0]!.body).toEqual({ title: "recorded" });
    expect(recorded[1]!.query).toEqual({ limit: "2", order: "desc" });
    expect(recorded[1]!.body).toBeUndefined();
    expect(recorded[2]!.body).toBe("{broken");
    expect(recorded[0]!.headers["x-service-key"]).toBe("[REDACTED]");
    expect(recorded[2]!.headers.authorization).toBe("[REDACTED]");
    expect(recorded[2]!.headers["x-custom-key"]).toBe("[REDACTED]");
    expect(JSON.stringify(recorded)).not.toContain(emulator.handle.apiKey);
    emulator.handle.clearRequests();
    expect(emulator.handle.requests).toHaveLength(0);
  });

  it("reset() empties the state and the request log, and reseeds the models", async () => {
    await studio(emulator.handle, "POST", PATHS.threads, {});
    await emulator.handle.reset();
    expect(emulator.handle.requests).toHaveLength(0);
    const r = await studio<{ data: unknown[] }>(emulator.handle, "GET", PATHS.threads);
    expect(r.body.data).toEqual([]);
    const models = await call<{ models: unknown[] }>(
      "POST",
      `${emulator.handle.baseUrl}${PATHS.listPublicModels}`,
      {
        body: { page: { limit: 10, prevPageToken: "", nextPageToken: "", totalPage: 0 } },
      },
    );
    expect(models.body.models.length).toBeGreaterThanOrEqual(3);
  });

  it("a fresh emulator with the same seed gives the same thread ids; tool-call ids never repeat within the process (ids.test.ts: nor after reset())", async () => {
    const sample = async (handle: typeof emulator.handle) => {
      const thread = await studio<{ id: string }>(handle, "POST", PATHS.threads, {});
      const completion = await call<{ choices: { message: { tool_calls: { id: string }[] } }[] }>(
        "POST",
        `${handle.proxyUrl}${PATHS.chatCompletions}`,
        {
          body: {
            model: "studio/echo-small",
            tools: [{ type: "function", function: { name: "f" } }],
            messages: [{ role: "user", content: "call f" }],
          },
          headers: { authorization: handle.apiKey },
        },
      );
      return [thread.body.id, completion.body.choices[0]!.message.tool_calls[0]!.id];
    };
    const [one, two] = await Promise.all([startEmulator({ port: 0 }), startEmulator({ port: 0 })]);
    try {
      const first = await sample(one);
      const second = await sample(two);
      expect(second[0]).toBe(first[0]);
      // Issue 28: two emulators in one process must never repeat a tool-call id.
      expect(first[1]).toMatch(/^call_\d+$/);
      expect(second[1]).toMatch(/^call_\d+$/);
      expect(second[1]).not.toBe(first[1]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it("logs one line per request, never with the key", async () => {
    const lines: string[] = [];
    const key = "a-secret-key-that-must-not-leak";
    const logged = await startEmulator({ port: 0, apiKey: key, log: (line) => lines.push(line) });
    try {
      await call("GET", `${logged.baseUrl}${PATHS.threads}?key=${key}`, {
        headers: { "x-service-key": key },
      });
      await call("POST", `${logged.proxyUrl}${PATHS.chatCompletions}`, {
        body: { model: "studio/echo-small", messages: [{ role: "user", content: key }] },
        headers: { authorization: `Bearer ${key}` },
      });
      await call("GET", `${logged.baseUrl}${PATHS.threads}`, {
        headers: { "x-service-key": "wrong" },
      });
    } finally {
      await logged.close();
    }
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^GET \/studio\/v1\/threads 200 \d+(\.\d+)?ms$/);
    expect(lines[2]).toMatch(/ 401 /);
    for (const line of lines) expect(line).not.toContain(key);
  });

  it("uses the fixed dev key by default", () => {
    expect(emulator.handle.apiKey).toBe(DEFAULT_EMULATOR_API_KEY);
    expect(emulator.handle.baseUrl).toBe(`http://127.0.0.1:${emulator.handle.port}/studio`);
    expect(emulator.handle.proxyUrl).toBe(`http://127.0.0.1:${emulator.handle.port}/inference`);
  });

  it("close() also closes idle keep-alive connections, and is idempotent", async () => {
    const own = await startEmulator({ port: 0 });
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      const r = await request(`${own.baseUrl}${PATHS.threads}`, {
        headers: { "x-service-key": own.apiKey },
        dispatcher: agent,
      });
      await r.body.text();
      await Promise.all([own.close(), own.close()]);
      await expect(
        request(`${own.baseUrl}${PATHS.threads}`, {
          headers: { "x-service-key": own.apiKey },
          dispatcher: agent,
        }),
      ).rejects.toThrow();
    } finally {
      await agent.close();
    }
  });

  it("refuses to start on a port in use", async () => {
    await expect(startEmulator({ port: emulator.handle.port })).rejects.toThrow(/EADDRINUSE/);
  });
});
