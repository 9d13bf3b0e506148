/**
 * Request bodies of the routes, one zod schema each (loose: fields the server does not use are
 * accepted and ignored, as the API does). A body that fails its schema is a 422 naming the field.
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { HttpProblem } from "./http";

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

export const ThreadSearchSchema = z.looseObject({
  metadata: z.nullish(record),
  status: z.nullish(z.string()),
  limit: z.nullish(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  offset: z.nullish(z.number().check(z.int(), z.gte(0))),
  sort_by: z.nullish(z.enum(["thread_id", "status", "created_at", "updated_at"])),
  sort_order: z.nullish(z.enum(["asc", "desc"])),
});

export const HistorySchema = z.looseObject({
  limit: z.nullish(z.number().check(z.int(), z.gte(1))),
  before: z.nullish(z.union([z.string(), record])),
  metadata: z.nullish(record),
  checkpoint: z.nullish(record),
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
  if_not_exists: z.nullish(z.string()),
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

/** `GET /threads/:thread_id/state` query. */
export const StateQuerySchema = z.looseObject({ subgraphs: flagParam });

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

/** The body as `schema` reads it, or a 422 naming the first field that fails. */
export function parseBody<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "body";
  throw new HttpProblem(422, "Unprocessable Entity", `${field}: ${issue?.message ?? "invalid"}`);
}
