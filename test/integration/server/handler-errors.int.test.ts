/**
 * What the handler answers to requests it cannot serve, driven through the SDK's `Client` against
 * the emulator: errors it did not expect (a 500 without their text, a 503 for the service's rate
 * limit, each handed to `onError`) and bodies over `maxBodyBytes` (a 413).
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("createAgentServer: errors it did not expect", () => {
  function searchThreads(handler: (request: Request) => Promise<Response>) {
    return handler(
      new Request("http://agent.test/threads/search", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      }),
    );
  }

  it("answers 500 without the error's text and hands the error to onError", async () => {
    const seen: { error: unknown; request: Request }[] = [];
    const wrongKey = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: "sk-wrong-key-for-org-acme-internal",
      maxRetries: 0,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, {
      client: wrongKey,
      onError: (error, request) => {
        seen.push({ error, request });
      },
    });
    const response = await searchThreads(handler);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: "Internal Server Error", message: "internal error" });
    expect(text).not.toContain(new URL(emulator.handle.baseUrl).host);
    expect(seen.length).toBe(1);
    expect(seen[0]?.error).toBeInstanceOf(Error);
    expect(seen[0]?.request.url).toBe("http://agent.test/threads/search");
  });

  it("logs the error with console.error when no onError is given", async () => {
    const wrongKey = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: "sk-wrong-key",
      maxRetries: 0,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, { client: wrongKey });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect((await searchThreads(handler)).status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0]?.some((arg) => arg instanceof Error)).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  it("answers 503 when the service rate-limits the server", async () => {
    const limited = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: emulator.handle.apiKey,
      maxRetries: 0,
      fetch: async () =>
        new Response(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }), {
          status: 429,
          headers: { "Content-Type": "application/json", "Retry-After": "7" },
        }),
    } as ConstructorParameters<typeof StudioClient>[0]);
    const { handler } = studioServer(emulator.handle, { client: limited, onError: () => {} });
    const response = await searchThreads(handler);
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("7");
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("Service Unavailable");
    expect(body.message).not.toContain("slow down");
  });
});

describe("createAgentServer: request size", () => {
  it("answers 413 to a body over maxBodyBytes, with or without Content-Length", async () => {
    const { handler } = studioServer(emulator.handle, { maxBodyBytes: 2000 });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    await expect(
      collect(client.runs.stream(thread.thread_id, "echo", { input: say("x".repeat(3000)) })),
    ).rejects.toThrow(/413/);
    const body = JSON.stringify({ assistant_id: "echo", input: say("y".repeat(3000)) });
    const streamed = await handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/stream`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: new Blob([body]).stream(),
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: "Payload Too Large" });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({});
    // Under the limit, the run goes on as usual.
    const events = await collect(
      client.runs.stream(thread.thread_id, "echo", { input: say("ok") }),
    );
    expect(texts(events.filter((e) => e.event === "values").at(-1)?.data)).toContain(
      "You said: ok",
    );
  });
});
