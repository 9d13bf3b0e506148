/**
 * Hand-written structural checks for the four answers that arrive on every call or token: chat and
 * text completions, and their stream chunks. Each mirrors one zod schema of api-types.ts field by
 * field.
 *
 * Why: zod's `safeParse` of a chunk measured 0.2-0.6 µs, about a tenth of LangChain's own cost
 * per streamed token, and a few µs per non-streamed call. These checks cost a few dozen ns.
 * They only ever short-cut zod: a value they accept is one the zod schema accepts and returns
 * unchanged (deep-equal), which test/unit/client/shape-checks.test.ts proves with fast-check over
 * valid, broken and hostile values. Anything they do not accept goes through zod, which decides
 * and words the error. So a check may be stricter than its schema, never looser; when a schema
 * changes, its check must change with it (the property test fails otherwise).
 *
 * "Returns unchanged" is why only plain objects pass: zod rebuilds objects, skipping an own
 * `__proto__` key and copying inherited enumerable keys, so for anything else the copies differ.
 * `JSON.parse` makes plain objects only, so on real responses the fast path always applies.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  TextCompletion,
  TextCompletionChunk,
} from "../api-types";

type Fields = Record<string, unknown>;

const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;
const hasOwn = Object.hasOwn;

function isPlainObject(value: unknown): value is Fields {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === objectPrototype &&
    !hasOwn(value, "__proto__")
  );
}

/** An array as `JSON.parse` makes it (zod copies any array into a plain one). */
function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === arrayPrototype;
}

/** zod: `z.number().int()` (a safe integer). */
function isInt(value: unknown): boolean {
  return Number.isSafeInteger(value);
}

/** zod: `z.string().optional()`. */
function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

/** zod: `z.string().nullish()`. */
function isNullishString(value: unknown): boolean {
  return value == null || typeof value === "string";
}

/** zod: `z.string().nullable()` (the key must be there). */
function isNullableString(value: unknown): boolean {
  return value === null || typeof value === "string";
}

/** zod: `z.number().optional()` (finite). */
function isOptionalNumber(value: unknown): boolean {
  return value === undefined || Number.isFinite(value);
}

/** zod: `UsageSchema.nullish()`. */
function isNullishUsage(value: unknown): boolean {
  if (value == null) return true;
  if (!isPlainObject(value)) return false;
  const prompt = value.prompt_tokens;
  const completion = value.completion_tokens;
  const total = value.total_tokens;
  return (
    isInt(prompt) &&
    (prompt as number) >= 0 &&
    isInt(completion) &&
    (completion as number) >= 0 &&
    isInt(total) &&
    (total as number) >= 0
  );
}

/** zod: the fields every completion and chunk share, with `created` and `model` optional. */
function hasChunkHeader(value: Fields): boolean {
  return (
    typeof value.id === "string" &&
    isOptionalString(value.object) &&
    isOptionalNumber(value.created) &&
    isOptionalString(value.model) &&
    isNullishUsage(value.usage)
  );
}

/** zod: the same, with `created` and `model` required (whole completions). */
function hasCompletionHeader(value: Fields): boolean {
  return (
    typeof value.id === "string" &&
    isOptionalString(value.object) &&
    Number.isFinite(value.created) &&
    typeof value.model === "string" &&
    isNullishUsage(value.usage)
  );
}

/** zod: `ToolCallDeltaSchema`. */
function isToolCallDelta(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!isInt(value.index) || !isOptionalString(value.id) || !isOptionalString(value.type)) {
    return false;
  }
  const fn = value.function;
  if (fn === undefined) return true;
  return isPlainObject(fn) && isOptionalString(fn.name) && isOptionalString(fn.arguments);
}

/** zod: a chat chunk's `delta` (optional). */
function isOptionalDelta(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isPlainObject(value)) return false;
  if (!isOptionalString(value.role) || !isNullishString(value.content)) return false;
  const calls = value.tool_calls;
  if (calls == null) return true;
  if (!isPlainArray(calls)) return false;
  for (let i = 0; i < calls.length; i++) if (!isToolCallDelta(calls[i])) return false;
  return true;
}

/** zod: `ToolCallSchema`. */
function isToolCall(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (typeof value.id !== "string" || !isOptionalString(value.type)) return false;
  const fn = value.function;
  return isPlainObject(fn) && typeof fn.name === "string" && typeof fn.arguments === "string";
}

/** zod: a completion's `message`. */
function isChatMessage(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (typeof value.role !== "string" || !isNullableString(value.content)) return false;
  const calls = value.tool_calls;
  if (calls == null) return true;
  if (!isPlainArray(calls)) return false;
  for (let i = 0; i < calls.length; i++) if (!isToolCall(calls[i])) return false;
  return true;
}

/**
 * The frame all four shapes share: a plain object passing `header`, whose `choices` is a plain
 * array of plain objects, each with an integer `index` and passing `choiceFits`.
 */
function hasChoices(
  value: unknown,
  header: (value: Fields) => boolean,
  choiceFits: (choice: Fields) => boolean,
): boolean {
  if (!isPlainObject(value) || !header(value)) return false;
  const choices = value.choices;
  if (!isPlainArray(choices)) return false;
  for (let i = 0; i < choices.length; i++) {
    const choice: unknown = choices[i];
    if (!isPlainObject(choice) || !isInt(choice.index) || !choiceFits(choice)) return false;
  }
  return true;
}

function isChatChunkChoice(choice: Fields): boolean {
  return isNullishString(choice.finish_reason) && isOptionalDelta(choice.delta);
}

function isTextChunkChoice(choice: Fields): boolean {
  return isOptionalString(choice.text) && isNullishString(choice.finish_reason);
}

function isChatChoice(choice: Fields): boolean {
  return isNullableString(choice.finish_reason) && isChatMessage(choice.message);
}

function isTextChoice(choice: Fields): boolean {
  return typeof choice.text === "string" && isNullableString(choice.finish_reason);
}

/** Accepts only what `ChatCompletionChunkSchema` accepts and returns unchanged. */
export function isChatCompletionChunk(value: unknown): value is ChatCompletionChunk {
  return hasChoices(value, hasChunkHeader, isChatChunkChoice);
}

/** Accepts only what `TextCompletionChunkSchema` accepts and returns unchanged. */
export function isTextCompletionChunk(value: unknown): value is TextCompletionChunk {
  return hasChoices(value, hasChunkHeader, isTextChunkChoice);
}

/** Accepts only what `ChatCompletionSchema` accepts and returns unchanged. */
export function isChatCompletion(value: unknown): value is ChatCompletion {
  return hasChoices(value, hasCompletionHeader, isChatChoice);
}

/** Accepts only what `TextCompletionSchema` accepts and returns unchanged. */
export function isTextCompletion(value: unknown): value is TextCompletion {
  return hasChoices(value, hasCompletionHeader, isTextChoice);
}
