import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import { StudioValidationError } from "../../../src/errors";
import {
  channelValueContext,
  checkpointContext,
  createEncryptedSerde,
  ENCRYPTED_TYPE,
  isContextualSerde,
  pendingWriteContext,
  StudioDecryptionError,
  storeContext,
} from "../../../src/langgraph";

const KEY_A = toBase64(new Uint8Array(32).fill(7));
const KEY_B = toBase64(Uint8Array.from({ length: 32 }, (_, i) => i));
const HEX_256 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const here = channelValueContext({
  threadId: "t1",
  checkpointNs: "",
  channel: "messages",
  version: "0001.aa",
});
const there = channelValueContext({
  threadId: "t2",
  checkpointNs: "",
  channel: "messages",
  version: "0001.aa",
});
const value = { note: "Ada's card ends in 4242", n: [1, 2, 3] };

/** The key id an encrypted value names (format byte, id length, id). */
function keyIdOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(2, 2 + bytes[1]!));
}

async function refusal(promise: Promise<unknown>): Promise<StudioDecryptionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StudioDecryptionError);
  return error as StudioDecryptionError;
}

describe("createEncryptedSerde", () => {
  it("round-trips values and bytes, in the plain and the contextual form", async () => {
    const serde = createEncryptedSerde({ keys: { a: KEY_A } });
    const [type, bytes] = await serde.dumpsTypedFor(here, value);
    expect(type).toBe(ENCRYPTED_TYPE);
    expect(await serde.loadsTypedFor(here, type, bytes)).toEqual(value);
    const raw = Uint8Array.of(0, 255, 3);
    const [rawType, sealed] = await serde.dumpsTyped(raw);
    expect(await serde.loadsTyped(rawType, sealed)).toEqual(raw);
    // As a checkpointer stores it (base64 text), too.
    expect(await serde.loadsTypedFor(here, type, toBase64(bytes))).toEqual(value);
  });

  it("stores nothing readable, and a fresh IV each time", async () => {
    const serde = createEncryptedSerde({ keys: { a: KEY_A } });
    const [, first] = await serde.dumpsTypedFor(here, value);
    const [, second] = await serde.dumpsTypedFor(here, value);
    const text = new TextDecoder("latin1").decode(first);
    expect(text).not.toContain("4242");
    expect(text).not.toContain("note");
    expect(toBase64(first)).not.toBe(toBase64(second));
  });

  it("refuses a value changed after it was written, saying it was tampered with", async () => {
    const serde = createEncryptedSerde({ keys: { a: KEY_A } });
    const [type, bytes] = await serde.dumpsTypedFor(here, value);
    const changed = bytes.slice();
    changed[changed.length - 20]! ^= 1;
    const error = await refusal(serde.loadsTypedFor(here, type, changed));
    expect(error.reason).toBe("tampered");
    expect(error.keyId).toBe("a");
    expect(error.message).toMatch(/integrity check/);
    expect(error.message).toContain(here);
  });

  it("refuses a value copied to another thread, namespace, channel, version or kind of place, saying so", async () => {
    const serde = createEncryptedSerde({ keys: { a: KEY_A } });
    const [type, bytes] = await serde.dumpsTypedFor(here, value);
    const place = { threadId: "t1", checkpointNs: "", channel: "messages", version: "0001.aa" };
    for (const elsewhere of [
      there,
      channelValueContext({ ...place, checkpointNs: "child" }),
      channelValueContext({ ...place, channel: "other" }),
      channelValueContext({ ...place, version: "0002.bb" }),
      channelValueContext({ ...place, base: "0000.cc" }),
      pendingWriteContext({ ...place, checkpointId: "c1", taskId: "task", idx: 0 }),
      checkpointContext({ ...place, checkpointId: "c1", versions: {} }, "checkpoint"),
      storeContext(["users", "ada"], "card"),
      "",
    ]) {
      const error = await refusal(serde.loadsTypedFor(elsewhere, type, bytes));
      expect(error.reason).toBe("wrongContext");
      expect(error.message).toMatch(/encrypted for another place and copied here/);
    }
  });

  it("refuses plaintext unless allowPlaintext (for migrating), and still encrypts new values", async () => {
    const json = new JsonPlusSerializer();
    const [type, bytes] = await json.dumpsTyped(value);
    const strict = createEncryptedSerde({ keys: { a: KEY_A } });
    const error = await refusal(strict.loadsTypedFor(here, type, bytes));
    expect(error.reason).toBe("plaintext");
    expect(error.message).toMatch(/allowPlaintext: true/);

    const migrating = createEncryptedSerde({ keys: { a: KEY_A }, allowPlaintext: true });
    expect(await migrating.loadsTypedFor(here, type, bytes)).toEqual(value);
    expect((await migrating.dumpsTypedFor(here, value))[0]).toBe(ENCRYPTED_TYPE);
  });

  it("rotates keys: old values still decrypt by their key id, new ones use the active key", async () => {
    const before = createEncryptedSerde({ keys: { "2025-01": KEY_A } });
    const [type, old] = await before.dumpsTypedFor(here, value);
    expect(keyIdOf(old)).toBe("2025-01");

    const rotated = createEncryptedSerde({
      keys: { "2025-01": KEY_A, "2025-06": KEY_B },
      activeKeyId: "2025-06",
    });
    expect(await rotated.loadsTypedFor(here, type, old)).toEqual(value);
    const [, fresh] = await rotated.dumpsTypedFor(here, value);
    expect(keyIdOf(fresh)).toBe("2025-06");

    const retired = createEncryptedSerde({ keys: { "2025-06": KEY_B } });
    expect(await retired.loadsTypedFor(here, type, fresh)).toEqual(value);
    const error = await refusal(retired.loadsTypedFor(here, type, old));
    expect(error.reason).toBe("unknownKey");
    expect(error.message).toContain('key id "2025-01"');
  });

  it("reports a wrong key under the same id as a failed integrity check", async () => {
    const [type, bytes] = await createEncryptedSerde({ keys: { k: KEY_A } }).dumpsTypedFor(
      here,
      value,
    );
    const other = createEncryptedSerde({ keys: { k: KEY_B } });
    expect((await refusal(other.loadsTypedFor(here, type, bytes))).reason).toBe("tampered");
  });

  it("refuses bytes that are not in the encrypted format", async () => {
    const serde = createEncryptedSerde({ keys: { a: KEY_A } });
    for (const data of [new Uint8Array(), Uint8Array.of(9, 1, 97), Uint8Array.of(1, 1, 97, 0)]) {
      expect((await refusal(serde.loadsTypedFor(here, ENCRYPTED_TYPE, data))).reason).toBe(
        "malformed",
      );
    }
    expect((await refusal(serde.loadsTyped(ENCRYPTED_TYPE, "not base64!"))).reason).toBe(
      "malformed",
    );
  });

  it("takes Web Crypto keys", async () => {
    const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
      "encrypt",
      "decrypt",
    ]);
    const serde = createEncryptedSerde({ keys: { live: key } });
    const [type, bytes] = await serde.dumpsTypedFor(here, value);
    expect(await serde.loadsTypedFor(here, type, bytes)).toEqual(value);
  });

  it("checks keys before anything is stored, naming the key id and never the key", async () => {
    const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const short = toBase64(new Uint8Array(10).fill(1));
    for (const [options, field] of [
      [{ keys: {} }, "keys"],
      [{ keys: { a: "%%%" } }, "keys.a"],
      [{ keys: { a: short } }, "keys.a"],
      [{ keys: { a: hmac } }, "keys.a"],
      [{ keys: { a: 42 } }, "keys.a"],
      [{ keys: { a: KEY_A, b: KEY_B } }, "activeKeyId"],
      [{ keys: { a: KEY_A }, activeKeyId: "z" }, "activeKeyId"],
      [{ keys: { ["x".repeat(256)]: KEY_A } }, `keys.${"x".repeat(256)}`],
      // Ids that cannot round-trip through UTF-8: a lone high or low surrogate.
      [{ keys: { "2025-\ud800": KEY_A } }, "keys.2025-\\ud800"],
      [{ keys: { "\udc00": KEY_A } }, "keys.\\udc00"],
      // Hex keys (64, 48, 32 hex digits) are refused: keys are base64.
      [{ keys: { hex: HEX_256 } }, "keys.hex"],
      [{ keys: { hex: HEX_256.slice(0, 48) } }, "keys.hex"],
      [{ keys: { hex: HEX_256.slice(0, 32).toUpperCase() } }, "keys.hex"],
    ] as const) {
      let thrown: unknown;
      try {
        createEncryptedSerde(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, field).toBeInstanceOf(StudioValidationError);
      expect((thrown as StudioValidationError).field).toBe(field);
      const text = JSON.stringify(thrown) + String((thrown as Error).stack);
      for (const key of [KEY_A, KEY_B, short, HEX_256, HEX_256.slice(0, 32)]) {
        expect(text).not.toContain(key);
      }
      if (field === "keys.hex") expect((thrown as Error).message).toContain("keys are base64");
      if (field.includes("\\u")) expect((thrown as Error).message).toContain("lone surrogate");
    }
    // The same key in base64 is taken, and an id with emoji (well-formed) is fine.
    const base64 = toBase64(Uint8Array.from(HEX_256.match(/../g)!, (h) => Number.parseInt(h, 16)));
    expect(() => createEncryptedSerde({ keys: { "2025-06 😀": base64 } })).not.toThrow();
  });

  it("is contextual, which LangGraph's JSON serializer is not", () => {
    expect(isContextualSerde(createEncryptedSerde({ keys: { a: KEY_A } }))).toBe(true);
    expect(isContextualSerde(new JsonPlusSerializer())).toBe(false);
    expect(isContextualSerde(undefined)).toBe(false);
  });
});

