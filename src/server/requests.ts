/**
 * Request bodies of the routes, one zod schema each (loose: fields the server does not use are
 * accepted and ignored, as the API does). A body that fails its schema is a 422 naming the field.
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { HttpProblem } from "./http";
import { STATE_FIELDS } from "./state";
import { THREAD_FIELDS } from "./thread-list";

useEnglishMessages();

const record = z.record(z.string(), z.unknown());

export const ThreadCreateSchema = z.looseObject({
  thread_id: z.nullish(z.string().check(z.minLength(1), z.maxLength(256))),
  metadata: z.nullish(record),
  if_exists: z.nullish(z.enum(["raise", "do_nothing"])),
  graph_id: z.nullish(z.string()),
});

export const ThreadPatchSchema = z.looseObject({
  metadata: z.nullish(record),
});

const THREAD_STATUS = z.enum(["idle", "busy", "interrupted", "error"]);

export const ThreadSearchSchema = z.looseObject({
  metadata: z.nullish(record),
  status: z.nullish(THREAD_STATUS),
  ids: z.nullish(z.array(z.string()).check(z.maxLength(1000))),
  /** Checked by the route: the thread list keeps no state to filter on. */
  values: z.nullish(record),
  select: z.nullish(z.array(z.enum(THREAD_FIELDS))),
  /** Alias to path; the paths are checked by the route (`parseExtractPath`). */
  extract: z.nullish(z.record(z.string(), z.string())),
  limit: z.nullish(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  offset: z.nullish(z.number().check(z.int(), z.gte(0))),
  sort_by: z.nullish(z.enum(["thread_id", "status", "created_at", "updated_at"])),
  sort_order: z.nullish(z.enum(["asc", "desc"])),
});

/** `POST /threads/count`: the search's filters. */
export const ThreadCountSchema = z.looseObject({
  metadata: z.nullish(record),
  status: z.nullish(THREAD_STATUS),
  values: z.nullish(record),
});

/** `POST /threads/prune`. */
export const ThreadPruneSchema = z.looseObject({
  thread_ids: z.array(z.string()).check(z.maxLength(1000)),
  strategy: z.nullish(z.enum(["delete", "keep_latest"])),
});

/** A field of a thread's state `select` names: one of these, or `values.<key>`. */
export const StateSelectSchema = z.array(
  z.string().check(
    z.refine((field) => STATE_FIELDS.includes(field) || /^values\..+/.test(field), {
      error: `must be one of ${STATE_FIELDS.join(", ")}, or values.<key>`,
    }),
  ),
);

export const HistorySchema = z.looseObject({
  limit: z.nullish(z.number().check(z.int(), z.gte(1))),
  before: z.nullish(z.union([z.string(), record])),
  metadata: z.nullish(record),
  checkpoint: z.nullish(record),
  select: z.nullish(StateSelectSchema),
});

/** `POST /threads/:thread_id/state`: values written as if `as_node` returned them. */
export const StateUpdateSchema = z.looseObject({
  values: z.nullish(z.union([record, z.array(record)])),
  as_node: z.nullish(z.string()),
  checkpoint: z.nullish(record),
  checkpoint_id: z.nullish(z.string()),
});

/** `POST /threads/:thread_id/state/checkpoint`. */
export const StateAtCheckpointSchema = z.looseObject({
  checkpoint: z.nullish(record),
  subgraphs: z.nullish(z.boolean()),
  select: z.nullish(StateSelectSchema),
});

