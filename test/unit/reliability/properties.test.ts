/**
 * Property tests (fast-check, fixed seeds) aimed at what the owners' own property tests do not
 * cover: the history codec at its metadata split boundaries (a surrogate pair straddling a
 * 512-character cut, records of exactly n x 512 characters, the 14-value ceiling) through a store
 * that re-encodes strings as UTF-8; empty content and many tool calls; and tool schemas, which
 * must reach the request body exactly as given, whichever way the tool was declared.
 */
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import fc from "fast-check";
import nock from "nock";
import { describe, expect, it } from "vitest";
import type { ThreadMessageInput, Tool } from "../../../src/api-types";
import { createAssistant } from "../../../src/assistants";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { convertAssistantToolToChatTool } from "../../../src/converters/assistant-tools";
import { decodeMessage, encodeMessage } from "../../../src/converters/thread-messages";
import { StudioValidationError } from "../../../src/errors";
import { useOfflineNock } from "../../helpers/nock";
import { storeLikeServer, view } from "../../helpers/thread-messages";

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/** A canonical text of a JSON-like value: keys sorted, own `__proto__` keys kept. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    return `{${keys
      .map(
        (k) =>
          `${JSON.stringify(k)}:${canonical(Object.getOwnPropertyDescriptor(record, k)?.value)}`,
      )
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ---------------------------------------------------------------------------------------------
// History codec at its boundaries
// ---------------------------------------------------------------------------------------------

/** The JSON record the codec writes, read back from its metadata pieces. */
function recordText(input: ThreadMessageInput): string {
  const metadata = input.metadata ?? {};
  let text = "";
  for (let i = 0; metadata[`lc_data_${i}`] !== undefined; i++) text += metadata[`lc_data_${i}`];
  return text;
}

/** A character that never appears in generated text, placed to straddle a 512-unit cut. */
const MARKER = "𝄞";
const text = fc
  .oneof(
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.constantFrom("", " ", "é😀中文", '\u0000\n\t"\\', "a\u0301"),
  )
  .map((s) => s.split(MARKER).join(""));
const name = fc.string({ minLength: 1, maxLength: 12 }).map((s) => s.split(MARKER).join("") || "n");
const jsonArgs = fc
  .dictionary(
    fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("__proto__", "constructor", "prototype")),
    fc.oneof(fc.integer(), text, fc.boolean(), fc.constant(null)),
    { maxKeys: 3 },
  )
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
const emptyContent = fc.constantFrom<"" | never[]>("", []);

/** A message of any type whose `additional_kwargs.pad` will be sized afterwards. */
const shaped: fc.Arbitrary<(pad: string) => BaseMessage> = fc.oneof(
  fc.tuple(fc.oneof(text, emptyContent), fc.option(name, { nil: undefined })).map(
    ([content, n]) =>
      (pad: string) =>
        new HumanMessage({ content, name: n, additional_kwargs: { pad } }),
  ),
  fc.tuple(fc.oneof(text, emptyContent)).map(
    ([content]) =>
      (pad: string) =>
        new SystemMessage({ content, additional_kwargs: { pad } }),
  ),
  fc
    .tuple(
      fc.oneof(text, emptyContent),
      fc.array(fc.record({ id: name, name, args: jsonArgs }), { maxLength: 30 }),
    )
    .map(
      ([content, calls]) =>
        (pad: string) =>
          new AIMessage({
            content,
            additional_kwargs: { pad },
            tool_calls: calls.map((c, i) => ({
              ...c,
              id: `${c.id}_${i}`,
              type: "tool_call" as const,
            })),
          }),
    ),
  fc.tuple(fc.oneof(text, emptyContent), name).map(
    ([content, id]) =>
      (pad: string) =>
        new ToolMessage({ content, tool_call_id: id, additional_kwargs: { pad } }),
  ),
  fc.tuple(fc.oneof(text, emptyContent), name).map(
    ([content, n]) =>
      (pad: string) =>
        new FunctionMessage({ content, name: n, additional_kwargs: { pad } }),
  ),
  fc.tuple(fc.oneof(text, emptyContent), name).map(
    ([content, role]) =>
      (pad: string) =>
        new ChatMessage({ content, role, additional_kwargs: { pad } }),
  ),
);

