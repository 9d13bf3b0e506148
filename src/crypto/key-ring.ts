/**
 * The keys an encrypted serializer holds, by id: every one of them decrypts, the active one
 * encrypts. Rotation is adding a key under a new id and making it active; values written with an
 * older key keep naming its id and keep decrypting as long as that key stays in the ring.
 *
 * Keys are checked when the ring is built (nothing is sent or stored before a bad key is found),
 * and imported into Web Crypto on first use. Errors name the key id, never the key.
 */

import * as z from "zod/v4/mini";
import { fromBase64 } from "../converters/base64";
import { describePipedFields } from "../field-docs";
import { parseFields } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

/** Web Crypto's `CryptoKey` (named from `crypto.subtle`: the DOM types are not loaded). */
export type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** A Web Crypto AES-GCM key, or the base64 of a raw 128, 192 or 256-bit key. */
export type EncryptionKey = CryptoKey | string;

export interface KeyRingOptions {
  /**
   * Keys by id. Ids are stored beside each value (1 to 255 bytes of UTF-8, well-formed text). A
   * key as a string is the base64 of its raw bytes (hex is refused: see `checkedKey`).
   */
  keys: Record<string, EncryptionKey>;
  /** The id of the key new values are encrypted with; optional when there is one key. */
  activeKeyId?: string | undefined;
}

const RAW_KEY_BYTES = new Set([16, 24, 32]);
export const MAX_KEY_ID_BYTES = 255;

export class KeyRing {
  readonly activeKeyId: string;
  readonly #sources: ReadonlyMap<string, CryptoKey | Uint8Array>;
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(options: KeyRingOptions) {
    const ring = parseFields(keyRingSchema, options, "keys");
    this.#sources = ring.sources;
    this.activeKeyId = ring.activeKeyId;
  }

