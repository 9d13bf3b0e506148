/**
 * Token counts without a tokenizer. Core's default downloads a tiktoken file, which offline
 * hangs each call for minutes; the models here are many and their tokenizers unknown, so the
 * count is an estimate by one documented rule, the same one the emulator reports as usage:
 * one token per four characters (rounded up), at least one.
 */
import type { BaseMessage, MessageContent } from "@langchain/core/messages";

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The text of message content: the string, or its text blocks joined. */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) {
    if (typeof block === "string") text += block;
    else if (block?.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
}

/** Per message: its text, plus the tool calls it carries (name and JSON arguments). */
export function estimateMessageTokens(message: BaseMessage): number {
  let text = contentText(message.content);
  const calls = (message as { tool_calls?: { name: string; args: unknown }[] }).tool_calls;
  for (const call of calls ?? []) text += call.name + JSON.stringify(call.args);
  return estimateTokens(text);
}
