/**
 * The fields of `createAssistant`'s input as one zod schema (as `client/options.ts` checks the
 * client's), with the spec's limits and the error texts callers see: the first issue becomes a
 * `StudioValidationError` naming its dotted field.
 */
import * as z from "zod/v4/mini";
import { describeFields } from "../field-docs";
import {
  describeValue,
  knownKeysOnly,
  parseFields,
  type SamplingField,
  samplingSchemas,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

/** Spec limits of the Assistant resource. */
export const ASSISTANT_LIMITS = {
  maxDescriptionLength: 512,
  maxUserFilters: 3,
} as const;

const REQUIRED_STRING = "is required and must be a non-empty string";
const MODEL_ID = "must be a non-empty string (a model uri or a model record id)";

const requiredString = z
  .string({ error: REQUIRED_STRING })
  .check(z.refine((value) => value.trim() !== "", { error: REQUIRED_STRING }));

const optionalString = z.optional(z.string({ error: "must be a string" }));

/** A sampling setting, checked by the shared schema, with its message and the value given. */
function sampling(kind: SamplingField) {
  return z.unknown().check(
    z.superRefine((value, ctx) => {
      if (value === undefined) return;
      const result = samplingSchemas[kind].safeParse(value);
      if (result.success) return;
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `${result.error.issues[0]?.message ?? "is invalid"} (got ${describeValue(value)})`,
      });
    }),
  );
}

const modelSettingsShape = {
  modelId: z.optional(z.string({ error: MODEL_ID }).check(z.minLength(1, { error: MODEL_ID }))),
  temperature: z.optional(sampling("temperature")),
  topP: z.optional(sampling("topP")),
};

const ModelSettingsSchema = z.optional(
  knownKeysOnly(
    z.looseObject(modelSettingsShape, {
      error: "must be an object { modelId, temperature, topP }",
    }),
    { owner: "model settings", known: Object.keys(modelSettingsShape) },
  ),
);

const UserFiltersSchema = z.optional(
  z
    .record(z.string(), z.string({ error: "must be a string" }), {
      error: "must be an object of string values",
    })
    .check(
      z.superRefine((filters, ctx) => {
        const count = Object.keys(filters).length;
        if (count <= ASSISTANT_LIMITS.maxUserFilters) return;
        ctx.issues.push({
          code: "custom",
          input: filters,
          message: `has ${count} pairs; at most ${ASSISTANT_LIMITS.maxUserFilters} are allowed`,
        });
      }),
    ),
);

const DescriptionSchema = z.optional(
  z.string({ error: "must be a string" }).check(
    z.superRefine((description, ctx) => {
      if (description.length <= ASSISTANT_LIMITS.maxDescriptionLength) return;
      ctx.issues.push({
        code: "custom",
        input: description,
        message:
          `is ${description.length} characters; at most ` +
          `${ASSISTANT_LIMITS.maxDescriptionLength} are allowed`,
      });
    }),
  ),
);

/**
 * The input's own fields; `metadata` (the shared metadata rules) and `tools` (converted one by
 * one) are checked after it, in that order.
 */
export const CreateAssistantFieldsSchema = z.looseObject(
  {
    assistantName: requiredString,
    modelName: optionalString,
    instructions: optionalString,
    description: DescriptionSchema,
    functionModel: ModelSettingsSchema,
    responseModel: ModelSettingsSchema,
    userFilters: UserFiltersSchema,
  },
  { error: 'must be an object such as { assistantName: "..." }' },
);

describeFields("assistants", CreateAssistantFieldsSchema, {
  assistantName: "The assistant's name (a non-empty string)",
  modelName: "The model uri; a model reference missing from the listing falls back to it",
  instructions: "The system prompt",
  description: "A description, at most 512 characters",
  functionModel: "The model that decides tool calls: `{ modelId, temperature, topP }`",
  "functionModel.modelId": "A model uri or a model record id (resolved through the model listing)",
  "functionModel.temperature": "Sampling temperature, 0 to 2",
  "functionModel.topP": "Nucleus sampling, in (0, 1]",
  responseModel: "The model that writes the final answer: `{ modelId, temperature, topP }`",
  "responseModel.modelId": "A model uri or a model record id (resolved through the model listing)",
  "responseModel.temperature": "Sampling temperature, 0 to 2",
  "responseModel.topP": "Nucleus sampling, in (0, 1]",
  userFilters: "Key-value pairs of strings kept with the assistant, at most 3",
});
/** The input's fields: those above, and the two checked after them. */
const INPUT_KEYS = {
  owner: "createAssistant input",
  known: [...Object.keys(CreateAssistantFieldsSchema.shape), "metadata", "tools"],
};

/** Parses `value`, or throws a `StudioValidationError` for the first issue, naming its field. */
export function parseAssistantFields(value: unknown): void {
  parseFields(knownKeysOnly(CreateAssistantFieldsSchema, INPUT_KEYS), value, "input");
}
