/**
 * `/assistants` on the service's own assistants (the `assistants` option), driven by the SDK's
 * `Client` against the emulator: one created through the API and one created on the service
 * directly, both listed beside the graphs given in code and run to an answer through
 * `loadAssistantAgent`; patch (same id, next version, new instructions in the answer), delete,
 * read-only code graphs, tools the server lacks, and per-user visibility with `auth`. The
 * emulator's scripted model calls the tool named in the user's message and answers
 * `[<first 40 characters of the instructions>] Tool said: ...`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { loadAssistantAgent } from "../../../src/agents";
import { createAssistant } from "../../../src/assistants";
import type { AgentServerOptions } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { getWeather } from "./graphs";
import { sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

const auth = (request: Request) => request.headers.get("Authorization")?.slice(7) || null;

function server(extra: Partial<AgentServerOptions> = {}) {
  const made = studioServer(emulator.handle, {
    assistants: { load: loadAssistantAgent, tools: [getWeather] },
    ...extra,
  });
  const as = (user?: string) =>
    sdkClient(made.handler, user ? { Authorization: `Bearer ${user}` } : undefined);
  return { ...made, as };
}

const WEATHER = {
  graphId: "studio-assistant",
  name: "Weather desk",
  description: "Answers about the weather.",
  context: {
    instructions: "You are the weather desk.",
    modelName: "studio/echo-small",
    tools: ["get_weather"],
  },
  metadata: { team: "ops" },
};

/** The SDK's error for a refused call ("HTTP 409: {json}") as its status and message. */
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

async function ask(client: ReturnType<ReturnType<typeof server>["as"]>, assistantId: string) {
  const thread = await client.threads.create();
  const events = await collect(
    client.runs.stream(thread.thread_id, assistantId, {
      input: say('get_weather {"city": "Oslo"}'),
      streamMode: "values",
    }),
  );
  return texts(events.filter((e) => e.event === "values").at(-1)?.data).at(-1);
}

