/**
 * Assistants as the Agent Server API shows them, from the service's records and from the graphs
 * given in code; and the service record a create or patch body asks for. Pure: no I/O.
 *
 * A service assistant's id is its stable id (`SERVICE_KEYS.stableId` once patched, else the
 * service's own id), its `graph_id` is `SERVICE_ASSISTANT_GRAPH`, and what configures it (its
 * instructions, models and tool names) is its `context`.
 */
import type { Assistant, Metadata } from "../api-types";
import { assistantToolName } from "../converters/assistant-tools";

/** The `graph_id` of every service assistant: they all run as one kind of tool-calling agent. */
export const SERVICE_ASSISTANT_GRAPH = "studio-assistant";

/** Service metadata keys the server keeps on an assistant's record. */
export const SERVICE_KEYS = {
  /** The owner's hash, with `auth`: the assistant is that user's. */
  owner: "lc_owner",
  /** The id the assistant keeps across patches (each patch is a new service record). */
  stableId: "lc_assistant",
  /** Its version: 1 when created, one more per patch. */
  version: "lc_version",
} as const;

const KEPT: ReadonlySet<string> = new Set(Object.values(SERVICE_KEYS));

/** A server-side timestamp, for the service's `createdAt` (an ISO string or epoch seconds). */
function isoTime(value: string | number | undefined, fallback: string): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString();
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) {
    return new Date(value).toISOString();
  }
  return fallback;
}

/** The id the API shows for a service record. */
export function stableIdOf(record: Assistant): string {
  const stable = record.metadata?.[SERVICE_KEYS.stableId];
  return typeof stable === "string" && stable !== "" ? stable : record.id;
}

export function versionOf(record: Assistant): number {
  const version = Number(record.metadata?.[SERVICE_KEYS.version]);
  return Number.isInteger(version) && version > 0 ? version : 1;
}

/** The names of the tools a service assistant declares. */
export function declaredToolNames(record: Assistant): string[] {
  return (record.tools ?? []).map((tool) => assistantToolName(tool) ?? tool.type);
}

/** What configures a service assistant, as its `context`. */
export function contextOf(record: Assistant): Record<string, unknown> {
  const context: Record<string, unknown> = { tools: declaredToolNames(record) };
  if (record.instructions) context.instructions = record.instructions;
  if (record.modelName) context.modelName = record.modelName;
  if (record.functionModel) context.functionModel = record.functionModel;
  if (record.responseModel) context.responseModel = record.responseModel;
  return context;
}

/** The caller's metadata of a record: the service's, without the keys the server keeps. */
export function userMetadataOf(record: Assistant): Metadata {
  return Object.fromEntries(
    Object.entries(record.metadata ?? {}).filter(([key]) => !KEPT.has(key)),
  ) as Metadata;
}

export function serviceAssistantView(record: Assistant, started: string): Record<string, unknown> {
  const created = isoTime(record.createdAt, started);
  return {
    assistant_id: stableIdOf(record),
    graph_id: SERVICE_ASSISTANT_GRAPH,
    name: record.assistantName ?? stableIdOf(record),
    description: record.description ?? null,
    config: {},
    context: contextOf(record),
    metadata: userMetadataOf(record),
    version: versionOf(record),
    created_at: created,
    updated_at: created,
  };
}

/** A graph given in code, as an assistant: its id is the graph id, with nothing to configure. */
export function codeGraphView(id: string, started: string): Record<string, unknown> {
  return {
    assistant_id: id,
    graph_id: id,
    name: id,
    description: null,
    config: {},
    context: {},
    metadata: {},
    version: 1,
    created_at: started,
    updated_at: started,
  };
}

const MODEL_SETTINGS = {
  type: "object",
  properties: {
    modelId: { type: "string", description: "A model uri or a model record id" },
    temperature: { type: "number", minimum: 0, maximum: 2 },
    topP: { type: "number", exclusiveMinimum: 0, maximum: 1 },
  },
  additionalProperties: false,
};

const MESSAGES_STATE = {
  type: "object",
  properties: { messages: { type: "array", items: { type: "object" } } },
};

/** The schemas of a service assistant: messages in and out, and its context's fields. */
export function serviceAssistantSchemas(toolNames: readonly string[]): Record<string, unknown> {
  return {
    graph_id: SERVICE_ASSISTANT_GRAPH,
    input_schema: MESSAGES_STATE,
    output_schema: MESSAGES_STATE,
    state_schema: MESSAGES_STATE,
    config_schema: null,
    context_schema: {
      type: "object",
      properties: {
        instructions: { type: "string", description: "The system prompt" },
        modelName: { type: "string", description: "The model uri, e.g. studio/echo-small" },
        functionModel: MODEL_SETTINGS,
        responseModel: MODEL_SETTINGS,
        tools: {
          type: "array",
          description: "Names of the server's tools the assistant may call",
          items: { type: "string", enum: [...toolNames] },
          uniqueItems: true,
        },
      },
      additionalProperties: false,
    },
  };
}

/** A code graph's schemas: not derived (the server does not introspect graphs). */
export function codeGraphSchemas(id: string): Record<string, unknown> {
  return {
    graph_id: id,
    input_schema: null,
    output_schema: null,
    state_schema: null,
    config_schema: null,
    context_schema: null,
  };
}