/** The SDK's stream modes the server answers (`events` and the old `messages` are not). */
export const STREAM_MODES = [
  "values",
  "messages-tuple",
  "updates",
  "custom",
  "debug",
  "tasks",
  "checkpoints",
] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export const RunCreateSchema = z.looseObject({
  assistant_id: z.string(),
  input: z.optional(z.unknown()),
  command: z.nullish(
    z.looseObject({
      resume: z.optional(z.unknown()),
      update: z.optional(z.unknown()),
      goto: z.optional(z.unknown()),
    }),
  ),
  config: z.nullish(
    z.looseObject({
      configurable: z.nullish(record),
      tags: z.nullish(z.array(z.string())),
      recursion_limit: z.nullish(z.number()),
    }),
  ),
  context: z.optional(z.unknown()),
  metadata: z.nullish(record),
  checkpoint: z.nullish(record),
  checkpoint_id: z.nullish(z.string()),
  stream_mode: z.nullish(z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))])),
  stream_subgraphs: z.nullish(z.boolean()),
  stream_resumable: z.nullish(z.boolean()),
  interrupt_before: z.nullish(z.union([z.literal("*"), z.array(z.string())])),
  interrupt_after: z.nullish(z.union([z.literal("*"), z.array(z.string())])),
  multitask_strategy: z.nullish(z.enum(["reject", "interrupt", "rollback", "enqueue"])),
  on_disconnect: z.nullish(z.enum(["cancel", "continue"])),
  if_not_exists: z.nullish(z.enum(["create", "reject"])),
  strict_resume: z.nullish(z.boolean()),
  on_completion: z.nullish(z.enum(["delete", "keep"])),
  after_seconds: z.nullish(z.number().check(z.gte(0), z.lte(86_400))),
  durability: z.nullish(z.enum(["sync", "async", "exit"])),
  checkpoint_during: z.nullish(z.boolean()),
  webhook: z.nullish(z.string()),
  feedback_keys: z.nullish(z.union([z.string(), z.array(z.string())])),
  langsmith_tracer: z.nullish(record),
});
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** A query parameter that is a count: digits only (a query string has no numbers). */
function countParam(min: number, max?: number) {
  const checks = [z.int(), z.gte(min), ...(max === undefined ? [] : [z.lte(max)])];
  return z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d+$/, "must be a whole number")),
      z.pipe(
        z.transform((text: string) => Number(text)),
        z.number().check(...checks),
      ),
    ),
  );
}

/** A query flag: "true" or "1" is on, anything else off (as the API reads it). */
const flagParam = z.pipe(
  z.optional(z.string()),
  z.transform((text: string | undefined) => text === "true" || text === "1"),
);

/** `GET /threads/:thread_id/runs` query. */
export const RunListQuerySchema = z.looseObject({
  status: z.optional(z.string()),
  limit: countParam(1),
  offset: countParam(0),
});

/** A query parameter given once or repeated (`?namespace=a&namespace=b`). */
const listParam = z.optional(z.union([z.string(), z.array(z.string())]));

/** `GET /threads/:thread_id/runs` query with the SDK's `select`. */
export const RunListSelectQuerySchema = z.looseObject({ select: listParam });

/** Query of a run's event stream: the SDK's `streamNamespaces` (`namespace`) and the join's. */
export const RunStreamQuerySchema = z.looseObject({
  namespace: listParam,
  stream_mode: listParam,
  checkpoint_id: z.optional(z.string()),
  cancel_on_disconnect: flagParam,
});

/** `POST /threads/:thread_id/runs/:run_id/cancel` query beyond `wait`. */
export const CancelActionQuerySchema = z.looseObject({
  action: z.optional(z.enum(["interrupt", "rollback"])),
  reason: z.optional(z.string()),
});

/** `GET /threads/:thread_id/state` query. */
export const StateQuerySchema = z.looseObject({ subgraphs: flagParam });

/** The `select` of a state read's query (the SDK repeats the parameter), or a 422 naming it. */
export function stateSelectQuery(url: URL): string[] | undefined {
  const fields = url.searchParams.getAll("select").filter((field) => field !== "");
  if (fields.length === 0) return undefined;
  return parseBody(z.object({ select: StateSelectSchema }), { select: fields }).select;
}

/** `POST /threads/:thread_id/runs/:run_id/cancel` query. */
export const CancelQuerySchema = z.looseObject({ wait: flagParam });

/** The query string as `schema` reads it, or a 422 naming the first parameter that fails. */
export function parseQuery<T>(schema: z.ZodMiniType<T>, url: URL): T {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (value !== "") query[key] ??= value;
  }
  return parseBody(schema, query);
}

/**
 * The query string with every value of a repeated parameter (`?a=1&a=2` as `["1", "2"]`); an
 * empty value is kept (`namespace=` names the root graph).
 */
export function parseListQuery<T>(schema: z.ZodMiniType<T>, url: URL): T {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? "") : values;
  }
  return parseBody(schema, query);
}

/** The body as `schema` reads it, or a 422 naming the first field that fails. */
export function parseBody<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "body";
  throw new HttpProblem(422, "Unprocessable Entity", `${field}: ${issue?.message ?? "invalid"}`);
}
