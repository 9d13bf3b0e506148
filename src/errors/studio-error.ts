/**
 * The root of every error the package throws. Each class names itself with a string literal
 * (`static { named(...) }`), not from its constructor's name, so `err.name` stays right after
 * bundlers and minifiers rename classes.
 *
 * No error ever holds the API key: the message (and so the stack) and the cause go through the
 * redactor (./redact.ts) here, and every subclass field that can carry server or caller text goes
 * through it too.
 */
import { redactCause, redactText } from "./redact";

/** Sets the `name` every instance of `cls` reports (on the prototype, like `Error`'s own). */
export function named(cls: { prototype: Error }, name: string): void {
  Object.defineProperty(cls.prototype, "name", {
    value: name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

export class StudioError extends Error {
  static {
    named(StudioError, "StudioError");
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(
      redactText(message),
      options?.cause === undefined ? undefined : { cause: redactCause(options.cause) },
    );
    // A subclass declared elsewhere without `named` still gets a name, if a minifiable one.
    if (!Object.hasOwn(new.target.prototype, "name")) this.name = new.target.name;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}