describe("encryption contexts", () => {
  it("are JSON arrays naming the kind of place, so no part can be forged from another", () => {
    const checkpoint = {
      threadId: "t",
      checkpointNs: "ns",
      checkpointId: "c",
      parentId: "p",
      versions: { b: 2, a: "0001.f" },
    };
    // Versions in channel order, so the context does not depend on the order a record keeps.
    expect(checkpointContext(checkpoint, "checkpoint")).toBe(
      '["checkpoint","t","ns","c","checkpoint","p",[["a","0001.f"],["b","2"]]]',
    );
    expect(
      checkpointContext({ ...checkpoint, versions: { a: "0001.f", b: 2 } }, "checkpoint"),
    ).toBe(checkpointContext(checkpoint, "checkpoint"));
    expect(checkpointContext({ ...checkpoint, parentId: undefined }, "metadata")).toBe(
      '["checkpoint","t","ns","c","metadata",null,[["a","0001.f"],["b","2"]]]',
    );
    expect(
      channelValueContext({ threadId: "t", checkpointNs: "", channel: "m", version: 3, base: 2 }),
    ).toBe('["channel","t","","m","3","2"]');
    expect(
      pendingWriteContext({
        threadId: "t",
        checkpointNs: "",
        checkpointId: "c",
        taskId: "k",
        idx: -1,
        channel: "__error__",
      }),
    ).toBe('["write","t","","c","k",-1,"__error__"]');
    expect(storeContext(["a", "b"], "k")).toBe('["store",["a","b"],"k"]');
    expect(storeContext(["a", "b"], "k")).not.toBe(storeContext(["a"], "b,k"));
  });
});
