import { tool } from "@langchain/core/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { createAssistant, getAssistant } from "../../../src/assistants/resources";
import type { CreateAssistantInput } from "../../../src/assistants/types";
import { toCreateAssistantRequest } from "../../../src/assistants/validate";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";

const echo = tool(({ text }) => text, {
  name: "echo",
  description: "Echoes.",
  schema: z.object({ text: z.string() }),
});

const valid: CreateAssistantInput = {
  assistantName: "helper",
  modelName: "acme/chat-1",
  description: "Helps.",
  instructions: "Be brief.",
  functionModel: { modelId: "acme/chat-1", temperature: 0, topP: 1 },
  responseModel: { modelId: "acme/chat-1", temperature: 2, topP: 0.5 },
  tools: [echo],
  metadata: { team: "core" },
  userFilters: { a: "1", b: "2", c: "3" },
};

/** A client whose transport records every request, so a test can prove nothing was sent. */
function recordingClient() {
  const fetch = vi.fn(async () => new Response("{}", { status: 500 }));
  const client = new StudioClient({
    fetch,
    apiKey: "unit-key",
    baseUrl: "http://127.0.0.1:9/studio",
    proxyUrl: "http://127.0.0.1:9/inference",
    maxRetries: 0,
  });
  const createSpy = vi.spyOn(client, "createAssistant");
  const getSpy = vi.spyOn(client, "getAssistant");
  return { client, fetch, createSpy, getSpy };
}

const invalidCases: [string, Partial<CreateAssistantInput> | Record<string, unknown>, string][] = [
  ["description over 512 characters", { description: "x".repeat(513) }, "description"],
  ["four user filters", { userFilters: { a: "1", b: "2", c: "3", d: "4" } }, "userFilters"],
  ["a non-string user filter", { userFilters: { a: 1 } }, "userFilters.a"],
  [
    "function temperature above 2",
    { functionModel: { modelId: "acme/chat-1", temperature: 2.5 } },
    "functionModel.temperature",
  ],
  [
    "response temperature below 0",
    { responseModel: { temperature: -0.1 } },
    "responseModel.temperature",
  ],
  ["function top_p of 0", { functionModel: { topP: 0 } }, "functionModel.topP"],
  ["response top_p above 1", { responseModel: { topP: 1.01 } }, "responseModel.topP"],
  ["an empty model id", { functionModel: { modelId: "" } }, "functionModel.modelId"],
  ["a missing name", { assistantName: "" }, "assistantName"],
  ["17 metadata keys", { metadata: manyKeys(17) }, "metadata"],
  ["a metadata value over 512 characters", { metadata: { k: "v".repeat(513) } }, "metadata.k"],
  ["a tool that is neither kind", { tools: [{ nope: true }] }, "tools[0]"],
  ["two tools with one name", { tools: [echo, echo] }, "tools[1]"],
];

describe("createAssistant validation", () => {
  it.each(invalidCases)(
    "rejects %s naming the field, and sends nothing",
    async (_, patch, field) => {
      const { client, fetch, createSpy } = recordingClient();
      const input = { ...valid, ...patch } as CreateAssistantInput;
      const error = await createAssistant(input, { client }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe(field);
      expect((error as Error).message).toContain(field);
      expect(createSpy).not.toHaveBeenCalled();
      expect(fetch).not.toHaveBeenCalled();
    },
  );

  it("names the limit in the message", () => {
    expect(() => toCreateAssistantRequest({ ...valid, description: "x".repeat(600) })).toThrow(
      /600 characters; at most 512/,
    );
    expect(() => toCreateAssistantRequest({ ...valid, functionModel: { temperature: 3 } })).toThrow(
      /functionModel\.temperature: must be between 0 and 2 \(got 3\)/,
    );
  });

  it("accepts the limits themselves and converts LangChain tools to the spec's Tool", () => {
    const body = toCreateAssistantRequest({ ...valid, description: "x".repeat(512) });
    expect(body.description).toHaveLength(512);
    expect(body.tools).toEqual([
      {
        name: "echo",
        type: "function",
        function: {
          name: "echo",
          description: "Echoes.",
          parameters: expect.objectContaining({ type: "object", required: ["text"] }),
          required: ["text"],
        },
      },
    ]);
    expect(body).toMatchObject({
      assistantName: "helper",
      functionModel: { modelId: "acme/chat-1", temperature: 0, topP: 1 },
      userFilters: { a: "1", b: "2", c: "3" },
    });
  });

  it("passes the validated body to the client", async () => {
    const { client, createSpy } = recordingClient();
    createSpy.mockResolvedValue({ id: "asst_1", assistantName: "helper" });
    const created = await createAssistant(valid, { client, timeout: 1234 });
    expect(created.id).toBe("asst_1");
    expect(createSpy).toHaveBeenCalledWith(
      toCreateAssistantRequest(valid),
      expect.objectContaining({ timeout: 1234 }),
    );
  });
});

describe("getAssistant validation", () => {
  it("rejects an empty id without a request", async () => {
    const { client, fetch, getSpy } = recordingClient();
    await expect(getAssistant(" ", { client })).rejects.toThrow(/Invalid assistantId/);
    expect(getSpy).not.toHaveBeenCalled();
    expect(fetch).not.toHaveBeenCalled();
  });
});

function manyKeys(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));
}
