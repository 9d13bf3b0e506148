/**
 * The few things this backend does with a node-redis client: raw commands (replies read as RESP2
 * arrays, the protocol every connection here speaks), scripts by their SHA with the text sent
 * once, pub/sub, and fresh connections of the same settings. `redis` is an optional peer: it is
 * loaded when a backend is built, never by the main entry or the server's.
 */
import { StudioError } from "../../errors";

/** The node-redis client methods used here (its `RedisClientType` has them all). */
export interface RedisClientLike {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand<T = unknown>(args: readonly string[]): Promise<T>;
  duplicate(overrides?: Record<string, unknown>): RedisClientLike;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  on(event: "error", listener: (error: unknown) => void): unknown;
  close(): Promise<void>;
  destroy(): void;
}

/** A new client for `url`, with `redis` loaded now. */
export async function clientFor(url: string): Promise<RedisClientLike> {
  let redis: { createClient(options: Record<string, unknown>): unknown };
  try {
    redis = (await import("redis")) as never;
  } catch (cause) {
    throw new StudioError(
      "redisCoordination needs the `redis` package (node-redis 6); install it: npm install redis",
      { cause },
    );
  }
  const client = redis.createClient({ url, RESP: 2 }) as RedisClientLike;
  // Its copies connect; this one never does, but node-redis wants its errors listened to.
  client.on("error", () => {});
  return client;
}

/** Redis's SHA1 of a script, computed with Web Crypto (the key EVALSHA takes). */
async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs scripts by SHA, sending a script's text only when Redis does not have it (a restart). */
export class Scripts {
  readonly #client: RedisClientLike;
  readonly #shas = new Map<string, Promise<string>>();

  constructor(client: RedisClientLike) {
    this.#client = client;
  }

  async run<T>(script: string, keys: readonly string[], args: readonly string[]): Promise<T> {
    let sha = this.#shas.get(script);
    if (!sha) {
      sha = sha1(script);
      this.#shas.set(script, sha);
    }
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.#client.sendCommand<T>(["EVALSHA", await sha, ...tail]);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      return this.#client.sendCommand<T>(["EVAL", script, ...tail]);
    }
  }
}

/**
 * One blocking read of a stream's entries after entry `from`: at most 256, as soon as there are
 * any, or null after `blockMs` without one. It holds `reader`'s connection meanwhile.
 */
export function readAfter(
  reader: RedisClientLike,
  key: string,
  from: string,
  blockMs: number,
): Promise<unknown> {
  return reader.sendCommand([
    "XREAD",
    "COUNT",
    "256",
    "BLOCK",
    String(blockMs),
    "STREAMS",
    key,
    from,
  ]);
}

/** A flat RESP2 hash reply (`HGETALL`) as an object. */
export function hashOf(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}
