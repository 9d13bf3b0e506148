/**
 * A body over the emulator's cap is a 413 with the spec's error shape, answered once the body has
 * been read, on a connection that stays open; the package's client reports it once, with advice
 * to send less, and never retries it.
 */
import { describe, expect, it } from "vitest";
import { StudioAPIError, StudioClient } from "../../../src";
import { MAX_BODY_BYTES } from "../../../src/emulator/pipeline";
import { useEmulator } from "../../helpers/emulator";
import { openRaw } from "../../helpers/raw-http";
import { useInstantRetries } from "../../unit/client/retry-clock";

const emulator = useEmulator();
const clock = useInstantRetries();

const TOO_LARGE = {
  error: {
    message: `Request body exceeds ${MAX_BODY_BYTES} bytes.`,
    type: "invalid_request_error",
    code: "payload_too_large",
  },
};

describe("a body over the emulator's cap", () => {
  it("is a 413 JSON error, and the same connection serves the next request", async () => {
    const { baseUrl, apiKey } = emulator.handle;
    const connection = await openRaw(baseUrl);
    try {
      const size = MAX_BODY_BYTES + 1;
      const path = new URL(`${baseUrl}/v1/threads`).pathname;
      await connection.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nx-service-key: ${apiKey}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      // In pieces, as a client uploading a large message does.
      const piece = Buffer.alloc(1024 * 1024, "x");
      for (let sent = 0; sent < size; sent += piece.length) {
        await connection.write(piece.subarray(0, Math.min(piece.length, size - sent)));
      }
      const refused = await connection.response();
      expect(refused.status).toBe(413);
      expect(refused.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(refused.body)).toEqual(TOO_LARGE);

      await connection.write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
      const next = await connection.response();
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body)).toMatchObject({ status: "ok" });
    } finally {
      connection.close();
    }
  });

  it("reaches the client as a 413 it does not retry, with advice to send less", async () => {
    const { baseUrl, proxyUrl, apiKey } = emulator.handle;
    const client = new StudioClient({ apiKey, baseUrl, proxyUrl, maxRetries: 2 });
    const content = "x".repeat(MAX_BODY_BYTES);
    const error = await client
      .chatCompletion({ model: "studio/echo-small", messages: [{ role: "user", content }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StudioAPIError);
    const apiError = error as StudioAPIError;
    expect(apiError.status).toBe(413);
    expect(apiError.message).toBe(
      `POST /inference/chat/completions failed with status 413 [payload_too_large]: ` +
        `Request body exceeds ${MAX_BODY_BYTES} bytes. (request id ${apiError.requestId}). ` +
        "The request body is larger than the service accepts; send less (shorter messages, " +
        "fewer or smaller attachments): retrying the same call cannot succeed.",
    );
    // A completion is a read, retried after any retryable failure: this one was not.
    expect(clock.sleeps).toEqual([]);

    const thread = await client.createThread({});
    await expect(client.createMessage(thread.id, { role: "user", content })).rejects.toMatchObject({
      status: 413,
      code: "payload_too_large",
    });
    expect(clock.sleeps).toEqual([]);
    // The client's connections are still good.
    const small = await client.createMessage(thread.id, { role: "user", content: "short" });
    expect(small.content).toEqual([{ type: "text", text: "short" }]);
    await client.close();
  });
});
