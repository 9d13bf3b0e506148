/**
 * The whole loop against the emulator: an agent with tools runs with the recorder, the dataset is
 * exported, and each record is exactly what the model was sent and answered, tools included. A
 * dead service, sampling and redaction never change what the agent does.
 */
import { createServer } from "node:net";
import { type AIMessageChunk, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { createAgent, tool } from "langchain";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import type { ChatMessageParam } from "../../../src/api-types";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import {
  exportFineTuneRecords,
  loadDatasetConversations,
  type OpenAIChatRecord,
  StudioConversationRecorder,
  StudioRecordingError,
  validateFineTuneRecord,
} from "../../../src/datasets";
import { StudioConnectionError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const clients: StudioClient[] = [];

/** One chat completion as the model's client sent it and got it back. */
interface Exchange {
  request: { messages: ChatMessageParam[]; tools?: unknown[] };
  response:
    | { choices: { message: { content: string | null; tool_calls?: unknown[] } }[] }
    | undefined;
}

/** A client on the emulator whose chat completions are kept in `exchanges`. */
function watchedClient(): { client: StudioClient; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const { apiKey, baseUrl, proxyUrl } = emulator.handle;
  const client = new StudioClient({
    apiKey,
    baseUrl,
    proxyUrl,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith("/chat/completions")) {
        const request = JSON.parse(String(init?.body));
        // A streamed answer is checked against the chunks the model yielded instead.
        const answer = request.stream ? undefined : ((await response.clone().json()) as never);
        exchanges.push({ request, response: answer });
      }
      return response;
    },
  });
  clients.push(client);
  return { client, exchanges };
}

/** The record a completion makes: what was sent, then the answer, with the tools offered. */
function recordOf({ request, response }: Exchange): OpenAIChatRecord {
  const { content, tool_calls } = response!.choices[0]!.message;
  const answer = {
    role: "assistant",
    content: content ?? "",
    ...(tool_calls ? { tool_calls } : {}),
  } as ChatMessageParam;
  return {
    messages: [...request.messages, answer],
    ...(request.tools ? { tools: request.tools as OpenAIChatRecord["tools"] } : {}),
  };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function exportAll(datasetId: string, client: StudioClient): Promise<OpenAIChatRecord[]> {
  return collect(exportFineTuneRecords({ datasetId, client, format: "openai-chat" }));
}

/** Records in a stable order: background writes may land in any order. */
function byLength(records: OpenAIChatRecord[]): OpenAIChatRecord[] {
  return [...records].sort((a, b) => a.messages.length - b.messages.length);
}

const getWeather = tool(async ({ city }) => `sunny, 24°C in ${city}`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string().describe("the city") }),
});

function weatherAgent(client: StudioClient) {
  return createAgent({
    model: new ChatStudio({ model: "studio/echo-small", client }),
    tools: [getWeather],
    systemPrompt: "You answer weather questions.",
  });
}

const QUESTION = 'Weather in Paris? Use get_weather {"city": "Paris"}';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

const threadCreates = () =>
  emulator.handle.requests.filter((r) => r.method === "POST" && r.path.endsWith("/v1/threads"));

