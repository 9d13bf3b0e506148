/**
 * One encrypted value as stored: AES-GCM (Web Crypto, so every runtime the package targets), with
 * the key id beside the ciphertext for rotation and the place the value belongs to (its context)
 * bound in as associated data, so a value copied to another place does not decrypt there.
 *
 * Bytes, in order:
 *   1   format (1)
 *   1   n, the length of the key id
 *   n   key id, UTF-8
 *   8   the first 8 bytes of SHA-256(context): not secret (the context is where the value is
 *       stored), kept only to tell a value replayed from elsewhere from a tampered one
 *   12  IV, random per value
 *   ..  ciphertext and 16-byte tag of: 1 byte m, m bytes of the inner serializer's type, its bytes
 * Associated data: the UTF-8 of JSON ["langchain-studio/aes-gcm", 1, keyId, context].
 */
import { StudioError } from "../errors";
import { StudioDecryptionError } from "./errors";
import type { KeyRing } from "./key-ring";

const FORMAT = 1;
const FINGERPRINT_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_TYPE_BYTES = 255;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Encrypts the inner serializer's `[type, bytes]` for `context` with the ring's active key. */
export async function seal(
  ring: KeyRing,
  context: string,
  [innerType, bytes]: [string, Uint8Array],
): Promise<Uint8Array> {
  const keyId = utf8.encode(ring.activeKeyId);
  const type = utf8.encode(innerType);
  if (type.length > MAX_TYPE_BYTES) {
    throw new StudioError(
      `The serializer's type "${innerType.slice(0, 40)}..." is ${type.length} bytes; an ` +
        `encrypted value keeps at most ${MAX_TYPE_BYTES}. Nothing was stored.`,
    );
  }
  const plaintext = concat([Uint8Array.of(type.length), type, bytes]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: associatedData(ring.activeKeyId, context) },
    await ring.key(ring.activeKeyId),
    plaintext,
  );
  return concat([
    Uint8Array.of(FORMAT, keyId.length),
    keyId,
    await fingerprint(context),
    iv,
    new Uint8Array(ciphertext),
  ]);
}

/**
 * The inner serializer's `[type, bytes]` of a sealed value read at `context`.
 * @throws StudioDecryptionError saying why it is refused (never holding key or value).
 */
export async function open(
  ring: KeyRing,
  context: string,
  data: Uint8Array,
): Promise<[string, Uint8Array]> {
  const parsed = parse(data, context);
  if (!ring.has(parsed.keyId)) {
    throw new StudioDecryptionError({
      reason: "unknownKey",
      keyId: parsed.keyId,
      context,
      detail:
        `it was encrypted with key id "${parsed.keyId}", which is not among the keys ` +
        `given (${ring.keyIds.map((id) => `"${id}"`).join(", ")}). Keep retired keys in ` +
        `\`keys\` under their ids for as long as values written with them are stored.`,
    });
  }
  let plaintext: Uint8Array;
  try {
    plaintext = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: parsed.iv, additionalData: associatedData(parsed.keyId, context) },
        await ring.key(parsed.keyId),
        parsed.ciphertext,
      ),
    );
  } catch {
    throw await integrityFailure(parsed.keyId, parsed.fingerprint, context);
  }
  const typeLength = plaintext[0] ?? 0;
  const type =
    plaintext.length > typeLength ? decodeText(plaintext.subarray(1, 1 + typeLength)) : undefined;
  if (type === undefined) {
    throw malformed(context, "its decrypted bytes do not start with a serializer type");
  }
  return [type, plaintext.subarray(1 + typeLength)];
}

interface Parsed {
  keyId: string;
  fingerprint: Uint8Array;
  iv: Uint8Array;
  ciphertext: Uint8Array;
}

function parse(data: Uint8Array, context: string): Parsed {
  if (data[0] !== FORMAT) {
    throw malformed(context, `it does not start with the format byte ${FORMAT}`);
  }
  const idLength = data[1] ?? 0;
  const fingerprintAt = 2 + idLength;
  const ivAt = fingerprintAt + FINGERPRINT_BYTES;
  const ciphertextAt = ivAt + IV_BYTES;
  const keyId = decodeText(data.subarray(2, fingerprintAt));
  if (idLength === 0 || keyId === undefined || data.length < ciphertextAt + TAG_BYTES + 1) {
    throw malformed(context, `it is ${data.length} bytes, too short for its header`);
  }
  return {
    keyId,
    fingerprint: data.subarray(fingerprintAt, ivAt),
    iv: data.subarray(ivAt, ciphertextAt),
    ciphertext: data.subarray(ciphertextAt),
  };
}

async function integrityFailure(
  keyId: string,
  storedFingerprint: Uint8Array,
  context: string,
): Promise<StudioDecryptionError> {
  const expected = await fingerprint(context);
  if (!sameBytes(expected, storedFingerprint)) {
    return new StudioDecryptionError({
      reason: "wrongContext",
      keyId,
      context,
      detail:
        "it was encrypted for another place and copied here (a value decrypts only where it " +
        "was written: same thread, checkpoint and channel, or same namespace and key). Nothing " +
        "of it was used.",
    });
  }
  return new StudioDecryptionError({
    reason: "tampered",
    keyId,
    context,
    detail:
      `it fails its integrity check: it was changed after it was written, or the key ` +
      `under id "${keyId}" is not the one it was written with. Nothing of it was used.`,
  });
}

function malformed(context: string, why: string): StudioDecryptionError {
  return new StudioDecryptionError({
    reason: "malformed",
    context,
    detail: `it is marked encrypted but is not in the package's encrypted format: ${why}.`,
  });
}

function associatedData(keyId: string, context: string): Uint8Array {
  return utf8.encode(JSON.stringify(["langchain-studio/aes-gcm", FORMAT, keyId, context]));
}

async function fingerprint(context: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest("SHA-256", utf8.encode(context));
  return new Uint8Array(digest, 0, FINGERPRINT_BYTES);
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return fromUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
