/**
 * The classifier of a prompt over the model's window, on the wordings of the backends the service
 * fronts, and on refusals that look alike but are not about the prompt's length.
 */
import { ContextOverflowError } from "@langchain/core/errors";
import { describe, expect, it } from "vitest";
import {
  StudioAPIError,
  StudioConnectionError,
  StudioStreamError,
  StudioValidationError,
} from "../../../src/errors";
import { asContextOverflow, isContextOverflow } from "../../../src/models/context-overflow";

function apiError(status: number, serverMessage: string, code?: string): StudioAPIError {
  return StudioAPIError.fromResponse({
    status,
    method: "POST",
    path: "/chat/completions",
    serverMessage,
    code,
  });
}

describe("isContextOverflow", () => {
  it.each([
    [
      "OpenAI / vLLM (400, code)",
      apiError(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        "context_length_exceeded",
      ),
    ],
    ["the code alone", apiError(400, "Invalid request", "context_length_exceeded")],
    [
      "vLLM with the completion counted",
      apiError(
        400,
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (1000 in the messages, 4000 in the completion).",
      ),
    ],
    ["Anthropic (400)", apiError(400, "prompt is too long: 210000 tokens > 200000 maximum")],
    ["Anthropic (413)", apiError(413, "Prompt is too long")],
    ["OpenAI Responses", apiError(400, "Your input exceeds the context window of this model.")],
    [
      "OpenAI configured limit",
      apiError(400, "Input tokens exceed the configured limit of 272000 tokens."),
    ],
    [
      "xAI",
      apiError(
        400,
        "This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
      ),
    ],
    [
      "Gemini",
      apiError(
        400,
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      ),
    ],
    [
      "llama.cpp",
      apiError(
        400,
        "the request exceeds the available context size, try increasing it",
        "exceed_context_size_error",
      ),
    ],
    [
      "Mistral",
      apiError(
        400,
        "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
      ),
    ],
    ["a backend that says it with a 500", apiError(500, "Maximum context length exceeded")],
    [
      "an error event inside a stream (no status)",
      new StudioStreamError(
        "/chat/completions",
        "the server sent an error event: prompt is too long: 9000 tokens > 8192 maximum",
      ),
    ],
  ])("%s", (_, error) => {
    expect(isContextOverflow(error)).toBe(true);
  });

  it.each([
    ["a 400 about max_tokens", apiError(400, "max_tokens must be at least 1", "invalid_value")],
    [
      "a rate limit counted in tokens",
      apiError(
        429,
        "Rate limit reached for tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.",
        "rate_limit_exceeded",
      ),
    ],
    ["a missing model", apiError(404, "model not found", "model_not_found")],
    ["a cut stream", new StudioStreamError("/chat/completions", "the stream ended early")],
    [
      "a connection failure",
      new StudioConnectionError("POST", "/chat/completions", "socket hang up", true),
    ],
    [
      "a local validation error quoting the words",
      new StudioValidationError("messages", "maximum context length"),
    ],
    ["a plain Error with the words", new Error("context_length_exceeded")],
    ["not an error", "context_length_exceeded"],
  ])("not %s", (_, error) => {
    expect(isContextOverflow(error)).toBe(false);
  });
});

describe("asContextOverflow", () => {
  it("wraps an overflow in core's ContextOverflowError, the Studio error as cause", () => {
    const cause = apiError(400, "Invalid request", "context_length_exceeded");
    const error = asContextOverflow(cause);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as ContextOverflowError).cause).toBe(cause);
    expect((error as Error).message).toBe(cause.message);
  });

  it("returns any other error unchanged", () => {
    const other = apiError(400, "bad temperature");
    expect(asContextOverflow(other)).toBe(other);
  });
});