  /** Every key id the ring holds. */
  get keyIds(): string[] {
    return [...this.#sources.keys()];
  }

  has(keyId: string): boolean {
    return this.#sources.has(keyId);
  }

  /** The Web Crypto key under `keyId` (which must be in the ring). */
  key(keyId: string): Promise<CryptoKey> {
    let imported = this.#imported.get(keyId);
    if (!imported) {
      const source = this.#sources.get(keyId)!;
      imported =
        source instanceof Uint8Array
          ? crypto.subtle.importKey("raw", source, "AES-GCM", false, ["encrypt", "decrypt"])
          : Promise.resolve(source);
      this.#imported.set(keyId, imported);
    }
    return imported;
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8");

/** A key id as errors name it (`keys.<id>`), escaped when the id is not well formed. */
function idInField(id: string): string {
  return roundTrips(id) ? id : JSON.stringify(id).slice(1, -1);
}

/** Whether `id` reads back the same from its UTF-8 bytes (a lone surrogate does not). */
function roundTrips(id: string): boolean {
  return fromUtf8.decode(utf8.encode(id)) === id;
}

/** What is wrong with a key id, if anything. */
function keyIdProblem(id: string): string | undefined {
  if (!roundTrips(id)) {
    return (
      "is not well-formed text (it holds a lone surrogate): it is stored as UTF-8 beside " +
      "each value and would read back as another id, so nothing written under it could be " +
      'read. Use plain text such as "2025-06"'
    );
  }
  const bytes = utf8.encode(id).length;
  if (bytes === 0 || bytes > MAX_KEY_ID_BYTES) {
    return `key ids must be 1 to ${MAX_KEY_ID_BYTES} bytes of UTF-8 (got ${bytes})`;
  }
  return undefined;
}

/** Hex of a 128, 192 or 256-bit key (also valid base64, which decodes to other bytes). */
const HEX_KEY = /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{48}|[0-9a-fA-F]{64})$/;

/** A key as the ring keeps it (raw bytes, or a usable CryptoKey), or what is wrong with it. */
function keySource(key: unknown): { source: CryptoKey | Uint8Array } | { problem: string } {
  if (typeof key === "string") {
    // Refused rather than read as hex: 32 hex digits are also the base64 of 24 other bytes, so
    // either reading would silently be a different key for some tool sharing the data.
    if (HEX_KEY.test(key)) {
      return {
        problem:
          `looks like hex (${key.length} hex digits); keys are base64 of the raw key ` +
          `bytes. Convert it once, e.g. Buffer.from(hexKey, "hex").toString("base64"), and ` +
          `pass that`,
      };
    }
    const bytes = fromBase64(key);
    if (bytes === undefined) {
      return { problem: "is a string that is not base64 (of a raw AES key)" };
    }
    if (!RAW_KEY_BYTES.has(bytes.length)) {
      return {
        problem:
          `decodes to ${bytes.length} bytes; an AES key is 16, 24 or 32 bytes (make one ` +
          `with crypto.getRandomValues(new Uint8Array(32)))`,
      };
    }
    return { source: bytes };
  }
  if (isCryptoKey(key)) {
    const usable =
      key.algorithm.name === "AES-GCM" &&
      key.usages.includes("encrypt") &&
      key.usages.includes("decrypt");
    if (!usable) {
      return {
        problem:
          `must be an AES-GCM CryptoKey usable to encrypt and decrypt (got ` +
          `${key.algorithm.name}, usages ${key.usages.join(", ") || "none"})`,
      };
    }
    return { source: key };
  }
  return {
    problem:
      `must be a CryptoKey for AES-GCM or the base64 of a raw key (got ` +
      `${key === null ? "null" : typeof key})`,
  };
}

/** `keys`: every id and key checked, in order (the first bad one is named), kept by id. */
const keysSchema = z.pipe(
  z.custom<Record<string, unknown>>(
    (keys) => typeof keys === "object" && keys !== null && Object.keys(keys).length > 0,
    { error: "must hold at least one key, by id: { k1: key }" },
  ),
  z.transform((keys, ctx) => {
    const sources = new Map<string, CryptoKey | Uint8Array>();
    for (const [id, key] of Object.entries(keys)) {
      const checked = keySource(key);
      const problem = keyIdProblem(id) ?? ("problem" in checked ? checked.problem : undefined);
      if (problem !== undefined || !("source" in checked)) {
        // The path is the id as errors show it: escaped when it is not well formed.
        ctx.issues.push({ code: "custom", input: key, path: [idInField(id)], message: problem! });
        return z.NEVER;
      }
      sources.set(id, checked.source);
    }
    return sources;
  }),
);

/**
 * The ring's options, read as `options.keys` and `options.activeKeyId` (the encrypted serde's
 * other options pass by), checked, and resolved to the keys by id and the active id.
 */
const keyRingSchema = z.pipe(
  z.pipe(
    z.custom<Partial<KeyRingOptions>>(
      (options) => typeof options === "object" && options !== null,
      { error: "must be an object of keys by id" },
    ),
    // Checked next, whatever they hold: the object schema names the one at fault.
    z.transform(
      ({ keys, activeKeyId }): { keys: Record<string, unknown>; activeKeyId?: string } => ({
        keys: keys as Record<string, unknown>,
        activeKeyId,
      }),
    ),
  ),
  z.pipe(
    z.object({ keys: keysSchema, activeKeyId: z.optional(z.custom<string>()) }),
    z.transform(({ keys: sources, activeKeyId }, ctx) => {
      const ids = [...sources.keys()];
      const listed = ids.map((id) => `"${id}"`).join(", ");
      if (activeKeyId === undefined && ids.length > 1) {
        ctx.issues.push({
          code: "custom",
          input: activeKeyId,
          path: ["activeKeyId"],
          message:
            `is required with several keys: name the one new values are encrypted with ` +
            `(one of ${listed})`,
        });
        return z.NEVER;
      }
      const active = activeKeyId ?? ids[0]!;
      if (!sources.has(active)) {
        ctx.issues.push({
          code: "custom",
          input: activeKeyId,
          path: ["activeKeyId"],
          message: `names no key ("${active}"); the keys are ${listed}`,
        });
        return z.NEVER;
      }
      return {
        sources: sources as ReadonlyMap<string, CryptoKey | Uint8Array>,
        activeKeyId: active,
      };
    }),
  ),
);

describePipedFields<"keys" | "activeKeyId">("encryption", keyRingSchema, {
  keys:
    "Keys by id: a Web Crypto AES-GCM `CryptoKey` or the base64 of a raw 128, 192 or 256-bit " +
    "key; ids are 1 to 255 bytes of text",
  activeKeyId: "The id of the key new values are encrypted with; optional when there is one key",
});

/** Checked by shape: `instanceof CryptoKey` fails across realms (a worker's key, a test's VM). */
function isCryptoKey(value: unknown): value is CryptoKey {
  const candidate = value as Partial<CryptoKey> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.algorithm === "object" &&
    Array.isArray(candidate.usages) &&
    typeof candidate.type === "string"
  );
}
