/**
 * Exports the conversations of a thread dataset as JSONL, one conversation per line, in the
 * `{"messages": [{role, content, ...}]}` shape fine-tuning and evaluation tools read.
 *
 *   npx tsx examples/dataset-export.ts            # writes a file in the temp directory
 *   npx tsx examples/dataset-export.ts --stdout   # writes to stdout
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { loadDatasetConversations, StudioChatMessageHistory } from "langchain-studio";
import { openBackend } from "./lib/backend";

/** A LangChain message in the OpenAI chat shape most fine-tuning formats use. */
function toChatRecord(message: BaseMessage): Record<string, unknown> {
  if (AIMessage.isInstance(message)) {
    return {
      role: "assistant",
      content: message.text,
      ...(message.tool_calls?.length
        ? {
            tool_calls: message.tool_calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            })),
          }
        : {}),
    };
  }
  if (ToolMessage.isInstance(message)) {
    return { role: "tool", tool_call_id: message.tool_call_id, content: message.text };
  }
  const role = message.getType() === "system" ? "system" : "user";
  return { role, content: message.text };
}

const backend = await openBackend();
const { client } = backend;

try {
  // Some conversations to export, tagged with a dataset id when their thread is created.
  for (const city of ["Paris", "Lima", "Osaka"]) {
    const history = new StudioChatMessageHistory({ client, datasetId: "ds_weather" });
    await history.addMessages([
      new HumanMessage(`Weather in ${city}?`),
      new AIMessage({
        content: "",
        tool_calls: [{ id: `call_${city}`, name: "weather", args: { city }, type: "tool_call" }],
      }),
      new ToolMessage({ content: "22°C, sunny", tool_call_id: `call_${city}` }),
      new AIMessage(`It is 22°C and sunny in ${city}.`),
    ]);
  }

  const toStdout = process.argv.includes("--stdout");
  const file = toStdout
    ? undefined
    : join(await mkdtemp(join(tmpdir(), "studio-export-")), "ds_weather.jsonl");
  const out = file ? createWriteStream(file) : process.stdout;

  let count = 0;
  for await (const conversation of loadDatasetConversations({ client, datasetId: "ds_weather" })) {
    const line = JSON.stringify({
      thread_id: conversation.threadId,
      created_at: conversation.createdAt,
      messages: conversation.messages.map(toChatRecord),
    });
    if (!out.write(`${line}\n`)) await once(out, "drain");
    count += 1;
  }
  if (file) {
    out.end();
    await once(out, "finish");
    console.log(`wrote ${count} conversations to ${file}`);
  }
} finally {
  await backend.close();
}