describe("history codec at its metadata boundaries (property)", () => {
  it("a surrogate pair at any 512-unit cut, records of n x 512 +- a few, and the 14-value ceiling", () => {
    let stored = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        shaped,
        fc.integer({ min: 1, max: 14 }),
        fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 509, max: 515 })),
        (make, cut, tail) => {
          // First measure where the marker lands, then pad so that it straddles cut number `cut`.
          const probe = recordText(encodeMessage(make(MARKER), "cid"));
          const at = probe.indexOf(MARKER);
          const start = cut * 512 - 1;
          fc.pre(at >= 0 && at <= start);
          const pad = `${"a".repeat(start - at)}${MARKER}${"b".repeat(tail)}`;
          const total = probe.length + (start - at) + tail;
          const original = make(pad);
          let input: ThreadMessageInput;
          try {
            input = encodeMessage(original, "00000000-0000-4000-8000-000000000000");
          } catch (error) {
            // Only a record over 14 x 512 characters may be refused, and only by a clear error.
            expect(error).toBeInstanceOf(StudioValidationError);
            expect(total).toBeGreaterThan(14 * 512);
            refused++;
            return;
          }
          const metadata = input.metadata ?? {};
          expect(Object.keys(metadata).length).toBeLessThanOrEqual(16);
          for (const [key, value] of Object.entries(metadata)) {
            expect(key.length).toBeLessThanOrEqual(64);
            expect(value.length).toBeLessThanOrEqual(512);
            expect(LONE_SURROGATE.test(value), `${key} holds half a surrogate pair`).toBe(false);
          }
          expect(recordText(input)).toHaveLength(total);
          expect(recordText(input).indexOf(MARKER)).toBe(start);
          const decoded = decodeMessage(storeLikeServer(input, { utf8: true }));
          expect(decoded.constructor).toBe(original.constructor);
          expect(canonical(view(decoded))).toBe(canonical(view(original)));
          stored++;
        },
      ),
      { numRuns: 400, seed: 909 },
    );
    // Both sides of the ceiling were reached.
    expect(stored).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(5);
  });
});

// ---------------------------------------------------------------------------------------------
// Tool schemas reach the request body unchanged
// ---------------------------------------------------------------------------------------------

const ORIGIN = "https://studio.test";

useOfflineNock();

const propertyName = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "$ref", "type", "é😀"),
  },
);
const description = fc.option(fc.string({ maxLength: 30 }), { nil: undefined });

function withDescription<T extends Record<string, unknown>>(schema: T, d: string | undefined) {
  return d === undefined ? schema : { ...schema, description: d };
}

const { node } = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .tuple(
        description,
        fc.option(fc.uniqueArray(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 4 }), {
          nil: undefined,
        }),
      )
      .map(([d, e]) => withDescription({ type: "string", ...(e && { enum: e }) }, d)),
    fc
      .tuple(description, fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }))
      .map(([d, min]) =>
        withDescription({ type: "number", ...(min !== undefined && { minimum: min }) }, d),
      ),
    fc.constant({ type: "integer" }),
    fc.constant({ type: "boolean" }),
    fc
      .tuple(tie("node"), description)
      .map(([items, d]) => withDescription({ type: "array", items }, d)),
    fc
      .tuple(
        fc.array(fc.tuple(propertyName, tie("node")), { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([entries, requireSome, closed]) => objectSchema(entries, requireSome, closed)),
  ),
}));

function objectSchema(
  entries: [string, Record<string, unknown>][],
  requireSome: boolean,
  closed: boolean,
): Record<string, unknown> {
  // Object.fromEntries defines own properties, so a property named "__proto__" stays a property.
  const properties = Object.fromEntries(entries);
  const names = Object.keys(properties);
  return {
    type: "object",
    properties,
    ...(requireSome && names.length > 0 && { required: names.filter((_, i) => i % 2 === 0) }),
    ...(closed && { additionalProperties: false }),
  };
}

const parameters = fc
  .tuple(fc.array(fc.tuple(propertyName, node), { maxLength: 5 }), fc.boolean(), fc.boolean())
  .map(([entries, requireSome, closed]) => objectSchema(entries, requireSome, closed));
