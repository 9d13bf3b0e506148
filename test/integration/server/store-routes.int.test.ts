/**
 * The store routes driven by the SDK's `client.store`, over a `StudioStore` on the emulator: put,
 * get, search, list namespaces and delete; each user confined to the namespaces under their own
 * id (another user's refused, and left out of searches and lists), the `storeNamespaces`
 * option, and a server without a store.
 */
import { AIMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import { StudioStore } from "../../../src/langgraph";
import type { AgentServerOptions } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { collect, say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** Who is calling: the bearer token names the user. */
const auth = (request: Request) => request.headers.get("Authorization")?.slice(7) || null;

function server(extra: Partial<AgentServerOptions> = {}) {
  const base = studioServer(emulator.handle);
  const store = new StudioStore({ client: base.client });
  const { handler } = studioServer(emulator.handle, { store, auth, ...extra });
  const as = (user: string) => sdkClient(handler, { Authorization: `Bearer ${user}` });
  return { handler, as, store };
}

/** The status and message of the SDK's error for a refused call ("HTTP 403: {json}"). */
async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await call.then(
    () => {
      throw new Error("the call was not refused");
    },
    (caught: unknown) => caught as Error,
  );
  const match = /^HTTP (\d+): (.*)$/s.exec(error.message);
  if (!match) throw error;
  return { status: Number(match[1]), message: JSON.parse(match[2] ?? "{}").message };
}

/** Remembers each message under the caller's own namespace, as a graph keeps user memories. */
function memoriesGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("remember", async (state, config: LangGraphRunnableConfig) => {
      const user = String(config.configurable?.langgraph_auth_user_id);
      const text = String(state.messages.at(-1)?.content);
      await config.store?.put([user, "memories"], `m${state.messages.length}`, { text });
      return { messages: [new AIMessage("noted")] };
    })
    .addEdge(START, "remember")
    .compile();
}

