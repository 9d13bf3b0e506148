/**
 * `langchain-studio/server/redis`: runs coordinated across instances through Redis, for
 * `createAgentServer({ coordination: redisCoordination({ url }) })`. Node (and Bun, Deno) only:
 * it connects with node-redis (`redis`, an optional peer dependency, loaded here only).
 */
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../../errors";
import { describeFields } from "../../field-docs";
import { integerAtLeast, knownKeysOnly, parseFields } from "../../validation";
import { useEnglishMessages } from "../../zod-locale";
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
  /**
   * The most background runs this instance runs at once (its worker slots): runs no client
   * streams from it (`POST .../runs`, the `wait` routes, stateless `/runs`), its own and those it
   * claims from the shared ready queue, and every run it takes over from another instance. A
   * background run admitted on a full instance waits in the queue for a free slot on any
   * instance. 0: this instance runs none (it only admits them). Default 8.
   */
  maxBackgroundRuns?: number | undefined;
  /** How long an ended run's events stay for a join, in seconds. Default 3600. */
  eventTtlSeconds?: number | undefined;
  /** How long an ended run stays listed, in seconds. Default 86,400. */
  recordTtlSeconds?: number | undefined;
  /** The most events a run keeps (the oldest go first). Default 10,000. */
  maxEventsPerRun?: number | undefined;
}

useEnglishMessages();

const DEFAULTS = {
  keyPrefix: "lcs:",
  leaseMs: 10_000,
  maxBackgroundRuns: 8,
  eventTtlSeconds: 3600,
  recordTtlSeconds: 86_400,
  maxEventsPerRun: 10_000,
} as const;

const shape = z.object({
  url: z.optional(
    z.string().check(z.regex(/^rediss?:\/\//, "must start with redis:// or rediss://")),
  ),
  client: z.optional(
    z.custom<RedisClientLike>(isClientLike, {
      error: "must be a node-redis client (createClient from the `redis` package)",
    }),
  ),
  keyPrefix: z._default(z.string(), DEFAULTS.keyPrefix),
  instanceId: z.optional(
    z.string().check(z.regex(/^[^|]+$/, "must be a non-empty name without |")),
  ),
  leaseMs: z._default(integerAtLeast(100), DEFAULTS.leaseMs),
  maxBackgroundRuns: z._default(integerAtLeast(0), DEFAULTS.maxBackgroundRuns),
  eventTtlSeconds: z._default(integerAtLeast(1), DEFAULTS.eventTtlSeconds),
  recordTtlSeconds: z._default(integerAtLeast(1), DEFAULTS.recordTtlSeconds),
  maxEventsPerRun: z._default(integerAtLeast(1), DEFAULTS.maxEventsPerRun),
});

describeFields("redis-coordination", shape, {
  url: "The Redis to use (`redis://host:6379`, `rediss://` for TLS); or give `client`",
  client: "A node-redis client whose settings the backend's own connections copy; or give `url`",
  keyPrefix: "Prefix of every key and channel, so several servers can share one Redis",
  instanceId: "This instance's name in leases and in reports",
  leaseMs:
    "How long a thread's lease lasts without a heartbeat (sent every third of it): how soon " +
    "another instance takes over the run of an instance that died",
  maxBackgroundRuns:
    "The most background runs this instance runs at once: its own, those it claims from the " +
    "shared ready queue, and the runs it takes over; a run admitted on a full instance waits in " +
    "the queue for a free slot on any instance (0: this instance runs none)",
  eventTtlSeconds: "How long an ended run's events stay for a join, in seconds",
  recordTtlSeconds: "How long an ended run stays listed, in seconds",
  maxEventsPerRun: "The most events a run keeps in Redis (the oldest go first)",
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
  const fields: z.output<typeof shape> = parseFields(optionsSchema, options, "options");
  if ((fields.url === undefined) === (fields.client === undefined)) {
    throw new StudioValidationError("url", "give either url or client (exactly one of them)");
  }
  const { client, url } = fields;
  return new RedisCoordination({
    ...DEFAULTS,
    ...withoutUndefined(fields),
    base: client ? async () => client : () => clientFor(url ?? ""),
    instanceId: fields.instanceId ?? crypto.randomUUID(),
  });
}

function withoutUndefined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}

function isClientLike(value: unknown): value is RedisClientLike {
  const client = value as Partial<RedisClientLike> | null;
  return typeof client?.duplicate === "function" && typeof client.sendCommand === "function";
}