describe("/assistants on the service's assistants", () => {
  it("creates an assistant through the API, lists it beside the code graphs and runs it", async () => {
    const client = server().as();
    const created = await client.assistants.create(WEATHER);
    expect(created).toMatchObject({
      graph_id: "studio-assistant",
      name: "Weather desk",
      description: "Answers about the weather.",
      version: 1,
      metadata: { team: "ops" },
      context: {
        instructions: "You are the weather desk.",
        modelName: "studio/echo-small",
        tools: ["get_weather"],
      },
    });
    const listed = await client.assistants.search({ limit: 100 });
    expect(listed.map((a) => a.assistant_id).sort()).toEqual(
      ["agent", "approval", "echo", "whoami", created.assistant_id].sort(),
    );
    expect(await client.assistants.count()).toBe(5);
    expect(await client.assistants.count({ metadata: { team: "ops" } })).toBe(1);
    const onlyService = await client.assistants.search({ graphId: "studio-assistant" });
    expect(onlyService.map((a) => a.assistant_id)).toEqual([created.assistant_id]);
    expect(await client.assistants.get(created.assistant_id)).toMatchObject({
      name: "Weather desk",
    });

    expect(await ask(client, created.assistant_id)).toBe(
      "[You are the weather desk.] Tool said: Oslo: sunny",
    );
    const schemas = await client.assistants.getSchemas(created.assistant_id);
    expect(schemas.context_schema).toMatchObject({
      properties: { tools: { items: { enum: ["get_weather"] } } },
    });
  });

  it("lists and runs an assistant created on the service directly", async () => {
    const made = server();
    const record = await createAssistant(
      {
        assistantName: "Made on the service",
        modelName: "studio/echo-small",
        instructions: "Service side.",
        tools: [getWeather],
      },
      { client: made.client },
    );
    const client = made.as();
    const listed = await client.assistants.search({ graphId: "studio-assistant" });
    expect(listed).toEqual([
      expect.objectContaining({ assistant_id: record.id, name: "Made on the service" }),
    ]);
    expect(await ask(client, record.id)).toBe("[Service side.] Tool said: Oslo: sunny");
  });

  it("patches under the same id (next version, new instructions run) and deletes", async () => {
    const client = server().as();
    const created = await client.assistants.create(WEATHER);
    const id = created.assistant_id;
    const patched = await client.assistants.update(id, {
      name: "Weather desk 2",
      context: { instructions: "Patched desk." },
      metadata: { shift: "night" },
    });
    expect(patched).toMatchObject({
      assistant_id: id,
      version: 2,
      name: "Weather desk 2",
      metadata: { team: "ops", shift: "night" },
      context: { instructions: "Patched desk.", tools: ["get_weather"] },
    });
    expect(await client.assistants.get(id)).toMatchObject({ version: 2, name: "Weather desk 2" });
    const listed = await client.assistants.search({ graphId: "studio-assistant" });
    expect(listed.map((a) => [a.assistant_id, a.version])).toEqual([[id, 2]]);
    expect(await ask(client, id)).toBe("[Patched desk.] Tool said: Oslo: sunny");

    await client.assistants.delete(id);
    expect((await refusal(client.assistants.get(id))).status).toBe(404);
    expect(await client.assistants.search({ graphId: "studio-assistant" })).toEqual([]);
  });

  it("keeps code graphs read-only and refuses tools the server has no code for", async () => {
    const made = server();
    const client = made.as();
    expect(await refusal(client.assistants.update("agent", { name: "x" }))).toEqual({
      status: 409,
      message:
        "Assistant agent is a graph given in code (createAgentServer's graphs): it cannot be " +
        "changed or deleted here; change the code",
    });
    expect((await refusal(client.assistants.delete("echo"))).status).toBe(409);
    expect(
      await refusal(
        client.assistants.create({
          ...WEATHER,
          context: { ...WEATHER.context, tools: ["get_weather", "send_email"] },
        }),
      ),
    ).toEqual({
      status: 422,
      message:
        'context.tools[1]: "send_email" is not a tool of this server (it has: get_weather); ' +
        "add it to createAgentServer({ assistants: { tools } })",
    });
    expect(
      (await refusal(client.assistants.create({ ...WEATHER, graphId: "agent" }))).message,
    ).toMatch(/^graph_id: "agent" is a graph given in code/);

    const foreign = await createAssistant(
      {
        assistantName: "Mailer",
        modelName: "studio/echo-small",
        tools: [{ type: "function", function: { name: "send_email", parameters: {} } }],
      },
      { client: made.client },
    );
    const thread = await client.threads.create();
    const run = refusal(
      collect(client.runs.stream(thread.thread_id, foreign.id, { input: say("hi") })),
    );
    expect(await run).toMatchObject({
      status: 422,
      message: expect.stringMatching(/declares tool\(s\) "send_email" this server has no code/),
    });
  });

  it("shows each user their own assistants and the service's, and lets only the owner change", async () => {
    const made = server({ auth });
    const ada = made.as("ada");
    const bob = made.as("bob");
    const adas = await ada.assistants.create(WEATHER);
    const shared = await createAssistant(
      { assistantName: "Shared", modelName: "studio/echo-small" },
      { client: made.client },
    );
    const ids = async (client: typeof ada) =>
      (await client.assistants.search({ graphId: "studio-assistant" }))
        .map((a) => a.assistant_id)
        .sort();
    expect(await ids(ada)).toEqual([adas.assistant_id, shared.id].sort());
    expect(await ids(bob)).toEqual([shared.id]);
    expect((await refusal(bob.assistants.get(adas.assistant_id))).status).toBe(404);
    expect((await refusal(bob.assistants.delete(adas.assistant_id))).status).toBe(404);
    const thread = await bob.threads.create();
    expect(
      (await refusal(collect(bob.runs.stream(thread.thread_id, adas.assistant_id, {})))).status,
    ).toBe(404);
    expect(await refusal(bob.assistants.update(shared.id, { name: "mine" }))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/created on the service, not through this server/),
    });
    // The shared assistant declares no tool: its model only answers.
    expect(await ask(bob, shared.id)).toBe('You said: get_weather {"city": "Oslo"}');
    await ada.assistants.delete(adas.assistant_id);
    expect(await ids(ada)).toEqual([shared.id]);
  });

  it("answers 501 naming the option when the server has no assistants option", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    expect(await refusal(client.assistants.create(WEATHER))).toMatchObject({
      status: 501,
      message: expect.stringMatching(/pass createAgentServer\(\{ assistants:/),
    });
    expect((await client.assistants.search()).map((a) => a.assistant_id).sort()).toEqual([
      "agent",
      "approval",
      "echo",
      "whoami",
    ]);
  });
});
