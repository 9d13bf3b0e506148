/**
 * Checks a `createAssistant` input against the spec's limits and builds the request body. Runs
 * before any client exists, so a bad input never sends a request.
 */
import type { CreateAssistantRequest, Tool } from "../api-types";
import { assistantToolName, convertToAssistantTool } from "../converters/assistant-tools";
import { StudioValidationError } from "../errors";
import { validateField, validateMetadata } from "../validation";
import type { CreateAssistantInput } from "./types";

/** Spec limits of the Assistant resource. */
export const ASSISTANT_LIMITS = {
  maxDescriptionLength: 512,
  maxUserFilters: 3,
} as const;

export function toCreateAssistantRequest(input: CreateAssistantInput): CreateAssistantRequest {
  if (input === null || typeof input !== "object") {
    throw new StudioValidationError("input", 'must be an object such as { assistantName: "..." }');
  }
  requireString("assistantName", input.assistantName);
  optionalString("modelName", input.modelName);
  optionalString("instructions", input.instructions);
  optionalString("description", input.description);
  const description = input.description ?? "";
  if (description.length > ASSISTANT_LIMITS.maxDescriptionLength) {
    throw new StudioValidationError(
      "description",
      `is ${description.length} characters; at most ${ASSISTANT_LIMITS.maxDescriptionLength} are allowed`,
    );
  }
  validateModelSettings("functionModel", input.functionModel);
  validateModelSettings("responseModel", input.responseModel);
  validateMetadata("metadata", input.metadata);
  validateUserFilters(input.userFilters);

  const { tools, ...rest } = input;
  return { ...rest, ...(tools === undefined ? {} : { tools: convertTools(tools) }) };
}

function validateModelSettings(field: string, settings: unknown): void {
  if (settings === undefined) return;
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw new StudioValidationError(field, "must be an object { modelId, temperature, topP }");
  }
  const { modelId, temperature, topP } = settings as Record<string, unknown>;
  if (modelId !== undefined && (typeof modelId !== "string" || modelId === "")) {
    throw new StudioValidationError(
      `${field}.modelId`,
      "must be a non-empty string (a model uri or a model record id)",
    );
  }
  validateField("temperature", `${field}.temperature`, temperature);
  validateField("topP", `${field}.topP`, topP);
}

function validateUserFilters(userFilters: unknown): void {
  if (userFilters === undefined) return;
  if (userFilters === null || typeof userFilters !== "object" || Array.isArray(userFilters)) {
    throw new StudioValidationError("userFilters", "must be an object of string values");
  }
  const entries = Object.entries(userFilters);
  if (entries.length > ASSISTANT_LIMITS.maxUserFilters) {
    throw new StudioValidationError(
      "userFilters",
      `has ${entries.length} pairs; at most ${ASSISTANT_LIMITS.maxUserFilters} are allowed`,
    );
  }
  for (const [key, value] of entries) {
    if (typeof value !== "string") {
      throw new StudioValidationError(`userFilters.${key}`, "must be a string");
    }
  }
}

function convertTools(tools: unknown): Tool[] {
  if (!Array.isArray(tools)) {
    throw new StudioValidationError("tools", "must be an array of LangChain tools or Tool objects");
  }
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const converted = convertToAssistantTool(tool, `tools[${index}]`);
    try {
      JSON.stringify(converted);
    } catch (error) {
      throw new StudioValidationError(
        `tools[${index}]`,
        `cannot be sent as JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const name = assistantToolName(converted);
    if (name !== undefined) {
      if (seen.has(name)) {
        throw new StudioValidationError(
          `tools[${index}]`,
          `repeats the tool name "${name}"; tool names must be unique`,
        );
      }
      seen.add(name);
    }
    return converted;
  });
}

function requireString(field: string, value: unknown): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new StudioValidationError(field, "is required and must be a non-empty string");
  }
}

function optionalString(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "string") {
    throw new StudioValidationError(field, "must be a string");
  }
}
