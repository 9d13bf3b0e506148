/**
 * A prompt longer than the model's window, raised as core's `ContextOverflowError` (the service's
 * error as its `cause`): the summarization middleware and deep agents catch that class to compact
 * the history and retry, as they do with @langchain/openai and @langchain/anthropic.
 *
 * The service is a gateway, so the refusal comes in the words of whichever backend serves the
 * model, as a 400, a 413 or an error event inside a stream. No status or code is common to them
 * all, so the wording decides; the status does not (a backend that reports the overflow with a
 * 500 has still refused the prompt for its length).
 */
import { ContextOverflowError } from "@langchain/core/errors";
import { StudioAPIError, StudioStreamError } from "../errors";

/** What backends say when the prompt does not fit, and who says it. */
const OVERFLOW_WORDINGS: readonly RegExp[] = [
  // OpenAI's code, which vLLM, Groq, DeepSeek and the emulator send too.
  /context_length_exceeded/,
  // OpenAI, vLLM, Mistral, DeepSeek, Ollama: "This model's maximum context length is 8192 tokens".
  /maximum context length/,
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
  /prompt is too long/,
  // OpenAI's Responses API and xAI: "Your input exceeds the context window of this model".
  /exceeds? the context window/,
  // OpenAI for some models: "Input tokens exceed the configured limit of 272000 tokens".
  /input tokens exceed the configured limit/,
  // xAI: "This model's maximum prompt length is 131072 but the request contains 150000 tokens".
  /maximum prompt length/,
  // Gemini's OpenAI-compatible endpoint: "The input token count (1200000) exceeds the maximum".
  /input token count \(\d+\) exceeds the maximum/,
  // llama.cpp's server: code "exceed_context_size_error", "the request exceeds the available
  // context size".
  /exceed_context_size_error|exceeds the available context size/,
];

/**
 * Whether an error is the service (or a backend behind it) refusing a prompt for its length.
 * Only errors carrying the server's own words count: a `StudioAPIError` (its message includes the
 * server's message and code) or a `StudioStreamError` (an error event without a status).
 */
export function isContextOverflow(error: unknown): boolean {
  if (!(error instanceof StudioAPIError) && !(error instanceof StudioStreamError)) return false;
  const code = error instanceof StudioAPIError ? (error.code ?? "") : "";
  const text = `${error.message}\n${code}`.toLowerCase();
  return OVERFLOW_WORDINGS.some((wording) => wording.test(text));
}

/** The error to raise: core's `ContextOverflowError` (the error as `cause`) when it is one. */
export function asContextOverflow(error: unknown): unknown {
  return isContextOverflow(error) ? ContextOverflowError.fromError(error as Error) : error;
}
