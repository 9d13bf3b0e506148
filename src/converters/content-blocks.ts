/**
 * `contentBlocks` of Studio messages: the translator core looks up by
 * `response_metadata.model_provider`.
 */
import { type AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { MODEL_PROVIDER } from "./completion";

/**
 * `message.contentBlocks` of Studio messages: reasoning first (a `reasoning` block, from
 * `additional_kwargs.reasoning_content`), then text, then tool calls, then the refusal (from
 * `additional_kwargs.refusal`, where core's OpenAI translator reads it too). Core looks translators
 * up by `response_metadata.model_provider` in a registry on `globalThis`, and uses the same one for
 * chunks. A chunk of a message still streaming (no model name yet, see `StudioAIMessageChunk`)
 * has its raw `tool_call_chunk` fragments, indexed so that core's concat joins them, instead of
 * calls guessed from a fragment: v1 chunks then sum to whole calls, as v0 chunks do.
 */
function toStandardBlocks(message: BaseMessage): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === "string" && reasoning !== "") {
    blocks.push({ type: "reasoning", reasoning });
  }
  const text =
    typeof message.content === "string" ? message.content : textOfBlocks(message.content);
  if (text !== "") blocks.push({ type: "text", text });
  if (
    AIMessageChunk.isInstance(message) &&
    typeof message.response_metadata?.model_name !== "string"
  ) {
    for (const { id, name, args, index } of message.tool_call_chunks ?? []) {
      blocks.push({ type: "tool_call_chunk", id, name, args, index });
    }
    return withRefusal(blocks, message);
  }
  const ai = message as AIMessage;
  for (const call of ai.tool_calls ?? []) {
    blocks.push({ type: "tool_call", id: call.id, name: call.name, args: call.args });
  }
  for (const call of ai.invalid_tool_calls ?? []) {
    blocks.push({ ...call, type: "invalid_tool_call" });
  }
  return withRefusal(blocks, message);
}

function withRefusal(
  blocks: Record<string, unknown>[],
  message: BaseMessage,
): Record<string, unknown>[] {
  const refusal = message.additional_kwargs?.refusal;
  if (typeof refusal === "string" && refusal !== "") blocks.push({ type: "refusal", refusal });
  return blocks;
}

function textOfBlocks(content: readonly unknown[]): string {
  let text = "";
  for (const block of content) {
    const { type, text: value } = (block ?? {}) as { type?: unknown; text?: unknown };
    if (type === "text" && typeof value === "string") text += value;
  }
  return text;
}

/** Registers the translator above once (ChatStudio's constructor calls it). */
export function registerStudioBlockTranslator(): void {
  const registry = (globalThis as { lc_block_translators_registry?: Map<string, unknown> })
    .lc_block_translators_registry;
  if (registry && !registry.has(MODEL_PROVIDER)) {
    registry.set(MODEL_PROVIDER, {
      translateContent: toStandardBlocks,
      translateContentChunk: toStandardBlocks,
    });
  }
}
