/**
 * What error classes carry beside their message: LangChain's `lc_error_code` on the failures core
 * documents (issue #23), and ids read from the service, which must not carry an echoed key out
 * through `toJSON` or `util.inspect` (issue #20).
 */
import { inspect } from "node:util";
import type { LangChainErrorCodes } from "@langchain/core/errors";
import { describe, expect, it } from "vitest";
import { apiErrorFromResponse } from "../../../src/client/errors-from-response";
import { parsePayload } from "../../../src/client/sse";
import type { ResponseHead } from "../../../src/client/transport";
import { StudioInvalidRecordError } from "../../../src/datasets/errors";
import {
  registerSecret,
  type StudioAPIError,
  StudioAuthenticationError,
  StudioRateLimitError,
} from "../../../src/errors";
import { StudioWriteNotConfirmedError } from "../../../src/threads/errors";

const KEY = "sk-fields-UNIT-7c1d9e0b5a2f";
registerSecret(KEY);

function response(status: number): ResponseHead {
  return { status, header: () => undefined, headerRecord: () => ({}) };
}

function fromStatus(status: number): StudioAPIError {
  return apiErrorFromResponse(response(status), '{"error":{"message":"no"}}', "POST", "/x");
}

describe("lc_error_code", () => {
  it.each([
    [401, StudioAuthenticationError, "MODEL_AUTHENTICATION"],
    [429, StudioRateLimitError, "MODEL_RATE_LIMIT"],
  ] as const)(
    "a %i is a %o with lc_error_code %s and its troubleshooting page",
    (status, cls, code) => {
      const error = fromStatus(status);
      expect(error).toBeInstanceOf(cls);
      const lcCode: LangChainErrorCodes | undefined = error.lc_error_code;
      expect(lcCode).toBe(code);
      expect(error.message).toContain(
        `Troubleshooting URL: https://docs.langchain.com/oss/javascript/langchain/errors/${code}/`,
      );
      expect(error.toJSON()).toMatchObject({ lc_error_code: code, status });
    },
  );

  it("is on the in-stream errors of those statuses too", () => {
    const data = JSON.stringify({ error: { code: 429, message: "slow down" } });
    const event = { event: undefined, id: undefined, data };
    let thrown: unknown;
    try {
      parsePayload(event, "/chat/completions");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StudioRateLimitError);
    expect((thrown as StudioAPIError).lc_error_code).toBe("MODEL_RATE_LIMIT");
  });

  it.each([400, 403, 404, 409, 500, 503])("is not on a %i", (status) => {
    const error = fromStatus(status);
    expect(error.lc_error_code).toBeUndefined();
    expect("lc_error_code" in error.toJSON()).toBe(false);
    expect(error.message).not.toContain("Troubleshooting URL");
  });
});

describe("ids read from the service", () => {
  const echoed = `thread_${KEY}`;

  function expectNoKey(error: Error): void {
    for (const view of [
      JSON.stringify(error),
      inspect(error, { depth: Number.POSITIVE_INFINITY }),
      String(error),
    ]) {
      expect(view).not.toContain(KEY.slice(0, 12));
      expect(view).not.toContain(KEY.slice(-12));
    }
  }

  it("StudioWriteNotConfirmedError.threadId is redacted", () => {
    const error = new StudioWriteNotConfirmedError({
      threadId: echoed,
      stored: [0],
      notStored: [],
      unknown: [1],
      totalCount: 2,
      attempts: 3,
      what: "store message 2",
      cause: new Error("timeout"),
    });
    expect(error.threadId).toBe("thread_[REDACTED]");
    expectNoKey(error);
  });

  it("StudioInvalidRecordError.threadId and runId are redacted", () => {
    const error = new StudioInvalidRecordError({
      threadId: echoed,
      runId: `run-${KEY}`,
      problems: [{ code: "no_messages", path: "messages", message: "empty" }],
    });
    expect(error.threadId).toBe("thread_[REDACTED]");
    expect(error.runId).toBe("run-[REDACTED]");
    expectNoKey(error);
  });

  it("an id without the key is kept as it is", () => {
    const error = new StudioInvalidRecordError({
      threadId: "thread_42",
      runId: undefined,
      problems: [],
    });
    expect(error.threadId).toBe("thread_42");
    expect(error.runId).toBeUndefined();
  });
});
