/**
 * `langchain-studio/server/redis`: runs coordinated across instances through Redis, for
 * `createAgentServer({ coordination: redisCoordination({ url }) })`. Node (and Bun, Deno) only:
 * it connects with node-redis (`redis`, an optional peer dependency, loaded here only).
 */
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../../errors";
import { integerAtLeast, knownKeysOnly, parseFields } from "../../validation";
import type { RunCoordination } from "../coordination";
import { clientFor, type RedisClientLike } from "./connection";
import { RedisCoordination } from "./redis-coordination";

export interface RedisCoordinationOptions {
  /** The Redis to use (`redis://host:6379`, `rediss://` for TLS). Or give `client`. */
  url?: string | undefined;
  /**
   * A node-redis client (`createClient(...)`) whose settings the backend's own connections copy
   * (it opens its own: commands, pub/sub, and one per stream read). Or give `url`.
   */
  client?: RedisClientLike | undefined;
  /** Prefix of every key and channel, so servers can share a Redis. Default `"lcs:"`. */
  keyPrefix?: string | undefined;
  /** This instance's name in leases and reports. Default: a random id. */
  instanceId?: string | undefined;
  /**
   * How long a thread's lease lasts without a heartbeat, in ms: how soon another instance takes
   * over the run of an instance that died. Heartbeats go every third of it. Default 10,000.
   */
  leaseMs?: number | undefined;
  /** The most runs this instance takes over from others at once. Default 8. */
  maxBackgroundRuns?: number | undefined;
  /** How long an ended run's events stay for a join, in seconds. Default 3600. */
  eventTtlSeconds?: number | undefined;
  /** How long an ended run stays listed, in seconds. Default 86,400. */
  recordTtlSeconds?: number | undefined;
  /** The most events a run keeps (the oldest go first). Default 10,000. */
  maxEventsPerRun?: number | undefined;
}

const shape = z.object({
  url: z.optional(
    z.string().check(z.regex(/^rediss?:\/\//, "must start with redis:// or rediss://")),
  ),
  client: z.optional(
    z.custom<RedisClientLike>(isClientLike, {
      error: "must be a node-redis client (createClient from the `redis` package)",
    }),
  ),
  keyPrefix: z.optional(z.string()),
  instanceId: z.optional(
    z.string().check(z.regex(/^[^|]+$/, "must be a non-empty name without |")),
  ),
  leaseMs: z.optional(integerAtLeast(100)),
  maxBackgroundRuns: z.optional(integerAtLeast(0)),
  eventTtlSeconds: z.optional(integerAtLeast(1)),
  recordTtlSeconds: z.optional(integerAtLeast(1)),
  maxEventsPerRun: z.optional(integerAtLeast(1)),
});

const optionsSchema = knownKeysOnly(shape, {
  owner: "redisCoordination",
  known: Object.keys(shape.shape),
});

/**
 * The coordination backend for `createAgentServer`'s `coordination` option. It connects when
 * the server starts using it; a bad option is a `StudioValidationError` naming it, here.
 */
export function redisCoordination(options: RedisCoordinationOptions): RunCoordination {
  const fields = parseFields(optionsSchema, options, "options");
  if ((fields.url === undefined) === (fields.client === undefined)) {
    throw new StudioValidationError("url", "give either url or client (exactly one of them)");
  }
  const { client, url } = fields;
  return new RedisCoordination({
    base: client ? async () => client : () => clientFor(url ?? ""),
    keyPrefix: fields.keyPrefix ?? "lcs:",
    instanceId: fields.instanceId ?? crypto.randomUUID(),
    leaseMs: fields.leaseMs ?? 10_000,
    maxBackgroundRuns: fields.maxBackgroundRuns ?? 8,
    eventTtlSeconds: fields.eventTtlSeconds ?? 3600,
    recordTtlSeconds: fields.recordTtlSeconds ?? 86_400,
    maxEventsPerRun: fields.maxEventsPerRun ?? 10_000,
  });
}

function isClientLike(value: unknown): value is RedisClientLike {
  const client = value as Partial<RedisClientLike> | null;
  return typeof client?.duplicate === "function" && typeof client.sendCommand === "function";
}
