/**
 * The SDK's `select` on a run list (`client.runs.list(..., { select })`; its server-side queue
 * asks for `run_id`, `kwargs`, `created_at`, `multitask_strategy`): each run cut to those fields.
 * A field a run does not have is a 422 naming it, not an empty answer.
 */

import type { RunHandle } from "./coordination";
import { HttpProblem } from "./http";

const RUN_FIELDS = [
  "run_id",
  "thread_id",
  "assistant_id",
  "created_at",
  "updated_at",
  "status",
  "metadata",
  "multitask_strategy",
  "kwargs",
] as const;

export function selectRunFields(
  runs: readonly RunHandle[],
  select: string | string[] | undefined,
): unknown[] {
  if (select === undefined) return [...runs];
  const fields = Array.isArray(select) ? select : [select];
  const unknown = fields.find((field) => !(RUN_FIELDS as readonly string[]).includes(field));
  if (unknown !== undefined) {
    throw new HttpProblem(
      422,
      "Unprocessable Entity",
      `select: a run has no field "${unknown}"; use ${RUN_FIELDS.join(", ")}`,
    );
  }
  return runs.map((run) => {
    const whole = run.toJSON();
    return Object.fromEntries(fields.map((field) => [field, whole[field]]));
  });
}
