/** The caller's input is missing or wrong: raised before anything is sent. */
import { named, StudioError } from "./studio-error";

/** A configuration value is missing or unusable (raised at the first call that needs it). */
export class StudioConfigError extends StudioError {
  static {
    named(StudioConfigError, "StudioConfigError");
  }

  readonly option: string;
  readonly envVar: string | undefined;

  constructor(option: string, envVar: string | undefined, message?: string) {
    super(
      message ??
        `Missing ${option}: pass the "${option}" option` +
          (envVar ? ` or set the ${envVar} environment variable.` : "."),
    );
    this.option = option;
    this.envVar = envVar;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), option: this.option, envVar: this.envVar };
  }
}

/** A caller-supplied value is out of range or of the wrong type; nothing was sent. */
export class StudioValidationError extends StudioError {
  static {
    named(StudioValidationError, "StudioValidationError");
  }

  /** Dotted path of the offending field, e.g. `temperature` or `messages[2].content`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`Invalid ${field}: ${message}`);
    this.field = field;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), field: this.field };
  }
}
