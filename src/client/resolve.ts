/**
 * The one way every class and function of the package gets its client: the caller's own
 * (`client`), or one built from the client options. Who closes it: a passed client is the
 * caller's; a built one belongs to the object that built it and needs no closing, because its
 * pooled sockets are released once idle (nothing leaks, and a process exits on its own).
 */
import { StudioConfigError, StudioValidationError } from "../errors";
import { StudioClient } from "./index";
import type { StudioClientOptions } from "./types";

/** Either a ready `client` or the options to build one, never both. */
export type StudioClientFields = StudioClientOptions & { client?: StudioClient | undefined };

/** Every option of `StudioClientOptions`; the `satisfies` keeps the list and the type in step. */
export const CLIENT_OPTION_NAMES = [
  "apiKey",
  "orgId",
  "baseUrl",
  "proxyUrl",
  "timeout",
  "streamIdleTimeout",
  "streamTimeout",
  "maxRetries",
  "defaultHeaders",
  "connections",
  "dispatcher",
  "fetch",
  "maxResponseBytes",
] as const satisfies readonly (keyof StudioClientOptions)[];

/** The client options among `fields`, only those that are set. */
export function pickClientOptions(fields: StudioClientOptions): StudioClientOptions {
  const options: Record<string, unknown> = {};
  for (const name of CLIENT_OPTION_NAMES) {
    if (fields[name] !== undefined) options[name] = fields[name];
  }
  return options as StudioClientOptions;
}

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
      `Pass either "client" or client options, not both (got "client" and ${extra.map((n) => `"${n}"`).join(", ")}). Configure the client you pass instead.`,
    );
  }
  return fields.client;
}
