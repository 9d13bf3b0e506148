/**
 * The hand-written checks of src/client/shape-checks.ts may only short-cut zod: whatever they
 * accept, the zod schema must accept too and return deep-equal. Proven here over generated values
 * that mix valid fields with wrong types, out-of-range numbers, missing and extra keys (including
 * `__proto__`), and objects that are not plain (null prototype, class instances, arrays).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod/v4";
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  TextCompletionChunkSchema,
  TextCompletionSchema,
} from "../../../src/api-types";
import {
  isChatCompletion,
  isChatCompletionChunk,
  isTextCompletion,
  isTextCompletionChunk,
} from "../../../src/client/shape-checks";

type Arb = fc.Arbitrary<unknown>;

/** Values of every kind that a field of the wrong type or range might hold. */
const junk: Arb = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    true,
    0,
    -0,
    -1,
    1.5,
    2 ** 53,
    -(2 ** 53),
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    "",
    "x",
    [],
    {},
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.jsonValue({ maxDepth: 1 }),
);

/** Mostly the valid kind, sometimes junk: both sides of every check get exercised. */
function field(valid: Arb): Arb {
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: junk });
}

const str: Arb = fc.string({ maxLength: 6 });
const int: Arb = fc.integer({ min: -3, max: 3 });
const nat: Arb = fc.nat({ max: 1000 });
const num: Arb = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const optional = (valid: Arb): Arb => fc.oneof(valid, fc.constant(undefined));
const nullable = (valid: Arb): Arb => fc.oneof(valid, fc.constant(null));
const nullish = (valid: Arb): Arb => fc.oneof(valid, fc.constant(null), fc.constant(undefined));

/** Keys a server (or an attacker) might add; defined as own data properties, as JSON.parse does. */
const extraKeys = fc.dictionary(
  fc.oneof(
    fc.string({ maxLength: 5 }),
    fc.constantFrom("__proto__", "constructor", "toString", "index", "id", "choices"),
  ),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 2 },
);

class Box {
  constructor(fields: Record<string, unknown>) {
    Object.assign(this, fields);
  }
}

/**
 * An object with the given fields (each may be missing, or present as undefined) and maybe extra
 * keys, built as a plain object, a null-prototype object, a class instance or an array.
 */
function object(shape: Record<string, Arb>): Arb {
  const fields = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, field(v)]));
  return fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: fc.record(fields) },
        { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) },
      ),
      fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraKeys }),
      fc.oneof(
        { weight: 30, arbitrary: fc.constant("plain") },
        { weight: 1, arbitrary: fc.constantFrom("null-proto", "class", "array") },
      ),
    )
    .map(([known, extra, kind]) => {
      const out: Record<string, unknown> =
        kind === "null-proto" ? Object.create(null) : kind === "class" ? new Box({}) : {};
      for (const [key, value] of [...Object.entries(known), ...Object.entries(extra)]) {
        Object.defineProperty(out, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return kind === "array" ? Object.assign([], out) : out;
    });
}

function array(item: Arb): Arb {
  return fc.oneof(
    { weight: 20, arbitrary: fc.array(item, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.array(item, { maxLength: 2 }).map((a) => ({ ...a })) },
  );
}

const usage = object({ prompt_tokens: nat, completion_tokens: nat, total_tokens: nat });

const chunkHeader = {
  id: str,
  object: optional(str),
  created: optional(num),
  model: optional(str),
  usage: nullish(usage),
};

const completionHeader = {
  id: str,
  object: optional(str),
  created: num,
  model: str,
  usage: nullish(usage),
};

const toolCallDelta = object({
  index: int,
  id: optional(str),
  type: optional(str),
  function: optional(object({ name: optional(str), arguments: optional(str) })),
});

const chatChunk = object({
  ...chunkHeader,
  choices: array(
    object({
      index: int,
      delta: optional(
        object({
          role: optional(str),
          content: nullish(str),
          tool_calls: nullish(array(toolCallDelta)),
        }),
      ),
      finish_reason: nullish(str),
    }),
  ),
});

const textChunk = object({
  ...chunkHeader,
  choices: array(object({ index: int, text: optional(str), finish_reason: nullish(str) })),
});

const toolCall = object({
  id: str,
  type: optional(str),
  function: object({ name: str, arguments: str }),
});

const chatCompletion = object({
  ...completionHeader,
  choices: array(
    object({
      index: int,
      message: object({
        role: str,
        content: nullable(str),
        tool_calls: nullish(array(toolCall)),
      }),
      finish_reason: nullable(str),
    }),
  ),
});

const textCompletion = object({
  ...completionHeader,
  choices: array(object({ index: int, text: str, finish_reason: nullable(str) })),
});

const cases: [string, (value: unknown) => boolean, z.ZodType, Arb][] = [
  ["isChatCompletionChunk", isChatCompletionChunk, ChatCompletionChunkSchema, chatChunk],
  ["isTextCompletionChunk", isTextCompletionChunk, TextCompletionChunkSchema, textChunk],
  ["isChatCompletion", isChatCompletion, ChatCompletionSchema, chatCompletion],
  ["isTextCompletion", isTextCompletion, TextCompletionSchema, textCompletion],
];

describe.each(cases)("%s", (_name, check, schema, arbitrary) => {
  it("accepts only what the zod schema accepts, and zod returns it unchanged (property)", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(arbitrary, (value) => {
        if (!check(value)) {
          rejected++;
          return;
        }
        accepted++;
        const parsed = schema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      }),
      { numRuns: 3000, seed: 20261121 },
    );
    // Both sides are exercised: the proof is not vacuous and the junk is not all ignored.
    expect(accepted).toBeGreaterThan(100);
    expect(rejected).toBeGreaterThan(100);
  });

  it("accepts what JSON.parse makes of a value zod accepts (the fast path is the usual one)", () => {
    let both = 0;
    fc.assert(
      fc.property(arbitrary, (value) => {
        let json: unknown;
        try {
          json = JSON.parse(JSON.stringify(value) ?? "null");
        } catch {
          return;
        }
        const parsed = schema.safeParse(json);
        // JSON drops undefined values but keeps own __proto__ keys, which only zod may take.
        if (!parsed.success || JSON.stringify(json).includes('"__proto__"')) return;
        both++;
        expect(check(json)).toBe(true);
      }),
      { numRuns: 3000, seed: 20261121 },
    );
    expect(both).toBeGreaterThan(100);
  });
});

describe("on real stream chunks", () => {
  it("accepts the chunk shapes services of this family send", () => {
    const chunks = [
      {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: "owner/model",
        system_fingerprint: "fp",
        choices: [
          {
            index: 0,
            delta: { role: "assistant", content: "Hi", refusal: null },
            logprobs: null,
            finish_reason: null,
          },
        ],
      },
      {
        id: "chatcmpl-1",
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f" } }],
            },
            finish_reason: null,
          },
        ],
      },
      {
        id: "chatcmpl-1",
        choices: [],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      },
    ];
    for (const chunk of chunks)
      expect(isChatCompletionChunk(JSON.parse(JSON.stringify(chunk)))).toBe(true);
  });

  it("leaves a wrong shape to zod", () => {
    expect(isChatCompletionChunk({ id: "c", choices: "no" })).toBe(false);
    expect(isChatCompletionChunk(JSON.parse('{"id":"c","choices":[],"__proto__":{}}'))).toBe(false);
    expect(isChatCompletion({ id: "c", created: 1, model: "m", choices: [{ index: 0 }] })).toBe(
      false,
    );
  });
});
