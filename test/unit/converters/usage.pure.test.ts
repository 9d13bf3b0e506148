/**
 * The service's usage to LangChain's: the counts, the cache and reasoning details in every
 * spelling servers send, and nothing made up.
 */
import { describe, expect, it } from "vitest";
import { UsageSchema } from "../../../src/client/normalise";
import { convertUsage } from "../../../src/converters/usage";

const counts = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
const usage = (extra: Record<string, unknown>) => UsageSchema.parse({ ...counts, ...extra });

describe("convertUsage", () => {
  it("counts only, when the server sends no details", () => {
    expect(convertUsage(usage({}))).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      total_tokens: 120,
    });
    expect(convertUsage(undefined)).toBeUndefined();
  });

  it.each([
    [
      "OpenRouter's prompt_tokens_details.cache_write_tokens",
      { prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 } },
    ],
    [
      "Anthropic's cache_creation_input_tokens, as a gateway passes it on",
      { cache_creation_input_tokens: 30, prompt_tokens_details: { cached_tokens: 60 } },
    ],
  ])("cache writes from %s are cache_creation", (_, extra) => {
    expect(convertUsage(usage(extra))?.input_token_details).toEqual({
      cache_read: 60,
      cache_creation: 30,
    });
  });

  it("a cache write without a cache read, and reasoning tokens", () => {
    expect(
      convertUsage(
        usage({
          cache_creation_input_tokens: 5,
          completion_tokens_details: { reasoning_tokens: 7 },
        }),
      ),
    ).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      total_tokens: 120,
      input_token_details: { cache_creation: 5 },
      output_token_details: { reasoning: 7 },
    });
  });

  it("null details are no details", () => {
    const converted = convertUsage(
      usage({
        cache_creation_input_tokens: null,
        prompt_tokens_details: { cache_write_tokens: null },
      }),
    );
    expect(converted).not.toHaveProperty("input_token_details");
  });

  it("the schema keeps members it does not know (a gateway's cost) and refuses a negative write", () => {
    expect(usage({ cost: 0.0042, is_byok: false })).toMatchObject({ cost: 0.0042, is_byok: false });
    expect(UsageSchema.safeParse({ ...counts, cache_creation_input_tokens: -1 }).success).toBe(
      false,
    );
  });
});
