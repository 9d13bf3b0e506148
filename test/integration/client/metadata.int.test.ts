/**
 * Metadata read through the client keeps every key the service returns, `__proto__` included
 * (a plain record parse would turn that key into the object's prototype and drop it).
 */
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

describe("thread and message metadata through the client", () => {
  it("returns a key named __proto__ as an own key, without touching the prototype", async () => {
    const { baseUrl, apiKey } = emulator.handle;
    const client = new StudioClient({ baseUrl, apiKey });
    const metadata = JSON.parse('{"__proto__":"p","k":"v"}') as Record<string, string>;
    const thread = await client.createThread({
      metadata,
      messages: [{ role: "user", content: "hi", metadata }],
    });
    const read = await client.getThread(thread.id);
    expect(Object.keys(read.metadata ?? {})).toEqual(["__proto__", "k"]);
    expect(Object.getPrototypeOf(read.metadata)).toBe(Object.prototype);
    const messages = await client.listMessages(thread.id, { order: "asc" });
    expect(Object.entries(messages.data[0]?.metadata ?? {})).toEqual([
      ["__proto__", "p"],
      ["k", "v"],
    ]);
    await client.close();
  });
});
