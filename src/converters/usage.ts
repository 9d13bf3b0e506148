/**
 * The service's `usage` object to LangChain's `usage_metadata`. Shared by the chat model and the
 * text model, streamed or not.
 */
import type { UsageMetadata } from "@langchain/core/messages";
import type { Usage } from "../api-types";

export function convertUsage(usage: Usage | null | undefined): UsageMetadata | undefined {
  if (usage == null) return undefined;
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
}