describe("the store routes with the SDK's client.store", () => {
  it("puts, gets, searches, lists and deletes a user's items", async () => {
    const ada = server().as("ada");
    await ada.store.putItem(["ada", "notes"], "n1", { text: "buy milk", tag: "home" });
    await ada.store.putItem(["ada", "notes"], "n2", { text: "call Bob", tag: "work" });
    await ada.store.putItem(["ada", "prefs"], "theme", { mode: "dark" });

    const item = await ada.store.getItem(["ada", "notes"], "n1");
    expect(item).toMatchObject({
      namespace: ["ada", "notes"],
      key: "n1",
      value: { text: "buy milk", tag: "home" },
    });
    expect(Number.isNaN(Date.parse(String(item?.createdAt)))).toBe(false);
    expect(await ada.store.getItem(["ada", "notes"], "missing")).toBeNull();

    const work = await ada.store.searchItems(["ada", "notes"], { filter: { tag: "work" } });
    expect(work.items.map((found) => found.key)).toEqual(["n2"]);
    const everything = await ada.store.searchItems([], { limit: 10 });
    expect(everything.items.map((found) => found.key).sort()).toEqual(["n1", "n2", "theme"]);

    const { namespaces } = await ada.store.listNamespaces();
    expect(namespaces.sort()).toEqual([
      ["ada", "notes"],
      ["ada", "prefs"],
    ]);
    const depthOne = await ada.store.listNamespaces({ prefix: ["ada"], maxDepth: 1 });
    expect(depthOne.namespaces).toEqual([["ada"]]);

    await ada.store.deleteItem(["ada", "notes"], "n1");
    expect(await ada.store.getItem(["ada", "notes"], "n1")).toBeNull();
    const left = await ada.store.searchItems(["ada", "notes"]);
    expect(left.items.map((found) => found.key)).toEqual(["n2"]);
  });

  it("refuses another user's namespace, naming the rule, and keeps it out of searches", async () => {
    const { as } = server();
    const ada = as("ada");
    const bob = as("bob");
    await ada.store.putItem(["ada", "notes"], "n1", { text: "secret" });
    await bob.store.putItem(["bob", "notes"], "b1", { text: "mine" });

    const rule = {
      status: 403,
      message:
        'namespace: ["ada","notes"] is not yours: each user\'s store namespaces start with ' +
        'their user id; use ["bob","notes"]',
    };
    expect(await refusal(bob.store.getItem(["ada", "notes"], "n1"))).toEqual(rule);
    expect(await refusal(bob.store.putItem(["ada", "notes"], "n1", { text: "mine" }))).toEqual(
      rule,
    );
    expect(await refusal(bob.store.deleteItem(["ada", "notes"], "n1"))).toEqual(rule);
    expect(await refusal(bob.store.searchItems(["ada"]))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/^namespace_prefix: \["ada"\] is not yours/),
    });
    expect(await refusal(bob.store.listNamespaces({ prefix: ["ada"] }))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/^prefix: \["ada"\] is not yours/),
    });
    expect((await refusal(bob.store.putItem(["notes"], "x", { text: "x" }))).status).toBe(403);

    const bobs = await bob.store.searchItems([]);
    expect(bobs.items.map((found) => found.key)).toEqual(["b1"]);
    expect((await bob.store.listNamespaces()).namespaces).toEqual([["bob", "notes"]]);
    expect(await ada.store.getItem(["ada", "notes"], "n1")).toMatchObject({
      value: { text: "secret" },
    });
  });

  it("reads what the user's runs wrote under their id, and only the user does", async () => {
    const { as } = server();
    const made = studioServer(emulator.handle);
    const store = new StudioStore({ client: made.client });
    const { handler } = studioServer(emulator.handle, {
      store,
      auth,
      graphs: { memories: memoriesGraph() },
    });
    const ada = sdkClient(handler, { Authorization: "Bearer ada" });
    const thread = await ada.threads.create();
    await collect(ada.runs.stream(thread.thread_id, "memories", { input: say("likes tea") }));
    const found = await ada.store.searchItems([]);
    expect(found.items.map((item) => [item.namespace, item.value])).toEqual([
      [["ada", "memories"], { text: "likes tea" }],
    ]);
    expect((await as("bob").store.searchItems([])).items).toEqual([]);
  });

  it("seals what a user puts with their keyRing keys: the service never holds the text", async () => {
    const keys = { keys: { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) } };
    const { as, client } = (() => {
      const base = studioServer(emulator.handle);
      const made = studioServer(emulator.handle, {
        store: new StudioStore({ client: base.client }),
        auth,
        keyRing: () => keys,
      });
      return {
        as: (user: string) => sdkClient(made.handler, { Authorization: `Bearer ${user}` }),
        client: base.client,
      };
    })();
    const ada = as("ada");
    await ada.store.putItem(["ada", "vault"], "code", { text: "vault-code-0451-7789" });
    expect(await ada.store.getItem(["ada", "vault"], "code")).toMatchObject({
      value: { text: "vault-code-0451-7789" },
    });
    const raw: string[] = [];
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      for await (const message of client.iterateMessages(thread.id, { order: "asc" })) {
        raw.push(JSON.stringify(message));
      }
    }
    expect(raw.length).toBeGreaterThan(0);
    expect(raw.join("\n")).not.toContain("vault-code-0451-7789");
  });

  it('shares every namespace with storeNamespaces: "shared", or as a function allows', async () => {
    const shared = server({ storeNamespaces: "shared" });
    await shared.as("ada").store.putItem(["team", "faq"], "q1", { text: "hours" });
    expect(await shared.as("bob").store.getItem(["team", "faq"], "q1")).toMatchObject({
      value: { text: "hours" },
    });

    const custom = server({
      storeNamespaces: (user, namespace) => namespace[0] === "team" || namespace[0] === user,
    });
    const bob = custom.as("bob");
    await bob.store.putItem(["team", "faq"], "q2", { text: "where" });
    await custom.as("ada").store.putItem(["ada", "notes"], "n1", { text: "secret" });
    expect(await refusal(bob.store.getItem(["ada", "notes"], "n1"))).toEqual({
      status: 403,
      message: 'namespace: ["ada","notes"] is not open to you (the server\'s storeNamespaces rule)',
    });
    // q1 is the shared server's, on the same account: the rule shows the team's, not Ada's.
    const seen = await bob.store.searchItems([]);
    expect(seen.items.map((found) => found.key).sort()).toEqual(["q1", "q2"]);
  });

  it("refuses bad labels and says how to configure a store when there is none", async () => {
    const ada = server().as("ada");
    expect(await refusal(ada.store.searchItems(["ada", ""]))).toEqual({
      status: 422,
      message: 'namespace_prefix.1: must be a non-empty string without "."',
    });
    const bare = studioServer(emulator.handle, { auth });
    const client = sdkClient(bare.handler, { Authorization: "Bearer ada" });
    expect(await refusal(client.store.getItem(["ada"], "k"))).toEqual({
      status: 501,
      message:
        "the server has no store: pass createAgentServer({ store }), e.g. new StudioStore({ client })",
    });
  });
});
