/** Assistants: create, get, list, delete (spec call 6 and the `/v1` calls of the notes). */
import type { Model } from "../api-types";
import { invalid, notFound } from "./http-error";
import { readListQuery } from "./list-query";
import type { Route } from "./router";
import type { Store } from "./store";
import {
  describe,
  isObject,
  type Json,
  MODEL_URI,
  optionalArray,
  optionalMetadata,
  optionalNumber,
  optionalObject,
  optionalString,
  requireBodyObject,
  requiredString,
} from "./validate";

const MAX_DESCRIPTION = 512;
const MAX_USER_FILTERS = 3;

export function assistantRoutes(
  store: Store,
  models: () => readonly Model[],
  prefix: string,
): Route[] {
  return [
    {
      method: "POST",
      path: `${prefix}/v1/assistants`,
      auth: "studio",
      handler: (ctx) => {
        const body = requireBodyObject(ctx.body);
        const assistantName = requiredString(body, "assistantName");
        if (assistantName.trim() === "") throw invalid("assistantName", "must not be empty");
        const modelName = optionalString(body, "modelName") ?? "";
        if (modelName && !MODEL_URI.test(modelName)) {
          throw invalid(
            "modelName",
            `must be a model uri shaped "<owner>/<model-name>" (got ${describe(modelName)})`,
          );
        }
        const description = optionalString(body, "description") ?? "";
        if (description.length > MAX_DESCRIPTION) {
          throw invalid(
            "description",
            `is ${description.length} characters; at most ${MAX_DESCRIPTION} are allowed`,
            "too_long",
          );
        }
        const tools = (optionalArray(body, "tools") ?? []).map((tool, i) => {
          if (!isObject(tool) || typeof tool.type !== "string") {
            throw invalid(`tools[${i}].type`, "is required and must be a string");
          }
          return tool;
        });
        const record = store.createAssistant({
          assistantName,
          modelName,
          modelId: models().find((m) => m.uri === modelName)?.id ?? "",
          description,
          instructions: optionalString(body, "instructions") ?? "",
          functionModel: readModelSettings(body, "functionModel"),
          responseModel: readModelSettings(body, "responseModel"),
          tools,
          metadata: optionalMetadata(body, "metadata"),
          userFilters: readUserFilters(body),
        });
        return { kind: "json", body: record };
      },
    },
    {
      method: "GET",
      path: `${prefix}/v1/assistants`,
      auth: "studio",
      handler: (ctx) => ({
        kind: "json",
        body: store.assistants.list(readListQuery(ctx.query, "asc")),
      }),
    },
    {
      method: "GET",
      path: `${prefix}/v1/assistants/:assistantId`,
      auth: "studio",
      handler: (ctx) => {
        const id = ctx.params.assistantId!;
        const found = store.assistants.get(id);
        if (!found) throw notFound("assistant", id, "assistantId");
        return { kind: "json", body: found };
      },
    },
    {
      method: "DELETE",
      path: `${prefix}/v1/assistants/:assistantId`,
      auth: "studio",
      handler: (ctx) => {
        const id = ctx.params.assistantId!;
        if (!store.deleteAssistant(id)) throw notFound("assistant", id, "assistantId");
        return { kind: "json", body: { id, object: "assistant.deleted", deleted: true } };
      },
    },
  ];
}

function readModelSettings(body: Json, key: string): Record<string, unknown> {
  const settings = optionalObject(body, key);
  if (!settings) return {};
  const out: Record<string, unknown> = { ...settings };
  const modelId = optionalString(settings, "modelId", `${key}.modelId`);
  if (modelId !== undefined) out.modelId = modelId;
  optionalNumber(settings, "temperature", { min: 0, max: 2 }, `${key}.temperature`);
  optionalNumber(settings, "topP", { min: 0, max: 1, minExclusive: true }, `${key}.topP`);
  return out;
}

function readUserFilters(body: Json): Record<string, string> {
  const filters = optionalObject(body, "userFilters");
  if (!filters) return {};
  const entries = Object.entries(filters);
  if (entries.length > MAX_USER_FILTERS) {
    throw invalid(
      "userFilters",
      `has ${entries.length} pairs; at most ${MAX_USER_FILTERS} are allowed`,
      "too_many_keys",
    );
  }
  for (const [k, v] of entries) {
    if (typeof v !== "string")
      throw invalid(`userFilters.${k}`, `must be a string (got ${describe(v)})`);
  }
  return filters as Record<string, string>;
}
