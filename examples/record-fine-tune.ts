/**
 * From production conversations to a fine-tuning file: a tool-calling agent runs with
 * `StudioConversationRecorder` as a callback, which stores every model run in a thread dataset;
 * `exportFineTuneRecords` then writes the dataset as an OpenAI chat fine-tuning JSONL file, and
 * `validateFineTuneRecord` checks each line as read back from the file.
 *
 *   npx tsx examples/record-fine-tune.ts                      # writes a file in the temp directory
 *   npx tsx examples/record-fine-tune.ts --jsonl train.jsonl  # writes train.jsonl
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL). The threads it records
 * are deleted at the end.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, tool } from "langchain";
import {
  ChatStudio,
  exportFineTuneRecords,
  StudioConversationRecorder,
  validateFineTuneRecord,
} from "langchain-studio";
import { z } from "zod";
import { openBackend } from "./lib/backend";

function jsonlPath(): string | undefined {
  const at = process.argv.indexOf("--jsonl");
  if (at < 0) return undefined;
  const path = process.argv[at + 1];
  if (!path) throw new Error("--jsonl needs a file path");
  return path;
}

const getWeather = tool(async ({ city }) => `${city}: sunny, 24°C`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string().describe("the city, e.g. Paris") }),
});

const backend = await openBackend();
const { client } = backend;
const datasetId = `weather-agent-${Date.now()}`;

try {
  // 1. Record: the recorder is a callback; it never slows or fails the agent's run.
  const recorder = new StudioConversationRecorder({
    client,
    datasetId,
    onError: (error) => console.warn("not recorded:", error.message),
  });
  const agent = createAgent({
    model: new ChatStudio({ model: backend.model, client, temperature: 0 }),
    tools: [getWeather],
    systemPrompt: "You answer weather questions with the get_weather tool.",
  });
  for (const city of ["Paris", "Lima", "Osaka"]) {
    const question = `What is the weather in ${city}? Use get_weather {"city": "${city}"}`;
    const { messages } = await agent.invoke(
      { messages: [{ role: "user", content: question }] },
      { callbacks: [recorder] },
    );
    console.log(`${city}: ${messages.at(-1)?.text}`);
  }
  // Writes run in the background: wait for them before exporting (or before exiting).
  await recorder.flush();

  // 2. Export: one line per model run (each agent run made two: the tool call, the answer).
  const file =
    jsonlPath() ?? join(await mkdtemp(join(tmpdir(), "studio-fine-tune-")), "train.jsonl");
  const out = createWriteStream(file);
  let lines = 0;
  for await (const record of exportFineTuneRecords({ client, datasetId, format: "openai-chat" })) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, "drain");
    lines += 1;
  }
  out.end();
  await once(out, "finish");
  console.log(`wrote ${lines} records to ${file}`);

  // 3. Validate the file as a fine-tuning service would read it.
  const text = await readFile(file, "utf8");
  const problems = text
    .trim()
    .split("\n")
    .flatMap((line, i) =>
      validateFineTuneRecord(JSON.parse(line)).map((p) => ({ line: i + 1, ...p })),
    );
  // The emulator's scripted model calls the tool once per question: two model runs per question.
  const expected = backend.isEmulator ? 6 : lines;
  if (lines !== expected || problems.length > 0) {
    console.error({ lines, problems });
    process.exitCode = 1;
  } else {
    console.log("every record is valid");
  }
} finally {
  // The example's dataset should not pile up in a real account.
  const threadIds: string[] = [];
  for await (const thread of client.iterateThreads({ datasetId })) threadIds.push(thread.id);
  await Promise.allSettled(threadIds.map((id) => client.deleteThread(id)));
  await backend.close();
}
