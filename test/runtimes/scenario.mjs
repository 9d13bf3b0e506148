/**
 * The runtime matrix's one scenario, plain JavaScript so that Node, Bun, Deno, workerd and a
 * browser run the very same file. It uses the package the way README shows, by its name, with the
 * default construction (no `client`, no `fetch`): a chat invoke, a stream, a tool call, a
 * history write read back by a second history on the same thread, and encrypted memory (a store
 * item and a checkpoint written through `createEncryptedSerde`, read back by second instances, and
 * refused under another key), which runs Web Crypto's AES-GCM in each runtime.
 *
 * Each step is run and reported on its own, so one failure does not hide the others; a step's
 * error keeps its name, message and the first lines of its stack, which locate the module.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { ChatStudio, StudioChatMessageHistory } from "langchain-studio";
import {
  createEncryptedSerde,
  StudioCheckpointSaver,
  StudioDecryptionError,
  StudioStore,
} from "langchain-studio/langgraph";

const MODEL = "studio/echo-small";

const WEATHER_TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    },
  },
};

/** A random 256-bit key, base64: `btoa`, since browsers and workerd have no `Buffer`. */
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes));
}

function describeError(error) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const stack = (error.stack ?? "").split("\n").slice(0, 6).join("\n");
  return { name: error.name, message: error.message, stack };
}

const steps = {
  async invoke({ options, runtime }) {
    const model = new ChatStudio({ model: MODEL, ...options });
    const message = await model.invoke(`Hello from ${runtime}`);
    return { text: message.text };
  },

  async stream({ options, runtime }) {
    const model = new ChatStudio({ model: MODEL, ...options });
    let text = "";
    let chunks = 0;
    for await (const chunk of await model.stream(`Stream to ${runtime}`)) {
      chunks++;
      text += chunk.text;
    }
    return { text, chunks };
  },

  async toolCall({ options }) {
    const model = new ChatStudio({ model: MODEL, ...options }).bindTools([WEATHER_TOOL]);
    const message = await model.invoke('Use get_weather for {"city": "Paris"}');
    return { toolCalls: message.tool_calls.map(({ name, args }) => ({ name, args })) };
  },

  async history({ options, runtime }) {
    const writer = new StudioChatMessageHistory({ ...options });
    await writer.addMessages([
      new HumanMessage(`Remember ${runtime}`),
      new AIMessage(`Remembered ${runtime}`),
    ]);
    const threadId = await writer.getThreadId();
    // A second history on the same thread reads from the service, not from the writer's state.
    const reader = new StudioChatMessageHistory({ ...options, threadId });
    const messages = await reader.getMessages();
    return { messages: messages.map((m) => ({ type: m.getType(), text: m.text })) };
  },

  async encryptedMemory({ options, runtime }) {
    const serde = createEncryptedSerde({ keys: { k1: randomKey() } });
    const namespace = ["runtime", runtime];

    // Second instances read from the service, not from the writer's cache.
    await new StudioStore({ ...options, serde }).put(namespace, "fact", {
      text: `Secret fact from ${runtime}`,
    });
    const item = await new StudioStore({ ...options, serde }).get(namespace, "fact");

    const writer = new StudioCheckpointSaver({ ...options, serde });
    const version = writer.getNextVersion(undefined);
    const checkpoint = {
      ...emptyCheckpoint(),
      channel_values: { notes: { text: `Secret checkpoint from ${runtime}` } },
      channel_versions: { notes: version },
    };
    const config = { configurable: { thread_id: `encrypted-${runtime}`, checkpoint_ns: "" } };
    const metadata = { source: "input", step: -1, parents: {} };
    await writer.put(config, checkpoint, metadata, { notes: version });
    const tuple = await new StudioCheckpointSaver({ ...options, serde }).getTuple(config);

    // Another key under the same id: the value names "k1", but its integrity check fails.
    const otherKey = createEncryptedSerde({ keys: { k1: randomKey() } });
    // Stays null if the other key reads the value: the test then shows that it was not refused.
    let refusal = null;
    try {
      await new StudioStore({ ...options, serde: otherKey }).get(namespace, "fact");
    } catch (error) {
      if (!(error instanceof StudioDecryptionError)) throw error;
      refusal = { name: error.name, reason: error.reason };
    }
    return {
      storeText: item?.value.text,
      checkpointText: tuple?.checkpoint.channel_values.notes?.text,
      refusal,
    };
  },
};

/**
 * Runs every step against `options` (`{ apiKey, baseUrl, proxyUrl }`) and returns
 * `{ runtime, steps: { [name]: { ok: true, value } | { ok: false, error } } }`.
 */
export async function runScenario(runtime, options) {
  const results = {};
  for (const [name, step] of Object.entries(steps)) {
    try {
      results[name] = { ok: true, value: await step({ options, runtime }) };
    } catch (error) {
      results[name] = { ok: false, error: describeError(error) };
    }
  }
  return { runtime, steps: results };
}
