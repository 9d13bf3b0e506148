import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod/v3";
import { useEmulator } from "../../helpers/emulator";
import { mergeStream } from "../../helpers/stream";

const emulator = useEmulator();

function model() {
  return new ChatOpenAI({
    model: "studio/echo-small",
    apiKey: emulator.handle.apiKey,
    configuration: { baseURL: emulator.handle.proxyUrl },
    maxRetries: 0,
  });
}

const weather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "Weather of a city",
  schema: z.object({ city: z.string() }),
});

describe("ChatOpenAI against the emulator's proxy address", () => {
  it("completes an invoke", async () => {
    const reply = await model().invoke([
      ["system", "You are terse."],
      ["human", "Hello emulator"],
    ]);
    expect(reply.content).toBe("[You are terse.] You said: Hello emulator");
    expect(reply.usage_metadata).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });
    expect(reply.response_metadata.finish_reason).toBe("stop");
  });

  it("completes a stream", async () => {
    const chunks: string[] = [];
    for await (const chunk of await model().stream("Stream this please"))
      chunks.push(String(chunk.content));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join("")).toBe("You said: Stream this please");
  });

  it("gets tool calls, invoked and streamed", async () => {
    const bound = model().bindTools([weather]);
    const invoked = await bound.invoke('get_weather for {"city": "Paris"}');
    expect(invoked.tool_calls).toEqual([
      {
        name: "get_weather",
        args: { city: "Paris" },
        id: expect.stringMatching(/^call_/),
        type: "tool_call",
      },
    ]);
    const merged = await mergeStream(await bound.stream("please use get_weather"));
    expect(merged.tool_calls).toEqual([
      expect.objectContaining({ name: "get_weather", args: { city: "x" } }),
    ]);
  });

  it("fails with the emulator's 401 on a wrong key", async () => {
    const bad = new ChatOpenAI({
      model: "studio/echo-small",
      apiKey: "wrong",
      configuration: { baseURL: emulator.handle.proxyUrl },
      maxRetries: 0,
    });
    await expect(bad.invoke("hi")).rejects.toThrow(/401|Invalid API key/);
  });
});
