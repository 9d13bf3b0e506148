/**
 * Per-user encryption keys (`keyRing`): two users of one server, each with a key of their own
 * under the same key id. Each user's checkpoints and store values are sealed with their key: the
 * other user's key cannot open them, the service's raw messages hold neither user's words, and a
 * plaintext value put in a user's place is refused rather than read. Driven through the SDK's
 * `Client` against the emulator; the raw messages are read with the service's own client.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import {
  InMemoryStore,
  type LangGraphRunnableConfig,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { StudioValidationError } from "../../../src/errors";
import {
  createEncryptedSerde,
  StudioCheckpointSaver,
  StudioDecryptionError,
  StudioStore,
} from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

const newKey = () => toBase64(crypto.getRandomValues(new Uint8Array(32)));
/** The same key id for both users: only the key tells their data apart. */
const KEYS: Record<string, { keys: Record<string, string> }> = {
  alice: { keys: { k1: newKey() } },
  bob: { keys: { k1: newKey() } },
};
const SECRETS: Record<string, string> = {
  alice: "alice-vault-code-0451-7789",
  bob: "bob-locker-combination-3141",
};

function studioClient(): StudioClient {
  return new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
    maxRetries: 0,
  } as ConstructorParameters<typeof StudioClient>[0]);
}

/** Remembers each message in the user's namespace of the store and answers with the count. */
function notesGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("note", async (state, config: LangGraphRunnableConfig) => {
      const user = String(config.configurable?.langgraph_auth_user_id);
      const last = state.messages.at(-1) as BaseMessage | undefined;
      await config.store!.put(["notes", user], `n${state.messages.length}`, {
        text: last?.text ?? "",
      });
      const all = await config.store!.search(["notes", user]);
      return { messages: [new AIMessage({ content: `Noted (${all.length}): ${last?.text}` })] };
    })
    .addEdge(START, "note")
    .compile();
}

function setUp() {
  const client = studioClient();
  const reported: unknown[] = [];
  const handler = createAgentServer({
    graphs: { notes: notesGraph() },
    checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
    store: new StudioStore({ client, datasetId: "chat-server-memory" }),
    client,
    // A test stand-in for a verified identity (docs/chat-ui.md shows real ones).
    auth: (request) => request.headers.get("x-test-user"),
    keyRing: (userId) => {
      const ring = KEYS[userId];
      if (!ring) throw new Error(`no keys for ${userId}`);
      return ring;
    },
    onError: (error) => {
      reported.push(error);
    },
  });
  const as = (user: string) => sdkClient(handler, { "x-test-user": user });
  return { client, as, reported };
}

/** One turn of `user` in a new thread; returns the thread id. */
async function converse(sdk: ReturnType<typeof sdkClient>, text: string): Promise<string> {
  const thread = await sdk.threads.create();
  const events = await collect(sdk.runs.stream(thread.thread_id, "notes", { input: say(text) }));
  expect(events.filter((e) => e.event === "error")).toEqual([]);
  return thread.thread_id;
}

/** Every message the service holds, as text. */
async function rawMessages(client: StudioClient): Promise<string> {
  const parts: string[] = [];
  for await (const thread of client.iterateThreads({ order: "asc" })) {
    parts.push(JSON.stringify(thread));
    for await (const message of client.iterateMessages(thread.id, { order: "asc" })) {
      parts.push(JSON.stringify(message));
    }
  }
  return parts.join("\n");
}

function saverWith(client: StudioClient, user: string) {
  return new StudioCheckpointSaver({
    client,
    datasetId: "chat-server",
    serde: createEncryptedSerde(KEYS[user]!),
  });
}

function storeWith(client: StudioClient, user: string) {
  return new StudioStore({
    client,
    datasetId: "chat-server-memory",
    serde: createEncryptedSerde(KEYS[user]!),
  });
}

