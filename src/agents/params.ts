/**
 * The parameters of `loadAssistantAgent` as one zod schema (as `client/options.ts` checks the
 * client's), with the texts callers see: the first issue becomes a `StudioValidationError` naming
 * its field. The client options among the params are checked by the client.
 */
import * as z from "zod/v4/mini";
import { CLIENT_OPTION_NAMES } from "../client/options";
import { describeFields } from "../field-docs";
import { type KnownKeys, parseFields, refuseUnknownKeys } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import type { LoadAssistantAgentParams } from "./types";

useEnglishMessages();

export const DEFAULT_MAX_ITERATIONS = 15;

const LoadParamsSchema = z
  .looseObject(
    {
      tools: z.optional(
        z.array(z.unknown(), {
          error: "must be an array of LangChain tools implementing the assistant's functions",
        }),
      ),
      maxIterations: z.optional(
        z.unknown().check(
          z.superRefine((value, ctx) => {
            if (Number.isInteger(value) && (value as number) >= 1) return;
            ctx.issues.push({
              code: "custom",
              input: value,
              message: `must be an integer >= 1 (got ${String(value)})`,
            });
          }),
        ),
      ),
    },
    { error: "must be an object { assistant | assistantId, tools }" },
  )
  .check(
    z.superRefine((params, ctx) => {
      if ((params.assistant === undefined) !== (params.assistantId === undefined)) return;
      ctx.issues.push({
        code: "custom",
        input: params,
        path: ["assistant"],
        message: "pass exactly one of `assistant` (a record) or `assistantId`",
      });
    }),
  );

describeFields("agents", LoadParamsSchema, {
  tools:
    "Implementations of the assistant's function tools, matched by name; may be left out for " +
    "an assistant that declares none",
  maxIterations:
    "Most function-model calls in one run; reaching it with tool calls pending raises " +
    "`StudioMaxIterationsError`",
});

/** Every parameter `loadAssistantAgent` takes: its own and the client's. */
const OWN_PARAMS = ["assistant", "assistantId", "tools", "history", "maxIterations"];
const PARAM_KEYS: KnownKeys = {
  owner: "loadAssistantAgent",
  known: [...OWN_PARAMS, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...OWN_PARAMS, "and the client options"],
};

/** The tools and iteration bound of valid params, or a `StudioValidationError` naming the field. */
export function checkLoadParams(params: LoadAssistantAgentParams): {
  tools: NonNullable<LoadAssistantAgentParams["tools"]>;
  maxIterations: number;
} {
  refuseUnknownKeys(params, PARAM_KEYS);
  parseFields(LoadParamsSchema, params, "params");
  // The schema checked the shapes; the values are the caller's own (tools are not copied).
  const { tools = [], maxIterations = DEFAULT_MAX_ITERATIONS } = params;
  return { tools, maxIterations };
}
