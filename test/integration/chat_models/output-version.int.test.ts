/**
 * `outputVersion: "v1"` against the emulator: a tool round trip whose replies are standard content
 * blocks, fed back as they came, invoked and streamed.
 */
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  type ToolMessage,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const models: ChatStudio[] = [];

const getWeather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "Current weather of a city",
  schema: z.object({ city: z.string() }),
});

function v1Model(): ChatStudio {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = new ChatStudio("studio/echo-small", { apiKey, proxyUrl, outputVersion: "v1" });
  models.push(model);
  return model;
}

afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

async function streamed(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> {
  let sum: AIMessageChunk | undefined;
  for await (const chunk of stream) {
    expect(Array.isArray(chunk.content)).toBe(true);
    sum = sum ? sum.concat(chunk) : chunk;
  }
  if (!sum) throw new Error("the stream yielded nothing");
  return sum;
}

describe('outputVersion "v1" tool round trip', () => {
  it.each(["invoke", "stream"])("%s", async (how) => {
    const bound = v1Model().bindTools([getWeather]);
    const messages: BaseMessage[] = [new HumanMessage('Use get_weather {"city": "Oslo"}')];
    const first =
      how === "invoke"
        ? ((await bound.invoke(messages)) as AIMessage)
        : await streamed(await bound.stream(messages));
    // Invoked, the call is a tool_call block; streamed, the chunks' tool_call_chunk blocks join
    // into one whole fragment (core concatenates blocks of one index), parsed in tool_calls.
    expect(first.content).toContainEqual(
      how === "invoke"
        ? expect.objectContaining({
            type: "tool_call",
            name: "get_weather",
            args: { city: "Oslo" },
          })
        : expect.objectContaining({
            type: "tool_call_chunk",
            name: "get_weather",
            args: '{"city":"Oslo"}',
          }),
    );
    expect(first.tool_calls).toEqual([
      expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } }),
    ]);
    messages.push(first);
    for (const call of first.tool_calls ?? []) {
      messages.push((await getWeather.invoke(call)) as ToolMessage);
    }
    const final = (await bound.invoke(messages)) as AIMessage;
    expect(final.content).toEqual([{ type: "text", text: "Tool said: sunny in Oslo" }]);
    const sent = emulator.handle.requests.at(-1)?.body as {
      messages: { role: string; content: unknown; tool_calls?: unknown[] }[];
    };
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(sent.messages[1]?.tool_calls).toHaveLength(1);
    expect(typeof sent.messages[1]?.content).toBe("string");
  });
});
