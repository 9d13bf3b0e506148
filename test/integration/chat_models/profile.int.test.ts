/**
 * Profiles without a manual step, against the emulator: `ChatStudio.fromModel` gives createAgent
 * a model whose profile is loaded (so it picks json_schema), and an agent reading the profile of
 * a model whose profile was never loaded warns once (the agent then falls back to the tool
 * strategy, which the warning explains).
 */
import { HumanMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { useEmulator } from "../../helpers/emulator";

const MODEL = "studio/echo-large";
const emulator = useEmulator();
const models: ChatStudio[] = [];
const Person = z.object({ name: z.string(), age: z.number() });

function fields() {
  const { apiKey, proxyUrl, baseUrl } = emulator.handle;
  return { apiKey, proxyUrl, baseUrl };
}

const lastChatBody = () =>
  emulator.handle.requests.filter((r) => r.path.endsWith("/chat/completions")).at(-1)?.body as
    | Record<string, unknown>
    | undefined;

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

async function askForPerson(model: ChatStudio): Promise<unknown> {
  const agent = createAgent({ model, tools: [], responseFormat: Person });
  const result = await agent.invoke({
    messages: [new HumanMessage('Who? {"name": "Grace", "age": 85}')],
  });
  return result.structuredResponse;
}

describe("profiles without a manual step", () => {
  it("fromModel: the agent reads a loaded profile and uses json_schema, without a warning", async () => {
    const warn = vi.spyOn(console, "warn");
    const model = await ChatStudio.fromModel(MODEL, fields());
    models.push(model);
    expect(model.profile).toMatchObject({ toolCalling: true, structuredOutput: true });
    expect(await askForPerson(model)).toEqual({ name: "Grace", age: 85 });
    expect(lastChatBody()?.response_format).toMatchObject({ type: "json_schema" });
    expect(warn).not.toHaveBeenCalled();
  });

  it("a forgotten loadProfile: the agent's read warns once, and it falls back to a tool", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    // The warning is given once per process, and integration files share one module graph per
    // worker: a fresh copy of the package's modules stands for a fresh process.
    vi.resetModules();
    const { ChatStudio: FreshChatStudio } = await import("../../../src/chat_models");
    const model = new FreshChatStudio(MODEL, fields());
    models.push(model);
    expect(await askForPerson(model)).toEqual({ name: "Grace", age: 85 });
    expect(lastChatBody()).not.toHaveProperty("response_format");
    expect(lastChatBody()?.tools).toBeDefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/ChatStudio\.fromModel/);
    await askForPerson(model);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
