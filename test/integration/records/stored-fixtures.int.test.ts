/**
 * What earlier versions stored stays readable: every fixture in test/fixtures/stored/ (the
 * service's data as a released version wrote it) is loaded into an emulator and read back through
 * the public classes, which must answer what they answered when the fixture was written.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { createInProcessEmulator, type EmulatorHandle } from "../../../src/emulator";
import { createEncryptedSerde, StudioCheckpointSaver, StudioStore } from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import {
  FIXTURE_KEYS,
  type Fixture,
  readCheckpoints,
  readHistory,
  readServerThreads,
  readStore,
} from "../../fixtures/stored/read";

const FIXTURES = new URL("../../fixtures/stored/", import.meta.url).pathname;
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function readFixture(name: string): Promise<Fixture> {
  return JSON.parse(await readFile(join(FIXTURES, `${name}.json`), "utf8")) as Fixture;
}

/** An emulator whose account holds exactly the fixture's data (a copy: the emulator appends). */
async function loaded(
  fixture: Fixture,
): Promise<{ emulator: EmulatorHandle; client: () => StudioClient }> {
  const dir = await mkdtemp(join(tmpdir(), "stored-fixture-read-"));
  dirs.push(dir);
  const dataFile = join(dir, "data.jsonl");
  await writeFile(dataFile, `${JSON.stringify(fixture.data)}\n`);
  const emulator = await createInProcessEmulator({ dataFile });
  const client = () => {
    const { baseUrl, proxyUrl, apiKey, fetch } = emulator;
    return new StudioClient({ baseUrl, proxyUrl, apiKey, fetch });
  };
  return { emulator, client };
}

const serdeOf = (name: string) =>
  name.endsWith("-encrypted") ? { serde: createEncryptedSerde({ keys: FIXTURE_KEYS }) } : {};

/** The agent server's threads of the fixture, as its thread routes answer them today. */
function readServerFixture(fixture: Fixture, client: () => StudioClient) {
  const studio = client();
  const handler = createAgentServer({
    graphs: {
      echo: new StateGraph(MessagesAnnotation)
        .addNode("reply", () => ({}))
        .addEdge("__start__", "reply")
        .compile(),
    },
    checkpointer: new StudioCheckpointSaver({ client: studio, datasetId: "chat-server" }),
    client: studio,
  });
  const { threads } = fixture.expected as { threads: Record<string, unknown> };
  return readServerThreads(handler, Object.keys(threads));
}

/** How each fixture is read, by the start of its name. */
const READERS: Record<
  string,
  (name: string, fixture: Fixture, client: () => StudioClient) => Promise<unknown>
> = {
  "checkpoint-format-": (name, fixture, client) =>
    readCheckpoints(
      new StudioCheckpointSaver({ client: client(), ...serdeOf(name) }),
      Object.keys(fixture.expected as object),
    ),
  "store-format-": (name, _fixture, client) =>
    readStore(new StudioStore({ client: client(), ...serdeOf(name) })),
  "chat-thread-view": (_name, fixture, client) => readServerFixture(fixture, client),
  "chat-thread-id": (_name, fixture, client) => readServerFixture(fixture, client),
  "history-codec": (_name, _fixture, client) => readHistory(client(), "fixture-session"),
};

function readerOf(name: string) {
  const prefix = Object.keys(READERS).find((start) => name.startsWith(start));
  return prefix === undefined ? undefined : READERS[prefix];
}

const names = (await readdir(FIXTURES))
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.slice(0, -".json".length))
  .sort();

describe("stored fixtures read back by today's code", () => {
  it("has a reader for every fixture, and a fixture of every kind", () => {
    expect(names.filter((name) => readerOf(name) === undefined)).toEqual([]);
    for (const prefix of Object.keys(READERS)) {
      expect(names.some((name) => name.startsWith(prefix))).toBe(true);
    }
    expect(names).toContain("checkpoint-format-2");
    expect(names).toContain("checkpoint-format-3");
  });

  it.each(names)("%s reads back as when it was written", async (name) => {
    const fixture = await readFixture(name);
    const { emulator, client } = await loaded(fixture);
    try {
      const read = readerOf(name)!;
      expect(await read(name, fixture, client)).toEqual(fixture.expected);
    } finally {
      await emulator.close();
    }
  });

  it("the layout record is read: a new session is proved new without listing the account", async () => {
    const fixture = await readFixture("history-codec");
    const { emulator, client } = await loaded(fixture);
    try {
      emulator.clearRequests();
      const history = new StudioChatMessageHistory({ client: client(), sessionId: "never-seen" });
      expect(await history.getMessages()).toEqual([]);
      const listings = emulator.requests.filter(
        (r) => r.method === "GET" && r.path.endsWith("/threads"),
      );
      expect(listings.length).toBeGreaterThan(0);
      // Without the record, the account would be listed (no datasetId) to prove the session new.
      expect(listings.filter((r) => r.query.datasetId === undefined)).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
