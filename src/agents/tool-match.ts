import type { Assistant, ChatTool } from "../api-types";
import { assistantToolName, convertAssistantToolToChatTool } from "../converters/assistant-tools";
import { StudioValidationError } from "../errors";
import type { AssistantToolImplementation } from "./types";

/**
 * Pairs the assistant's declared tools with the implementations by name and returns the schemas
 * to bind. Every mismatch is reported at once, so one fix covers them all.
 */
export function matchTools(
  assistant: Assistant,
  implementations: readonly AssistantToolImplementation[],
): ChatTool[] {
  const declared = assistant.tools ?? [];
  const implemented = new Set(implementations.map((tool) => tool.name));
  const declaredNames = new Set(declared.map((tool) => assistantToolName(tool) ?? tool.type));
  const missing = [...declaredNames].filter((name) => !implemented.has(name));
  const undeclared = [...implemented].filter((name) => !declaredNames.has(name));
  if (missing.length > 0 || undeclared.length > 0) {
    const problems = [
      missing.length > 0 &&
        `no implementation for the assistant's tool(s) ${quoteAll(missing)} (pass a LangChain ` +
          "tool with each name)",
      undeclared.length > 0 &&
        `implementation(s) ${quoteAll(undeclared)} not declared by the assistant (remove them, ` +
          "or add them to the assistant)",
    ].filter(Boolean);
    throw new StudioValidationError(
      "tools",
      `do not match assistant ${assistant.id}: ${problems.join("; ")}. Declared: ` +
        `${quoteAll([...declaredNames]) || "none"}.`,
    );
  }
  return declared.map(convertAssistantToolToChatTool);
}

function quoteAll(names: string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