const toolName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,20}$/);

/** Makes one chat call answered by nock and returns the request body nock saw. */
async function sentBody(
  run: (model: ChatStudio) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> | undefined;
  nock(ORIGIN)
    .post("/inference/chat/completions", (b: Record<string, unknown>) => {
      body = b;
      return true;
    })
    .reply(200, {
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "studio/echo-small",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    });
  const client = new StudioClient({
    fetch: globalThis.fetch,
    apiKey: "k-props",
    proxyUrl: `${ORIGIN}/inference`,
    maxRetries: 0,
  });
  await run(new ChatStudio({ model: "studio/echo-small", client }));
  if (!body) throw new Error("no request was sent");
  return body;
}

function sentParameters(body: Record<string, unknown>): unknown {
  const tools = body.tools as { function: { parameters: unknown } }[];
  return tools[0]?.function.parameters;
}

describe("tool schema conversion (property)", () => {
  it("an OpenAI-format tool: the request body carries exactly the generated parameters", async () => {
    await fc.assert(
      fc.asyncProperty(toolName, parameters, async (n, schema) => {
        const body = await sentBody((model) =>
          model
            .bindTools([
              { type: "function", function: { name: n, description: "d", parameters: schema } },
            ])
            .invoke("hi"),
        );
        expect(canonical(sentParameters(body))).toBe(canonical(schema));
      }),
      { numRuns: 60, seed: 31 },
    );
  });

  it("{ name, description, schema } with a JSON schema: the same parameters", async () => {
    await fc.assert(
      fc.asyncProperty(toolName, parameters, async (n, schema) => {
        const body = await sentBody((model) =>
          model.bindTools([{ name: n, description: "d", schema }]).invoke("hi"),
        );
        expect(canonical(sentParameters(body))).toBe(canonical(schema));
      }),
      { numRuns: 60, seed: 32 },
    );
  });

  it("a LangChain tool() over a JSON schema: the same parameters", async () => {
    await fc.assert(
      fc.asyncProperty(toolName, parameters, async (n, schema) => {
        const lcTool = tool(async () => "x", { name: n, description: "d", schema });
        const body = await sentBody((model) => model.bindTools([lcTool]).invoke("hi"));
        expect(canonical(sentParameters(body))).toBe(canonical(schema));
      }),
      { numRuns: 60, seed: 33 },
    );
  });

  it("createAssistant sends the generated parameters, and binding them back merges function.required", async () => {
    await fc.assert(
      fc.asyncProperty(toolName, parameters, fc.boolean(), async (n, schema, extraRequired) => {
        const names = Object.keys(schema.properties as object);
        const required = extraRequired ? names.slice(-1) : undefined;
        const spec: Tool = {
          type: "function",
          function: {
            name: n,
            description: "d",
            parameters: schema,
            ...(required && { required }),
          },
        };
        let body: Record<string, unknown> | undefined;
        nock(ORIGIN)
          .post("/studio/v1/assistants", (b: Record<string, unknown>) => {
            body = b;
            return true;
          })
          .reply(200, { id: "asst_1", assistantName: "a" });
        const client = new StudioClient({
          fetch: globalThis.fetch,
          apiKey: "k-props",
          baseUrl: `${ORIGIN}/studio`,
          maxRetries: 0,
        });
        await createAssistant({ assistantName: "a", tools: [spec] }, { client });
        const sent = ((body?.tools ?? []) as Tool[])[0]!;
        expect(canonical(sent.function?.parameters)).toBe(canonical(schema));

        const bound = convertAssistantToolToChatTool(sent).function.parameters as Record<
          string,
          unknown
        >;
        const merged = [
          ...new Set([...((schema.required as string[]) ?? []), ...(required ?? [])]),
        ];
        const { required: _given, ...expected } = schema;
        expect(
          canonical({ ...bound, required: [...((bound.required as string[]) ?? [])].sort() }),
        ).toBe(canonical({ ...expected, required: [...merged].sort() }));
      }),
      { numRuns: 60, seed: 34 },
    );
  });
});
