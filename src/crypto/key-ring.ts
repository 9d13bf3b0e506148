/**
 * The keys an encrypted serializer holds, by id: every one of them decrypts, the active one
 * encrypts. Rotation is adding a key under a new id and making it active; values written with an
 * older key keep naming its id and keep decrypting as long as that key stays in the ring.
 *
 * Keys are checked when the ring is built (nothing is sent or stored before a bad key is found),
 * and imported into Web Crypto on first use. Errors name the key id, never the key.
 */

import { fromBase64 } from "../converters/base64";
import { StudioValidationError } from "../errors";

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
  readonly #sources = new Map<string, CryptoKey | Uint8Array>();
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(options: KeyRingOptions) {
    if (typeof options !== "object" || options === null) {
      throw new StudioValidationError("keys", "must be an object of keys by id");
    }
    const { keys, activeKeyId } = options;
    if (typeof keys !== "object" || keys === null || Object.keys(keys).length === 0) {
      throw new StudioValidationError("keys", "must hold at least one key, by id: { k1: key }");
    }
    for (const [id, key] of Object.entries(keys)) {
      checkKeyId(keyField(id), id);
      this.#sources.set(id, checkedKey(keyField(id), key));
    }
    const ids = [...this.#sources.keys()];
    if (activeKeyId === undefined && ids.length > 1) {
      throw new StudioValidationError(
        "activeKeyId",
        `is required with several keys: name the one new values are encrypted with (one of ${ids.map((id) => `"${id}"`).join(", ")})`,
      );
    }
    const active = activeKeyId ?? ids[0]!;
    if (!this.#sources.has(active)) {
      throw new StudioValidationError(
        "activeKeyId",
        `names no key ("${active}"); the keys are ${ids.map((id) => `"${id}"`).join(", ")}`,
      );
    }
    this.activeKeyId = active;
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

/** The field naming a key id in errors: `keys.<id>`, escaped when the id is not well formed. */
function keyField(id: string): string {
  return `keys.${roundTrips(id) ? id : JSON.stringify(id).slice(1, -1)}`;
}

/** Whether `id` reads back the same from its UTF-8 bytes (a lone surrogate does not). */
function roundTrips(id: string): boolean {
  return fromUtf8.decode(utf8.encode(id)) === id;
}

function checkKeyId(field: string, id: string): void {
  if (!roundTrips(id)) {
    throw new StudioValidationError(
      field,
      'is not well-formed text (it holds a lone surrogate): it is stored as UTF-8 beside each value and would read back as another id, so nothing written under it could be read. Use plain text such as "2025-06"',
    );
  }
  const bytes = utf8.encode(id).length;
  if (bytes === 0 || bytes > MAX_KEY_ID_BYTES) {
    throw new StudioValidationError(
      field,
      `key ids must be 1 to ${MAX_KEY_ID_BYTES} bytes of UTF-8 (got ${bytes})`,
    );
  }
}

/** Hex of a 128, 192 or 256-bit key (also valid base64, which decodes to other bytes). */
const HEX_KEY = /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{48}|[0-9a-fA-F]{64})$/;

function checkedKey(field: string, key: unknown): CryptoKey | Uint8Array {
  if (typeof key === "string") {
    // Refused rather than read as hex: 32 hex digits are also the base64 of 24 other bytes, so
    // either reading would silently be a different key for some tool sharing the data.
    if (HEX_KEY.test(key)) {
      throw new StudioValidationError(
        field,
        `looks like hex (${key.length} hex digits); keys are base64 of the raw key bytes. Convert it once, e.g. Buffer.from(hexKey, "hex").toString("base64"), and pass that`,
      );
    }
    const bytes = fromBase64(key);
    if (bytes === undefined) {
      throw new StudioValidationError(field, "is a string that is not base64 (of a raw AES key)");
    }
    if (!RAW_KEY_BYTES.has(bytes.length)) {
      throw new StudioValidationError(
        field,
        `decodes to ${bytes.length} bytes; an AES key is 16, 24 or 32 bytes (make one with crypto.getRandomValues(new Uint8Array(32)))`,
      );
    }
    return bytes;
  }
  if (isCryptoKey(key)) {
    const usable =
      key.algorithm.name === "AES-GCM" &&
      key.usages.includes("encrypt") &&
      key.usages.includes("decrypt");
    if (!usable) {
      throw new StudioValidationError(
        field,
        `must be an AES-GCM CryptoKey usable to encrypt and decrypt (got ${key.algorithm.name}, usages ${key.usages.join(", ") || "none"})`,
      );
    }
    return key;
  }
  throw new StudioValidationError(
    field,
    `must be a CryptoKey for AES-GCM or the base64 of a raw key (got ${key === null ? "null" : typeof key})`,
  );
}

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
