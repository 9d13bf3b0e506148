/**
 * Every assistant function takes a `client` or the client options (one resolver for all), and
 * the per-call options beside either. An option given to a function reaches the wire: the
 * emulator's request log shows each function's own default header.
 */
import { HumanMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { loadAssistantAgent } from "../../../src/agents";
import {
  createAssistant,
  deleteAssistant,
  getAssistant,
  listAssistants,
} from "../../../src/assistants";
import { StudioClient } from "../../../src/client";
import { StudioConfigError, StudioNotFoundError, StudioValidationError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

/** Client options naming the function under test in a default header. */
function optionsFor(probe: string) {
  const { apiKey, baseUrl, proxyUrl } = emulator.handle;
  return { apiKey, baseUrl, proxyUrl, maxRetries: 0, defaultHeaders: { "x-probe": probe } };
}

/** The probe header of each request made since the last clear, as `METHOD path probe`. */
function probes(): string[] {
  return emulator.handle.requests.map(
    (r) => `${r.method} ${r.path.replace(/asst_[\w-]+/, ":id")} ${r.headers["x-probe"]}`,
  );
}

const input = { assistantName: "probe", modelName: "studio/echo-small" };

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("client options reach the wire", () => {
  it("createAssistant", async () => {
    await createAssistant(input, optionsFor("create"));
    expect(probes()).toEqual(["POST /studio/v1/assistants create"]);
  });

  it("getAssistant", async () => {
    const { id } = await createAssistant(input, optionsFor("setup"));
    emulator.handle.clearRequests();
    expect((await getAssistant(id, optionsFor("get"))).id).toBe(id);
    expect(probes()).toEqual(["GET /studio/v1/assistants/:id get"]);
  });

  it("listAssistants", async () => {
    await createAssistant(input, optionsFor("setup"));
    emulator.handle.clearRequests();
    const listed = [];
    for await (const assistant of listAssistants(optionsFor("list"))) listed.push(assistant);
    expect(listed).toHaveLength(1);
    expect(probes()).toEqual(["GET /studio/v1/assistants list"]);
  });

  it("deleteAssistant", async () => {
    const { id } = await createAssistant(input, optionsFor("setup"));
    emulator.handle.clearRequests();
    expect(await deleteAssistant(id, optionsFor("delete"))).toMatchObject({ id, deleted: true });
    expect(probes()).toEqual(["DELETE /studio/v1/assistants/:id delete"]);
  });

  it("loadAssistantAgent: the fetch and the model calls", async () => {
    const { id } = await createAssistant(input, optionsFor("setup"));
    emulator.handle.clearRequests();
    // An assistant without tools loads without `tools`.
    const agent = await loadAssistantAgent({ assistantId: id, ...optionsFor("agent") });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(messages.at(-1)?.text).toBe("You said: hi");
    expect(probes()).toEqual([
      "GET /studio/v1/assistants/:id agent",
      "POST /inference/chat/completions agent",
    ]);
  });
});

describe("client or options, and per-call options", () => {
  it("takes timeout, maxRetries and headers per call beside a client", async () => {
    const client = new StudioClient(optionsFor("client"));
    try {
      const { id } = await createAssistant(input, { client, timeout: 5_000, maxRetries: 1 });
      emulator.handle.clearRequests();
      await getAssistant(id, { client, headers: { "x-call": "yes" } });
      expect(emulator.handle.requests[0]?.headers).toMatchObject({
        "x-probe": "client",
        "x-call": "yes",
      });
    } finally {
      await client.close();
    }
  });

  it("refuses a client together with client options, naming both, before sending", async () => {
    const client = new StudioClient(optionsFor("client"));
    try {
      emulator.handle.clearRequests();
      const calls = [
        () => createAssistant(input, { client, apiKey: "other" }),
        () => getAssistant("asst_1", { client, baseUrl: "http://127.0.0.1:1" }),
        () => deleteAssistant("asst_1", { client, defaultHeaders: {} }),
        async () => {
          for await (const _ of listAssistants({ client, orgId: "org" })) break;
        },
        () => loadAssistantAgent({ assistantId: "asst_1", client, proxyUrl: "http://x" }),
      ];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StudioConfigError);
        expect((error as Error).message).toMatch(/"client" and "\w+"/);
      }
      expect(emulator.handle.requests).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});

describe("deleteAssistant", () => {
  it("deletes: the assistant is gone from get and list", async () => {
    const options = optionsFor("delete");
    const kept = await createAssistant({ ...input, assistantName: "kept" }, options);
    const gone = await createAssistant({ ...input, assistantName: "gone" }, options);
    await deleteAssistant(gone.id, options);
    await expect(getAssistant(gone.id, options)).rejects.toThrow(StudioNotFoundError);
    const listed: string[] = [];
    for await (const assistant of listAssistants(options)) listed.push(assistant.id);
    expect(listed).toEqual([kept.id]);
  });

  it("an unknown id is StudioNotFoundError; an empty id sends nothing", async () => {
    const options = optionsFor("delete");
    await expect(deleteAssistant("asst_missing", options)).rejects.toThrow(StudioNotFoundError);
    emulator.handle.clearRequests();
    await expect(deleteAssistant(" ", options)).rejects.toThrow(StudioValidationError);
    expect(emulator.handle.requests).toHaveLength(0);
  });
});
