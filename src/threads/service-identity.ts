/**
 * Which service account a client talks to, so that what one history learns about the account's
 * sessions serves every other client of the same account in the process.
 *
 * Most people build a history from client options (`new StudioChatMessageHistory({ sessionId })`),
 * and each such history builds its own client: caching per client object would make every history
 * start cold. A client built here from options is remembered with its account's identity: the
 * studio address, the organization and a SHA-256 of the key. The key itself is not kept (the
 * client holds it, as it must); its hash only tells two accounts on one address apart. A client
 * the caller passes in keeps a cache of its own, since its key cannot be read back from it.
 */
import type { StudioClient } from "../client";
import { resolveConfig } from "../client/config";
import { pickClientOptions } from "../client/options";
import { resolveClient, type StudioClientFields } from "../client/resolve";

/** Account identity of each client built by `resolveSessionClient`. */
const identities = new WeakMap<StudioClient, Promise<string | undefined>>();
/** The same, once computed (the hash is asynchronous; forgetting a thread is not). */
const computed = new WeakMap<StudioClient, string | undefined>();

interface NodeCrypto {
  createHash(algorithm: "sha256"): { update(text: string): { digest(encoding: "hex"): string } };
}

/**
 * Node's own hash where the runtime offers it (Node, Bun, Deno): Web Crypto's digest there is a
 * thread-pool round trip, most of the CPU of a protocol v2 thread's creation.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;

/**
 * Lower-case hex SHA-256 of the UTF-8 of `text` (Web Crypto: every runtime the package targets).
 */
export async function sha256Hex(text: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash("sha256").update(text).digest("hex");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * `resolveClient(fields)`, remembering the account of a client built from options so that its
 * session caches are shared with every other client built for the same account.
 */
export function resolveSessionClient(fields: StudioClientFields): StudioClient {
  const client = resolveClient(fields);
  if (fields.client === undefined) {
    const config = resolveConfig(pickClientOptions(fields));
    const address = config.studio ? config.studio.origin + config.studio.prefix : "";
    const account = sha256Hex(config.apiKey ?? "");
    const identity = account.then(
      (key) => `${address}\n${config.orgId ?? ""}\n${key}`,
      // Without Web Crypto (a page served over plain http), the client keeps a cache of its own.
      () => undefined,
    );
    // Recorded before anyone awaiting `identity` resumes.
    identities.set(
      client,
      identity.then((value) => {
        computed.set(client, value);
        return value;
      }),
    );
  }
  return client;
}

/** The account identity of a client built by `resolveSessionClient`, else undefined. */
export async function serviceIdentity(client: StudioClient): Promise<string | undefined> {
  return identities.get(client);
}

/**
 * `serviceIdentity` without waiting: "pending" while the hash is being computed (a client that
 * has looked anything up has its identity already).
 */
export function serviceIdentityNow(client: StudioClient): string | undefined | "pending" {
  if (computed.has(client)) return computed.get(client);
  return identities.has(client) ? "pending" : undefined;
}
