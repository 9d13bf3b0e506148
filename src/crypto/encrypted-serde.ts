/**
 * A LangGraph serializer that encrypts: the inner serializer (LangGraph's JSON one by default)
 * turns a value into bytes, and those bytes are sealed with AES-GCM (`envelope.ts`) before they
 * are stored. Reading refuses, with a `StudioDecryptionError` saying why, a value that was
 * changed, copied from another place, written with a key the ring lacks, or not encrypted at all
 * (unless `allowPlaintext`, for migrating stored data).
 *
 * LangGraph's `SerializerProtocol` passes only the value, so on its own it cannot bind a value to
 * the place it is stored. Callers that know the place use the contextual form (contexts in
 * `contexts.ts`): `sealFor`/`openFor` encrypt and decrypt what the `inner` serializer made, so a
 * caller can work on the serialized bytes in between (the checkpointer stores the part of a list
 * that was appended), and `dumpsTypedFor`/`loadsTypedFor` do both steps. `isContextualSerde` tells
 * callers whether a serializer offers the contextual form. The plain form still encrypts, bound to
 * the empty context.
 */
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { fromBase64 } from "../converters/base64";
import { type KnownKeys, refuseUnknownKeys } from "../validation";
import { open, seal } from "./envelope";
import { StudioDecryptionError } from "./errors";
import { KeyRing, type KeyRingOptions } from "./key-ring";

/** The type stored beside an encrypted value (the inner type is inside the ciphertext). */
export const ENCRYPTED_TYPE = "lc_aes_gcm";

/** A serializer that can bind each value to the place it is stored. */
export interface ContextualSerde extends SerializerProtocol {
  /** What turns values into the bytes that are sealed. */
  readonly inner: SerializerProtocol;
  /** Seals the inner serializer's `[type, bytes]` for `context`. */
  sealFor(context: string, serialized: [string, Uint8Array]): Promise<[string, Uint8Array]>;
  /**
   * The inner serializer's `[type, data]` of a value stored at `context`.
   * @throws StudioDecryptionError when the value is refused.
   */
  openFor(
    context: string,
    type: string,
    data: Uint8Array | string,
  ): Promise<[string, Uint8Array | string]>;
}

/** Whether `serde` offers the contextual form (and so wants to be told where values go). */
export function isContextualSerde(serde: unknown): serde is ContextualSerde {
  const candidate = serde as Partial<ContextualSerde> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.inner === "object" &&
    typeof candidate.sealFor === "function" &&
    typeof candidate.openFor === "function"
  );
}

export interface EncryptedSerdeOptions extends KeyRingOptions {
  /**
   * Read values stored before encryption was turned on (they are refused otherwise). New values
   * are always encrypted. Turn it off once the old values are rewritten or gone.
   */
  allowPlaintext?: boolean | undefined;
  /** What turns values into bytes before they are encrypted (LangGraph's JSON serializer). */
  serde?: SerializerProtocol | undefined;
}

/** Every option of the encrypted serializer; another is refused, naming the closest. */
const SERDE_OPTION_KEYS: KnownKeys = {
  owner: "createEncryptedSerde",
  known: [
    "keys",
    "activeKeyId",
    "allowPlaintext",
    "serde",
  ] satisfies (keyof EncryptedSerdeOptions)[],
};

export class EncryptedSerde implements ContextualSerde {
  readonly #ring: KeyRing;
  readonly #inner: SerializerProtocol;
  readonly #allowPlaintext: boolean;

  constructor(options: EncryptedSerdeOptions) {
    refuseUnknownKeys(options, SERDE_OPTION_KEYS);
    this.#ring = new KeyRing(options);
    this.#inner = options.serde ?? new JsonPlusSerializer();
    this.#allowPlaintext = options.allowPlaintext === true;
  }

  /** The id of the key new values are encrypted with. */
  get activeKeyId(): string {
    return this.#ring.activeKeyId;
  }

  /** The serializer that turns values into the bytes that are encrypted. */
  get inner(): SerializerProtocol {
    return this.#inner;
  }

  async sealFor(context: string, serialized: [string, Uint8Array]): Promise<[string, Uint8Array]> {
    return [ENCRYPTED_TYPE, await seal(this.#ring, context, serialized)];
  }

  async openFor(
    context: string,
    type: string,
    data: Uint8Array | string,
  ): Promise<[string, Uint8Array | string]> {
    if (type !== ENCRYPTED_TYPE) {
      if (!this.#allowPlaintext) {
        throw new StudioDecryptionError({
          reason: "plaintext",
          context,
          detail:
            `it is not encrypted (type "${type}") and encryption is on. If it was stored ` +
            `before encryption was turned on, pass allowPlaintext: true until such values are ` +
            `rewritten; otherwise someone stored it in place of an encrypted value.`,
        });
      }
      return [type, data];
    }
    const bytes = typeof data === "string" ? fromBase64(data) : data;
    if (bytes === undefined) {
      throw new StudioDecryptionError({
        reason: "malformed",
        context,
        detail: "it is marked encrypted but its data is text that is not base64.",
      });
    }
    return open(this.#ring, context, bytes);
  }

  async dumpsTypedFor(context: string, value: unknown): Promise<[string, Uint8Array]> {
    return this.sealFor(context, await this.#inner.dumpsTyped(value));
  }

  // biome-ignore lint/suspicious/noExplicitAny: the value type SerializerProtocol.loadsTyped gives.
  async loadsTypedFor(context: string, type: string, data: Uint8Array | string): Promise<any> {
    const [innerType, innerData] = await this.openFor(context, type, data);
    return this.#inner.loadsTyped(innerType, innerData);
  }

  dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
    return this.dumpsTypedFor("", value);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the value type SerializerProtocol.loadsTyped gives.
  loadsTyped(type: string, data: Uint8Array | string): Promise<any> {
    return this.loadsTypedFor("", type, data);
  }
}

/**
 * A serializer that encrypts every value with AES-GCM before it is stored:
 * `new StudioCheckpointSaver({ serde })`, `new StudioStore({ serde })`.
 *
 * ```ts
 * const serde = createEncryptedSerde({
 *   keys: {
 *     "2025-06": process.env.MEMORY_KEY_2025_06!,
 *     "2025-01": process.env.MEMORY_KEY_2025_01!,
 *   },
 *   activeKeyId: "2025-06",
 * });
 * ```
 * @throws StudioValidationError naming the key id when a key is unusable (nothing is stored).
 */
export function createEncryptedSerde(options: EncryptedSerdeOptions): EncryptedSerde {
  return new EncryptedSerde(options);
}
