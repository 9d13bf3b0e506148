/**
 * The service's `usage` object to LangChain's two shapes of it: `usage_metadata` on messages and
 * `llmOutput.tokenUsage` on results. Shared by the chat model and the text model, streamed or not.
 * The usage as sent, every member kept (a gateway's `cost`, say), also rides on a chat message's
 * `response_metadata.usage` (see `finalResponseMetadata`).
 */
import type { UsageMetadata } from "@langchain/core/messages";
import type { Usage } from "../api-types";

export function convertUsage(usage: Usage | null | undefined): UsageMetadata | undefined {
  if (usage == null) return undefined;
  const out: UsageMetadata = {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
  // The details LangChain has a place for; a detail the server did not send is not made up.
  const input: NonNullable<UsageMetadata["input_token_details"]> = {};
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") input.cache_read = cached;
  const written =
    usage.prompt_tokens_details?.cache_write_tokens ?? usage.cache_creation_input_tokens;
  if (typeof written === "number") input.cache_creation = written;
  if (Object.keys(input).length > 0) out.input_token_details = input;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") out.output_token_details = { reasoning };
  return out;
}

/** LangChain's token usage shape for LLM results (`llmOutput.tokenUsage`), all fields known. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** The service's `usage` to LangChain's `llmOutput.tokenUsage` shape. */
export function convertUsageToTokenUsage(usage: Usage | null | undefined): TokenUsage | undefined {
  if (usage == null) return undefined;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  };
}

/** Sums two usages; a side that reported nothing counts as nothing, not as zero tokens. */
export function addTokenUsage(
  total: TokenUsage | undefined,
  next: TokenUsage | undefined,
): TokenUsage | undefined {
  if (next === undefined) return total;
  if (total === undefined) return { ...next };
  return {
    promptTokens: total.promptTokens + next.promptTokens,
    completionTokens: total.completionTokens + next.completionTokens,
    totalTokens: total.totalTokens + next.totalTokens,
  };
}