beforeEach(async () => {
  await emulator.handle.reset();
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe("StudioConversationRecorder + exportFineTuneRecords", () => {
  it("stores each model run of an agent once; the export gives it back as sent and received", async () => {
    const { client, exchanges } = watchedClient();
    const errors: unknown[] = [];
    const recorder = new StudioConversationRecorder({
      datasetId: "ds_agent",
      client,
      onError: (error) => errors.push(error),
    });
    const result = await weatherAgent(client).invoke(
      { messages: [{ role: "user", content: QUESTION }] },
      { callbacks: [recorder] },
    );
    expect(result.messages.at(-1)?.text).toContain("Tool said: sunny, 24°C in Paris");
    await recorder.flush();
    expect(errors).toEqual([]);

    // Two model runs: the tool call, then the answer after the tool result.
    expect(exchanges).toHaveLength(2);
    expect(threadCreates()).toHaveLength(2);
    const records = byLength(await exportAll("ds_agent", client));
    expect(records).toEqual(exchanges.map(recordOf));
    expect(records[0]!.tools?.map((t) => t.function.name)).toEqual(["get_weather"]);
    expect(records[0]!.messages.at(-1)).toMatchObject({
      role: "assistant",
      tool_calls: [{ type: "function", function: { name: "get_weather" } }],
    });
    for (const record of records) expect(validateFineTuneRecord(record)).toEqual([]);
  });

  it("records streamed runs and every prompt of a batch, each once", async () => {
    const { client, exchanges } = watchedClient();
    const recorder = new StudioConversationRecorder({ datasetId: "ds_stream", client });
    const model = new ChatStudio({ model: "studio/echo-small", client }).bindTools([getWeather]);

    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await model.stream([new HumanMessage(QUESTION)], {
      callbacks: [recorder],
    })) {
      streamed = streamed === undefined ? chunk : streamed.concat(chunk);
    }
    await model.batch([[new HumanMessage("one")], [new HumanMessage("two")]], {
      callbacks: [recorder],
    });
    await recorder.flush();

    const records = await exportAll("ds_stream", client);
    expect(records).toHaveLength(3);
    const streamedRecord = records.find((r) => r.messages[0]?.content === QUESTION);
    expect(streamedRecord).toEqual({
      messages: [
        { role: "user", content: QUESTION },
        {
          role: "assistant",
          content: "",
          tool_calls: streamed!.tool_calls!.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        },
      ],
      tools: exchanges[0]!.request.tools,
    });
    expect(streamed!.tool_calls).toEqual([
      expect.objectContaining({ name: "get_weather", args: { city: "Paris" } }),
    ]);
    const batched = records
      .filter((r) => r !== streamedRecord)
      .map((r) => r.messages.map((m) => m.content));
    expect(batched.sort()).toEqual([
      ["one", "You said: one"],
      ["two", "You said: two"],
    ]);
  });

  it("records every call of a model that has the recorder among its own callbacks", async () => {
    const { client } = watchedClient();
    const recorder = new StudioConversationRecorder({ datasetId: "ds_model", client });
    const model = new ChatStudio({ model: "studio/echo-small", client, callbacks: [recorder] });
    await model.invoke("first");
    await model.invoke("second");
    await recorder.flush();
    const records = await exportAll("ds_model", client);
    expect(records.map((r) => r.messages.map((m) => m.content)).sort()).toEqual([
      ["first", "You said: first"],
      ["second", "You said: second"],
    ]);
  });

  it("a dead service does not fail or change the agent's run; onError hears of each run", async () => {
    const { client } = watchedClient();
    const port = await closedPort();
    const errors: StudioRecordingError[] = [];
    const recorder = new StudioConversationRecorder({
      datasetId: "ds_dead",
      baseUrl: `http://127.0.0.1:${port}/studio`,
      apiKey: "sk-recorder-test",
      maxRetries: 0,
      onError: (error) => errors.push(error),
    });
    const result = await weatherAgent(client).invoke(
      { messages: [{ role: "user", content: QUESTION }] },
      { callbacks: [recorder] },
    );
    expect(result.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    await recorder.flush();
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(StudioRecordingError);
      expect(error.stored).toBe("no");
      expect(error.datasetId).toBe("ds_dead");
      expect(error.cause).toBeInstanceOf(StudioConnectionError);
      expect(error.message).not.toContain("sk-recorder-test");
    }
    expect(new Set(errors.map((e) => e.runId)).size).toBe(2);
  });

  it("sampleRate 0 records nothing", async () => {
    const { client } = watchedClient();
    const recorder = new StudioConversationRecorder({
      datasetId: "ds_none",
      client,
      sampleRate: 0,
    });
    await weatherAgent(client).invoke(
      { messages: [{ role: "user", content: QUESTION }] },
      { callbacks: [recorder] },
    );
    await recorder.flush();
    expect(threadCreates()).toEqual([]);
    expect(await exportAll("ds_none", client)).toEqual([]);
  });

  it("stores what redact returns, and leaves the agent's own messages alone", async () => {
    const { client } = watchedClient();
    const seen: string[][] = [];
    const recorder = new StudioConversationRecorder({
      datasetId: "ds_redacted",
      client,
      redact: (messages) => {
        seen.push(messages.map((m) => m.text));
        for (const message of messages) {
          if (typeof message.content === "string") {
            message.content = message.content.replaceAll("ada@example.com", "[REDACTED_EMAIL]");
          }
        }
        return messages;
      },
    });
    const result = await createAgent({
      model: new ChatStudio({ model: "studio/echo-small", client }),
      tools: [],
    }).invoke(
      { messages: [{ role: "user", content: "Mail ada@example.com about it" }] },
      { callbacks: [recorder] },
    );
    await recorder.flush();

    expect(result.messages.map((m) => m.text)).toEqual([
      "Mail ada@example.com about it",
      "You said: Mail ada@example.com about it",
    ]);
    expect(seen).toEqual([result.messages.map((m) => m.text)]);
    expect(await exportAll("ds_redacted", client)).toEqual([
      {
        messages: [
          { role: "user", content: "Mail [REDACTED_EMAIL] about it" },
          { role: "assistant", content: "You said: Mail [REDACTED_EMAIL] about it" },
        ],
      },
    ]);
  });

  it("stores runs as ordinary threads: loadDatasetConversations reads them, header included", async () => {
    const { client } = watchedClient();
    const recorder = new StudioConversationRecorder({ datasetId: "ds_plain", client });
    await new ChatStudio({ model: "studio/echo-small", client })
      .bindTools([getWeather])
      .invoke([new SystemMessage("Be brief."), new HumanMessage("hello")], {
        callbacks: [recorder],
      });
    await recorder.flush();

    const conversations = [];
    for await (const c of loadDatasetConversations({ client, datasetId: "ds_plain" })) {
      conversations.push(c);
    }
    expect(conversations).toHaveLength(1);
    const [header, ...rest] = conversations[0]!.messages;
    expect(header?.type).toBe("system");
    expect(JSON.parse(header!.text)).toEqual([
      expect.objectContaining({ function: expect.objectContaining({ name: "get_weather" }) }),
    ]);
    expect(rest.map((m) => [m.type, m.text])).toEqual([
      ["system", "Be brief."],
      ["human", "hello"],
      ["ai", "[Be brief.] You said: hello"],
    ]);

    const [langchain] = await collect(
      exportFineTuneRecords({ client, datasetId: "ds_plain", format: "langchain" }),
    );
    expect(langchain?.threadId).toBe(conversations[0]!.threadId);
    expect(langchain?.runId).toEqual(expect.any(String));
    expect(langchain?.messages.map((m) => m.text)).toEqual(rest.map((m) => m.text));
    expect(langchain?.tools.map((t) => t.function.name)).toEqual(["get_weather"]);
  });

  it("exports a run stored twice once, and tells onSkip about the copy", async () => {
    const { client } = watchedClient();
    const recorder = new StudioConversationRecorder({ datasetId: "ds_twice", client });
    await new ChatStudio({ model: "studio/echo-small", client }).invoke("hello", {
      callbacks: [recorder],
    });
    await recorder.flush();
    // The second copy a create retried after a lost answer would leave: the same create again.
    const [create] = threadCreates();
    await client.createThread(create!.body as Parameters<StudioClient["createThread"]>[0]);

    const skipped: unknown[] = [];
    const records = await collect(
      exportFineTuneRecords({
        client,
        datasetId: "ds_twice",
        format: "openai-chat",
        onSkip: (s) => skipped.push(s),
      }),
    );
    expect(records).toEqual([
      {
        messages: [
          { role: "user", content: "hello" },
          { role: "assistant", content: "You said: hello" },
        ],
      },
    ]);
    expect(skipped).toEqual([
      expect.objectContaining({ reason: "duplicate", problems: [], runId: expect.any(String) }),
    ]);
  });
});
