/**
 * The one way every class and function of the package gets its client: the caller's own
 * (`client`), or one built from the client options. Who closes it: a passed client is the
 * caller's; a built one belongs to the object that built it and needs no closing, because its
 * pooled sockets are released once idle (nothing leaks, and a process exits on its own).
 */
import { StudioConfigError, StudioValidationError } from "../errors";
import { StudioClient } from "./index";
import { pickClientOptions, type StudioClientOptions } from "./options";

/** Either a ready `client` or the options to build one, never both. */
export type StudioClientFields = StudioClientOptions & { client?: StudioClient | undefined };

/**
 * `fields.client` when given, else a new client for the options in `fields`. Giving both is a
 * mistake (the options would be silently ignored), so it is refused, naming both.
 */
export function resolveClient(fields: StudioClientFields): StudioClient {
  const options = pickClientOptions(fields);
  if (fields.client === undefined) return new StudioClient(options);
  if (!(fields.client instanceof StudioClient)) {
    throw new StudioValidationError(
      "client",
      "must be a StudioClient instance (or leave it out and pass the client options)",
    );
  }
  const extra = Object.keys(options);
  if (extra.length > 0) {
    throw new StudioConfigError(
      "client",
      undefined,
      `Pass either "client" or client options, not both (got "client" and ` +
        `${extra.map((n) => `"${n}"`).join(", ")}). Configure the client you pass instead.`,
    );
  }
  return fields.client;
}
