import { describe, expect, it } from "vitest";
import { StudioValidationError } from "../../../src/errors";
import {
  checkThreadMetadata,
  SESSION_RESERVED_KEYS,
  THREAD_KEY,
} from "../../../src/threads/metadata";

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));

/** A StudioValidationError for `field` whose message contains `text`. */
const refused = (field: string, text: string) =>
  expect.objectContaining({
    constructor: StudioValidationError,
    field,
    message: expect.stringContaining(text),
  });

describe("checkThreadMetadata", () => {
  it("accepts metadata that leaves room for the reserved keys", () => {
    expect(() => checkThreadMetadata(keys(13), SESSION_RESERVED_KEYS, "the session")).not.toThrow();
    expect(() => checkThreadMetadata(undefined, [THREAD_KEY], "the history")).not.toThrow();
  });

  it("refuses a reserved key, naming it and its owner", () => {
    expect(() =>
      checkThreadMetadata({ lc_session: "x" }, SESSION_RESERVED_KEYS, "the session"),
    ).toThrow(refused("metadata.lc_session", "is reserved for the session"));
  });

  it("refuses metadata that leaves no room, saying how much fits beside which keys", () => {
    expect(() => checkThreadMetadata(keys(16), [THREAD_KEY], "the history")).toThrow(
      refused(
        "metadata",
        `has 16 keys; the history's thread takes at most 15 besides its own "lc_thread_key"`,
      ),
    );
    expect(() => checkThreadMetadata(keys(14), SESSION_RESERVED_KEYS, "the session")).toThrow(
      refused("metadata", "the session's thread takes at most 13"),
    );
  });

  it("refuses what is not metadata", () => {
    expect(() => checkThreadMetadata({ a: 1 } as never, [], "the history")).toThrow(
      refused("metadata.a", ""),
    );
  });
});
