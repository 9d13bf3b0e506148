/**
 * The client a history (or a dataset export) talks through: the caller's own, or one built from
 * client options. Built clients are shared between instances with the same options, because the
 * usual LangChain pattern (`getMessageHistory: (id) => new StudioChatMessageHistory(...)`) builds
 * a history per call, and a client per call would open a new connection pool each time.
 */
import { createHash } from "node:crypto";
import { StudioClient } from "../client";
import type { StudioClientOptions } from "../client/types";
import { StudioConfigError } from "../errors";

const CLIENT_OPTION_NAMES = [
  "apiKey",
  "orgId",
  "baseUrl",
  "proxyUrl",
  "timeout",
  "streamIdleTimeout",
  "maxRetries",
  "defaultHeaders",
  "dispatcher",
  "fetch",
  "maxResponseBytes",
] as const satisfies readonly (keyof StudioClientOptions)[];

const ENV_NAMES = ["STUDIO_API_KEY", "STUDIO_ORG_ID", "STUDIO_BASE_URL", "STUDIO_PROXY_URL"];

/** Most clients kept for sharing; older ones are dropped from the cache (not closed). */
const MAX_SHARED = 16;
const shared = new Map<string, StudioClient>();
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

function identity(value: unknown): unknown {
  if ((typeof value === "object" && value !== null) || typeof value === "function") {
    if (!objectIds.has(value)) objectIds.set(value, nextObjectId++);
    return `#${objectIds.get(value)}`;
  }
  return value;
}

/** A digest rather than the options themselves, so no cache key ever spells out the API key. */
function cacheKey(options: StudioClientOptions): string {
  const parts = CLIENT_OPTION_NAMES.map((name) =>
    name === "defaultHeaders" ? options.defaultHeaders : identity(options[name]),
  );
  const env = ENV_NAMES.map((name) => process.env[name]);
  return createHash("sha256")
    .update(JSON.stringify([parts, env]))
    .digest("hex");
}

/** The client options among `fields`, only those that are set. */
export function pickClientOptions(fields: StudioClientOptions): StudioClientOptions {
  const options: Record<string, unknown> = {};
  for (const name of CLIENT_OPTION_NAMES) {
    if (fields[name] !== undefined) options[name] = fields[name];
  }
  return options as StudioClientOptions;
}

/**
 * `fields.client` when given, else a shared client for the options in `fields`. Giving both is a
 * mistake (the options would be silently ignored), so it is refused.
 */
export function resolveClient(
  fields: StudioClientOptions & { client?: StudioClient },
): StudioClient {
  const options = pickClientOptions(fields);
  if (fields.client !== undefined) {
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
  const key = cacheKey(options);
  let client = shared.get(key);
  if (client === undefined) {
    client = new StudioClient(options);
    shared.set(key, client);
    if (shared.size > MAX_SHARED) {
      const oldest = shared.keys().next().value;
      if (oldest !== undefined) shared.delete(oldest);
    }
  }
  return client;
}
