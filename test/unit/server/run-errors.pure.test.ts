/**
 * The `error` event a failed run sends the browser: a generic text and a code for every error
 * but an `AgentRunError`, whose message and code pass through.
 */
import { describe, expect, it } from "vitest";
import { StudioRateLimitError } from "../../../src/errors";
import { AgentRunError, runErrorEvent } from "../../../src/server/run-errors";

const FAILED = {
  error: "RunError",
  message: "The run failed. Try again; if it keeps failing, contact the site's owner.",
  code: "run_failed",
};

describe("runErrorEvent", () => {
  it("hides the text of an Error, a string and anything else", () => {
    expect(runErrorEvent(new Error("token sk-123 at https://internal.example"))).toEqual(FAILED);
    expect(runErrorEvent("sk-123")).toEqual(FAILED);
    expect(runErrorEvent({ message: "sk-123" })).toEqual(FAILED);
    expect(runErrorEvent(undefined)).toEqual(FAILED);
  });

  it("says the model is busy for the service's rate limit", () => {
    const limited = Object.create(StudioRateLimitError.prototype) as StudioRateLimitError;
    expect(runErrorEvent(limited)).toEqual({
      error: "RunError",
      message: "The model is busy. Try again in a moment.",
      code: "rate_limited",
    });
  });

  it("says the conversation is too long for core's ContextOverflowError", async () => {
    const { ContextOverflowError } = await import("@langchain/core/errors");
    const overflow = new ContextOverflowError("maximum context length is 8192 tokens (req_123)");
    expect(runErrorEvent(overflow)).toEqual({
      error: "RunError",
      message: "The conversation is too long for the model. Start a new thread.",
      code: "context_overflow",
    });
  });

  it("passes an AgentRunError's message and code through, by class or by shape", () => {
    expect(runErrorEvent(new AgentRunError("Pick a city."))).toEqual({
      error: "AgentRunError",
      message: "Pick a city.",
      code: "run_error",
    });
    const fromAnotherCopy = Object.assign(new Error("Pick a date."), {
      name: "AgentRunError",
      code: "no_date",
    });
    expect(runErrorEvent(fromAnotherCopy)).toEqual({
      error: "AgentRunError",
      message: "Pick a date.",
      code: "no_date",
    });
    // The name alone (no string code) is not a mark: anyone can name an error.
    expect(runErrorEvent(Object.assign(new Error("sk-1"), { name: "AgentRunError" }))).toEqual(
      FAILED,
    );
  });
});
