/**
 * The saver's fields and the key ring's options are checked by one schema each
 * (`saver-config.ts`, `crypto/key-ring.ts`): these pin the exact texts a user reads, which the
 * schemas took over unchanged from the hand checks, and the defaults the settings are derived with.
 */
import { describe, expect, it } from "vitest";
import { createEncryptedSerde } from "../../../src/crypto/encrypted-serde";
import { retentionCutoff, saverSettings } from "../../../src/langgraph/saver-config";

function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return "nothing thrown";
}

const KEY = Buffer.alloc(32, 1).toString("base64");

describe("the saver's fields schema", () => {
  it("names the first bad field with the hand checks' exact text", () => {
    const cases: [object, string][] = [
      [{ datasetId: "" }, "Invalid datasetId: must be a non-empty string"],
      [{ datasetId: 5 }, "Invalid datasetId: must be a non-empty string"],
      [
        { maxMessageChars: 10 },
        "Invalid maxMessageChars: must be an integer of at least 1000 (got 10)",
      ],
      [
        { maxMessageChars: null },
        "Invalid maxMessageChars: must be an integer of at least 1000 (got null)",
      ],
      [
        { maxCachedThreads: 1.5 },
        "Invalid maxCachedThreads: must be an integer of at least 1 (got 1.5)",
      ],
      [{ keep: "some" }, 'Invalid keep: must be "all" or "latest" (got some)'],
      [
        { ttl: { defaultTTL: 0 } },
        "Invalid ttl.defaultTTL: must be a positive number of minutes, as in LangGraph's Redis saver (got 0)",
      ],
      [
        { ttl: null },
        "Invalid ttl.defaultTTL: must be a positive number of minutes, as in LangGraph's Redis saver (got undefined)",
      ],
      [
        { ttl: { defaultTTL: 5, refreshOnRead: "yes" } },
        "Invalid ttl.refreshOnRead: must be true or false",
      ],
      // The first field in the schema's order is the one named.
      [{ keep: "x", datasetId: "" }, "Invalid datasetId: must be a non-empty string"],
    ];
    for (const [fields, message] of cases) {
      expect(thrown(() => saverSettings(fields as never))).toBe(
        `StudioValidationError: ${message}`,
      );
    }
  });

  it("derives the settings from the schema's defaults and leaves the rest to the client", () => {
    const settings = saverSettings({ apiKey: "k", ttl: { defaultTTL: 2 } });
    expect(settings).toMatchObject({
      maxMessageChars: 100_000,
      maxCachedThreads: 100,
      keep: "all",
      ttl: { ms: 120_000, refreshOnRead: false },
      clientFields: { apiKey: "k" },
    });
    expect(settings.datasetId).toBeUndefined();
    expect(saverSettings({}).ttl).toBeUndefined();
    expect("apiKey" in saverSettings({ datasetId: "d" }).clientFields).toBe(false);
  });

  it("checks deleteThreads' maxAgeMs with the same text", () => {
    expect(thrown(() => retentionCutoff({ maxAgeMs: -1 }, undefined, 0))).toBe(
      "StudioValidationError: Invalid maxAgeMs: must be an age in milliseconds, 0 or more (got -1)",
    );
    expect(retentionCutoff({ maxAgeMs: 10 }, undefined, 100)).toBe(90);
  });
});

describe("the key ring's options schema", () => {
  it("names the first bad option with the hand checks' exact text", () => {
    const cases: [unknown, string][] = [
      [null, "Invalid keys: must be an object of keys by id"],
      [{ keys: {} }, "Invalid keys: must hold at least one key, by id: { k1: key }"],
      [
        { keys: { ok: KEY, bad: 5 } },
        "Invalid keys.bad: must be a CryptoKey for AES-GCM or the base64 of a raw key (got number)",
      ],
      [
        { keys: { a: "00".repeat(16) } },
        'Invalid keys.a: looks like hex (32 hex digits); keys are base64 of the raw key bytes. Convert it once, e.g. Buffer.from(hexKey, "hex").toString("base64"), and pass that',
      ],
      [{ keys: { "": KEY } }, "Invalid keys.: key ids must be 1 to 255 bytes of UTF-8 (got 0)"],
      [
        { keys: { "\ud800": KEY } },
        'Invalid keys.\\ud800: is not well-formed text (it holds a lone surrogate): it is stored as UTF-8 beside each value and would read back as another id, so nothing written under it could be read. Use plain text such as "2025-06"',
      ],
      [
        { keys: { a: KEY, b: KEY } },
        'Invalid activeKeyId: is required with several keys: name the one new values are encrypted with (one of "a", "b")',
      ],
      [
        { keys: { a: KEY }, activeKeyId: "c" },
        'Invalid activeKeyId: names no key ("c"); the keys are "a"',
      ],
    ];
    for (const [options, message] of cases) {
      expect(thrown(() => createEncryptedSerde(options as never))).toBe(
        `StudioValidationError: ${message}`,
      );
    }
  });

  it("resolves the active key (the only one, or the one named)", () => {
    expect(createEncryptedSerde({ keys: { only: KEY } }).activeKeyId).toBe("only");
    expect(createEncryptedSerde({ keys: { a: KEY, b: KEY }, activeKeyId: "b" }).activeKeyId).toBe(
      "b",
    );
  });
});
