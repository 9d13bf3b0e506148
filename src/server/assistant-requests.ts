/**
 * The bodies of the assistant routes (one zod schema each) and the service assistant a create or
 * patch asks for. A service assistant names its tools from the server's own (`assistants.tools`):
 * the service stores each tool's schema, but only code this server holds can run it, so a name
 * it does not have is refused here, before anything is created.
 */
import * as z from "zod/v4/mini";
import type { Assistant } from "../api-types";
import type { CreateAssistantInput } from "../assistants";
import { useEnglishMessages } from "../zod-locale";
import { contextOf, SERVICE_ASSISTANT_GRAPH, SERVICE_KEYS, userMetadataOf } from "./assistant-view";
import { HttpProblem } from "./http";

useEnglishMessages();

const record = z.record(z.string(), z.unknown());

const modelSettings = z.looseObject({
  modelId: z.optional(z.string()),
  temperature: z.optional(z.number()),
  topP: z.optional(z.number()),
});

const CONTEXT_KEYS = ["instructions", "modelName", "functionModel", "responseModel", "tools"];

/** A service assistant's context: what configures it (see `serviceAssistantSchemas`). */
const ContextSchema = z.object({
  instructions: z.nullish(z.string()),
  modelName: z.nullish(z.string()),
  functionModel: z.nullish(modelSettings),
  responseModel: z.nullish(modelSettings),
  tools: z.nullish(z.array(z.string())),
});
type AssistantContext = z.infer<typeof ContextSchema>;

export const AssistantCreateSchema = z.looseObject({
  assistant_id: z.nullish(z.string()),
  graph_id: z.string(),
  config: z.nullish(record),
  context: z.nullish(record),
  metadata: z.nullish(record),
  if_exists: z.nullish(z.enum(["raise", "do_nothing"])),
  name: z.nullish(z.string()),
  description: z.nullish(z.string()),
});
export type AssistantCreate = z.infer<typeof AssistantCreateSchema>;

export const AssistantPatchSchema = z.looseObject({
  graph_id: z.nullish(z.string()),
  config: z.nullish(record),
  context: z.nullish(record),
  metadata: z.nullish(record),
  name: z.nullish(z.string()),
  description: z.nullish(z.string()),
});
export type AssistantPatch = z.infer<typeof AssistantPatchSchema>;

export const AssistantSearchSchema = z.looseObject({
  graph_id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  metadata: z.nullish(record),
  limit: z.nullish(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  offset: z.nullish(z.number().check(z.int(), z.gte(0))),
  sort_by: z.nullish(z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"])),
  sort_order: z.nullish(z.enum(["asc", "desc"])),
});

function unprocessable(message: string): HttpProblem {
  return new HttpProblem(422, "Unprocessable Entity", message);
}

function parseContext(context: Record<string, unknown> | null | undefined): AssistantContext {
  // Checked on the body as sent: the schema would drop an unknown field silently.
  const unknown = Object.keys(context ?? {}).find((key) => !CONTEXT_KEYS.includes(key));
  if (unknown !== undefined) {
    throw unprocessable(
      `context.${unknown}: is not a field of a service assistant's context ` +
        `(${CONTEXT_KEYS.join(", ")})`,
    );
  }
  const result = ContextSchema.safeParse(context ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw unprocessable(`context.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
}

/** Refuses what a service assistant cannot hold: another graph, a config, the server's keys. */
function checkShape(body: AssistantPatch, graphs: ReadonlyMap<string, unknown>): void {
  if (body.graph_id != null && body.graph_id !== SERVICE_ASSISTANT_GRAPH) {
    const why = graphs.has(body.graph_id)
      ? `"${body.graph_id}" is a graph given in code, which is read-only here`
      : `"${body.graph_id}" names no graph of this server`;
    throw unprocessable(
      `graph_id: ${why}; assistants created here are the service's: use ` +
        `"${SERVICE_ASSISTANT_GRAPH}"`,
    );
  }
  if (body.config && Object.keys(body.config).length > 0) {
    throw unprocessable(
      "config: a service assistant has no config; set its instructions, models and tools in " +
        "context",
    );
  }
  for (const key of Object.values(SERVICE_KEYS)) {
    if (body.metadata && Object.hasOwn(body.metadata, key)) {
      throw unprocessable(`metadata.${key}: is the server's; leave it out`);
    }
  }
}

/** Tool names the server does not hold, refused by name (a service assistant runs only these). */
function checkTools(names: readonly string[], held: ReadonlyMap<string, unknown>): void {
  names.forEach((name, index) => {
    if (held.has(name)) return;
    const known = held.size > 0 ? [...held.keys()].join(", ") : "none";
    throw unprocessable(
      `context.tools[${index}]: "${name}" is not a tool of this server (it has: ${known}); ` +
        "add it to createAgentServer({ assistants: { tools } })",
    );
  });
}

/** The service assistant a create body asks for (not yet checked by the assistants room). */
export function createInput<T>(
  body: AssistantCreate,
  graphs: ReadonlyMap<string, unknown>,
  held: ReadonlyMap<string, T>,
): Omit<CreateAssistantInput, "tools"> & { tools: T[] } {
  if (body.assistant_id) {
    throw unprocessable("assistant_id: the service picks assistant ids; leave it out");
  }
  checkShape(body, graphs);
  const context = parseContext(body.context);
  if (!context.modelName && !context.functionModel?.modelId) {
    throw unprocessable(
      'context.modelName: name the model the assistant runs, e.g. "studio/echo-small"',
    );
  }
  const names = context.tools ?? [];
  checkTools(names, held);
  return {
    assistantName: body.name || "Assistant",
    ...(body.description ? { description: body.description } : {}),
    ...(context.instructions ? { instructions: context.instructions } : {}),
    ...(context.modelName ? { modelName: context.modelName } : {}),
    ...(context.functionModel ? { functionModel: context.functionModel } : {}),
    ...(context.responseModel ? { responseModel: context.responseModel } : {}),
    metadata: stringMetadata(body.metadata),
    tools: names.map((name) => held.get(name) as T),
  };
}

/** A patched record's input: the record's fields, with the body's on top (metadata merged). */
export function patchInput<T>(
  current: Assistant,
  body: AssistantPatch,
  graphs: ReadonlyMap<string, unknown>,
  held: ReadonlyMap<string, T>,
): Omit<CreateAssistantInput, "tools"> & { tools: T[] } {
  checkShape(body, graphs);
  const context = { ...contextOf(current), ...parseContext(body.context) } as AssistantContext;
  const names = context.tools ?? [];
  checkTools(names, held);
  const description = body.description ?? current.description;
  return {
    assistantName: body.name || current.assistantName || "Assistant",
    ...(description ? { description } : {}),
    ...(context.instructions ? { instructions: context.instructions } : {}),
    ...(context.modelName ? { modelName: context.modelName } : {}),
    ...(context.functionModel ? { functionModel: context.functionModel } : {}),
    ...(context.responseModel ? { responseModel: context.responseModel } : {}),
    ...(current.userFilters ? { userFilters: current.userFilters as Record<string, string> } : {}),
    metadata: { ...userMetadataOf(current), ...stringMetadata(body.metadata) },
    tools: names.map((name) => held.get(name) as T),
  };
}

/** The service keeps string values only: another value is refused, naming its key. */
function stringMetadata(metadata: Record<string, unknown> | null | undefined) {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (typeof value !== "string") {
      throw unprocessable(
        `metadata.${key}: must be a string (the service keeps string values only)`,
      );
    }
    out[key] = value;
  }
  return out;
}