describe("createAgentServer: per-user keys", () => {
  it("each user reads their own conversation and notes", async () => {
    const { as } = setUp();
    const threadId = await converse(as("alice"), SECRETS.alice!);
    const state = await as("alice").threads.getState(threadId);
    expect(texts(state.values)).toEqual([SECRETS.alice, `Noted (1): ${SECRETS.alice}`]);
  });

  it("seals each user's checkpoints with their key: the other's key cannot open them", async () => {
    const { client, as } = setUp();
    const aliceThread = await converse(as("alice"), SECRETS.alice!);
    const bobThread = await converse(as("bob"), SECRETS.bob!);

    const own = await saverWith(client, "alice").getTuple({
      configurable: { thread_id: aliceThread },
    });
    expect(JSON.stringify(own?.checkpoint.channel_values)).toContain(SECRETS.alice);
    await expect(
      saverWith(client, "bob").getTuple({ configurable: { thread_id: aliceThread } }),
    ).rejects.toBeInstanceOf(StudioDecryptionError);
    await expect(
      saverWith(client, "alice").getTuple({ configurable: { thread_id: bobThread } }),
    ).rejects.toBeInstanceOf(StudioDecryptionError);
  });

  it("seals each user's store values with their key: the other's key cannot open them", async () => {
    const { client, as } = setUp();
    await converse(as("alice"), SECRETS.alice!);
    await converse(as("bob"), SECRETS.bob!);

    const own = await storeWith(client, "bob").get(["notes", "bob"], "n1");
    expect(own?.value).toEqual({ text: SECRETS.bob });
    await expect(storeWith(client, "bob").get(["notes", "alice"], "n1")).rejects.toBeInstanceOf(
      StudioDecryptionError,
    );
    await expect(storeWith(client, "alice").get(["notes", "bob"], "n1")).rejects.toBeInstanceOf(
      StudioDecryptionError,
    );
  });

  it("leaves neither user's words in the service's raw messages", async () => {
    const { client, as } = setUp();
    await converse(as("alice"), SECRETS.alice!);
    await converse(as("bob"), SECRETS.bob!);
    const raw = await rawMessages(client);
    expect(raw).toContain("chat-thread-view");
    expect(raw).not.toContain(SECRETS.alice);
    expect(raw).not.toContain(SECRETS.bob);
  });

  it("refuses a plaintext value in a user's place instead of reading it", async () => {
    const { client, as, reported } = setUp();
    await converse(as("alice"), "first note");
    // Someone with access to the account puts a plaintext note among Alice's.
    await new StudioStore({ client, datasetId: "chat-server-memory" }).put(
      ["notes", "alice"],
      "x",
      {
        text: "planted",
      },
    );
    const thread = await as("alice").threads.create();
    const events = await collect(
      as("alice").runs.stream(thread.thread_id, "notes", { input: say("second note") }),
    );
    expect(events.filter((e) => e.event === "error").map((e) => e.data)).toEqual([
      expect.objectContaining({ code: "run_failed" }),
    ]);
    expect(JSON.stringify(events)).not.toContain("planted");
    expect(reported.at(-1)).toBeInstanceOf(StudioDecryptionError);
    expect((reported.at(-1) as StudioDecryptionError).reason).toBe("plaintext");
  });

  it("needs a StudioCheckpointSaver and a StudioStore, naming the option", () => {
    const client = studioClient();
    const keyRing = () => KEYS.alice!;
    const graphs = { notes: notesGraph() };
    expect(() =>
      createAgentServer({ graphs, checkpointer: new MemorySaver(), client, keyRing }),
    ).toThrow(
      new StudioValidationError(
        "checkpointer",
        "must be a StudioCheckpointSaver when keyRing is set: each user's values are sealed " +
          "with their keys through its withSerde view",
      ),
    );
    const checkpointer = new StudioCheckpointSaver({ client, datasetId: "chat-server" });
    expect(() =>
      createAgentServer({ graphs, checkpointer, store: new InMemoryStore(), client, keyRing }),
    ).toThrow("Invalid store: must be a StudioStore when keyRing is set");
  });
});
