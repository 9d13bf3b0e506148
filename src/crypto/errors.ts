import { named, StudioError } from "../errors";

/** Why an encrypted value was refused. */
export type DecryptionRefusal =
  /** Its integrity check failed: changed after it was written, or another key under its id. */
  | "tampered"
  /** Written for another place (thread, checkpoint, channel; namespace and key) and copied here. */
  | "wrongContext"
  /** Written with a key id that is not among the keys given. */
  | "unknownKey"
  /** Not encrypted, and `allowPlaintext` is off. */
  | "plaintext"
  /** Not in the encrypted format at all (cut short, or another tool's bytes). */
  | "malformed";

/**
 * A stored value was refused by the encrypted serializer: nothing of it was used. `reason` says
 * why; the message says what to do. It never holds key material or the value.
 */
export class StudioDecryptionError extends StudioError {
  static {
    named(StudioDecryptionError, "StudioDecryptionError");
  }

  readonly reason: DecryptionRefusal;
  /** The key id the value names, when it could be read. */
  readonly keyId: string | undefined;
  /** Where the value was read (see `encryptionContext`); "" for a value read without one. */
  readonly context: string;

  constructor(init: {
    reason: DecryptionRefusal;
    keyId?: string | undefined;
    context: string;
    detail: string;
  }) {
    const where = init.context === "" ? "" : ` at ${init.context}`;
    super(`Refused a stored value${where}: ${init.detail}`);
    this.reason = init.reason;
    this.keyId = init.keyId;
    this.context = init.context;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason, keyId: this.keyId, context: this.context };
  }
}
