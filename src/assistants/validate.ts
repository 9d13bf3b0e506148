/**
 * Checks a `createAssistant` input against the spec's limits (its fields schema, then metadata
 * and tools) and builds the request body. Runs before any client exists, so a bad input never
 * sends a request.
 */
import type { CreateAssistantRequest, Tool } from "../api-types";
import { assistantToolName, convertToAssistantTool } from "../converters/assistant-tools";
import { StudioValidationError } from "../errors";
import { validateMetadata } from "../validation";
import { parseAssistantFields } from "./fields";
import type { CreateAssistantInput } from "./types";

export { ASSISTANT_LIMITS } from "./fields";

export function toCreateAssistantRequest(input: CreateAssistantInput): CreateAssistantRequest {
  parseAssistantFields(input);
  validateMetadata("metadata", input.metadata);
  const { tools, ...rest } = input;
  return { ...rest, ...(tools === undefined ? {} : { tools: convertTools(tools) }) };
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
