import { tool } from "@langchain/core/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import {
  modelUrisById,
  resolveModelSettings,
  sameModelSettings,
} from "../../../src/agents/model-refs";
import { matchTools } from "../../../src/agents/tool-match";
import type { Assistant, Model } from "../../../src/api-types";
import { StudioValidationError } from "../../../src/errors";

const impl = (name: string) =>
  tool(() => "ok", { name, description: name, schema: z.object({ q: z.string() }) });

const declared = (name: string, required: string[] = []) => ({
  type: "function",
  function: {
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties: { q: { type: "string" } } },
    required,
  },
});

const assistant = (patch: Partial<Assistant> = {}): Assistant => ({
  id: "asst_1",
  assistantName: "a",
  modelName: "acme/base",
  tools: [declared("search", ["q"]), declared("lookup")],
  ...patch,
});

describe("matchTools", () => {
  it("returns the declared schemas with function.required merged", () => {
    const bound = matchTools(assistant(), [impl("lookup"), impl("search")]);
    expect(bound.map((t) => t.function.name)).toEqual(["search", "lookup"]);
    expect(bound[0]?.function.parameters).toMatchObject({ required: ["q"] });
    expect(bound[1]?.function.parameters).not.toHaveProperty("required");
  });

  it("lists every missing and every undeclared name in one error", () => {
    const error = (() => {
      try {
        matchTools(assistant(), [impl("search"), impl("extra"), impl("other")]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StudioValidationError);
    const message = (error as Error).message;
    expect(message).toContain('no implementation for the assistant\'s tool(s) "lookup"');
    expect(message).toContain('"extra", "other" not declared by the assistant');
    expect(message).toContain('Declared: "search", "lookup"');
  });

  it("accepts an assistant without tools and no implementations", () => {
    expect(matchTools(assistant({ tools: null }), [])).toEqual([]);
  });
});

function fakeListing(models: Partial<Model>[]) {
  const calls = { count: 0 };
  const client = {
    iteratePublicModels: vi.fn(() => {
      calls.count += 1;
      return (async function* () {
        for (const model of models) yield model as Model;
      })();
    }),
  };
  return { client, calls };
}

describe("resolveModelSettings", () => {
  const models = [
    { id: "mdl_fn", uri: "acme/function-7b" },
    { id: "mdl_rsp", uri: "acme/response-70b" },
  ];

  it("uses a uri as is, without reading the listing", async () => {
    const { client, calls } = fakeListing(models);
    const resolved = await resolveModelSettings(
      assistant(),
      { modelId: "acme/x", temperature: 0.2, topP: 0.9 },
      "functionModel",
      client,
    );
    expect(resolved).toEqual({ model: "acme/x", temperature: 0.2, topP: 0.9 });
    expect(calls.count).toBe(0);
  });

  it("resolves record ids through the listing, read once per client", async () => {
    const { client, calls } = fakeListing(models);
    const a = assistant();
    const fn = await resolveModelSettings(a, { modelId: "mdl_fn" }, "functionModel", client);
    const rsp = await resolveModelSettings(a, { modelId: "mdl_rsp" }, "responseModel", client);
    expect(fn.model).toBe("acme/function-7b");
    expect(rsp.model).toBe("acme/response-70b");
    expect(calls.count).toBe(1);
    expect((await modelUrisById(client)).size).toBe(2);
    expect(calls.count).toBe(1);
  });

  it("falls back to modelName when the reference is missing or unknown", async () => {
    const { client } = fakeListing(models);
    const a = assistant({ modelName: "acme/base" });
    expect((await resolveModelSettings(a, undefined, "functionModel", client)).model).toBe(
      "acme/base",
    );
    expect(
      (await resolveModelSettings(a, { modelId: "mdl_gone", topP: 0.5 }, "responseModel", client))
        .model,
    ).toBe("acme/base");
  });

  it("resolves a record-id modelName too, and fails clearly when nothing resolves", async () => {
    const { client } = fakeListing(models);
    const byId = assistant({ modelName: "mdl_rsp" });
    expect((await resolveModelSettings(byId, {}, "functionModel", client)).model).toBe(
      "acme/response-70b",
    );
    const none = assistant({ modelName: "mdl_gone" });
    await expect(
      resolveModelSettings(none, { modelId: "mdl_also_gone" }, "responseModel", client),
    ).rejects.toThrow(/Invalid responseModel\.modelId: could not be resolved.*"mdl_also_gone"/);
  });

  it("does not cache a failed listing", async () => {
    let attempt = 0;
    const client = {
      iteratePublicModels: () =>
        (async function* () {
          attempt += 1;
          if (attempt === 1) throw new Error("listing down");
          yield { id: "mdl_fn", uri: "acme/function-7b" } as Model;
        })(),
    };
    await expect(
      resolveModelSettings(assistant(), { modelId: "mdl_fn" }, "functionModel", client),
    ).rejects.toThrow("listing down");
    const resolved = await resolveModelSettings(
      assistant(),
      { modelId: "mdl_fn" },
      "functionModel",
      client,
    );
    expect(resolved.model).toBe("acme/function-7b");
  });

  it("compares configurations by model, temperature and top_p", () => {
    const base = { model: "a/b", temperature: 0.1, topP: 1 };
    expect(sameModelSettings(base, { ...base })).toBe(true);
    expect(sameModelSettings(base, { ...base, temperature: 0.2 })).toBe(false);
    expect(sameModelSettings(base, { ...base, topP: undefined })).toBe(false);
    expect(sameModelSettings(base, { ...base, model: "a/c" })).toBe(false);
  });
});
