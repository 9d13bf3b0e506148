/**
 * Stream-level property tests: the answer a user gets from ChatStudio does not depend on how the
 * network chunked the bytes. A loopback server writes the SSE bytes of a generated answer in
 * generated pieces (cuts anywhere, inside `data:`, inside CRLF, inside a UTF-8 character), and
 * `stream()` and streaming `invoke()` must give exactly the generated text and tool calls. The
 * client's own SSE property test covers the decoder; this one covers the whole path.
 *
 * Also here, because it needs a real wire: the history codec's round trip through the emulator
 * for generated messages of every type.
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
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { mergeStream } from "../../helpers/stream";
import { type Loopback, splitAt, startLoopback, toolCallChunks, writePieces } from "./loopback";

const MODEL = "studio/echo-small";

let server: Loopback;
let pieces: Uint8Array[] = [];
let client: StudioClient;

beforeAll(async () => {
  server = await startLoopback(async (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    await writePieces(res, pieces);
  });
  client = new StudioClient({
    apiKey: "k",
    proxyUrl: server.origin,
    maxRetries: 0,
    timeout: 10_000,
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

interface Plan {
  text: string[];
  /** Tool call argument fragments, joined they are a JSON object. */
  args: string[];
  crlf: boolean;
  noSpace: boolean;
  comments: boolean;
  usage: boolean;
}

function sseText(plan: Plan): string {
  const eol = plan.crlf ? "\r\n" : "\n";
  const prefix = plan.noSpace ? "data:" : "data: ";
  const base = { id: "chatcmpl-p", object: "chat.completion.chunk", created: 1, model: MODEL };
  const chunks: unknown[] = [
    {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
    },
    ...plan.text.map((content) => ({
      ...base,
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    })),
    ...toolCallChunks(plan.args, { callId: "call_p", id: base.id }),
    {
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: plan.args.length ? "tool_calls" : "stop" }],
    },
    ...(plan.usage
      ? [
          {
            ...base,
            choices: [],
            usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
          },
        ]
      : []),
  ];
  let out = plan.comments ? `: hello${eol}${eol}` : "";
  for (const chunk of chunks) {
    out += `${prefix}${JSON.stringify(chunk)}${eol}${eol}`;
    if (plan.comments) out += `: keep-alive${eol}`;
  }
  return `${out}${prefix}[DONE]${eol}${eol}`;
}

const textPiece = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("😀", "中文", "é", "\n", "\r\n", "data: x", "[DONE]", "\u0000", "\\", '"'),
);
const plan: fc.Arbitrary<Plan> = fc.record({
  text: fc.array(textPiece, { maxLength: 12 }),
  args: fc.oneof(
    fc.constant([] as string[]),
    fc
      .tuple(
        fc.dictionary(
          fc.string({ maxLength: 6 }),
          fc.oneof(fc.string({ unit: "grapheme", maxLength: 8 }), fc.integer()),
          {
            maxKeys: 3,
          },
        ),
        fc.array(fc.nat(), { maxLength: 4 }),
      )
      .map(([args, cuts]) => {
        const json = JSON.stringify(args);
        const points = [...new Set(cuts.map((c) => c % (json.length + 1)))].sort((a, b) => a - b);
        const out: string[] = [];
        let start = 0;
        for (const p of points) {
          out.push(json.slice(start, p));
          start = p;
        }
        out.push(json.slice(start));
        return out.filter((piece, i) => piece !== "" || i === 0);
      }),
  ),
  crlf: fc.boolean(),
  noSpace: fc.boolean(),
  comments: fc.boolean(),
  usage: fc.boolean(),
});

/** Cut points: sometimes every byte, sometimes a few random places. */
const cuts = fc.oneof(
  { weight: 1, arbitrary: fc.constant("every-byte" as const) },
  { weight: 4, arbitrary: fc.array(fc.nat(), { maxLength: 30 }) },
);

describe("ChatStudio stream results do not depend on chunking (property)", () => {
  it("stream() and streaming invoke() give the generated text, tool call and usage for any split of the bytes", async () => {
    const streamed = new ChatStudio({ model: MODEL, client });
    const invoked = new ChatStudio({ model: MODEL, client, streaming: true });
    await fc.assert(
      fc.asyncProperty(plan, cuts, async (p, c) => {
        const bytes = new TextEncoder().encode(sseText(p));
        pieces =
          c === "every-byte"
            ? Array.from(bytes, (b) => Uint8Array.of(b))
            : splitAt(
                bytes,
                c.map((n) => n % (bytes.length + 1)),
              );
        const expectedText = p.text.join("");
        const expectedArgs = p.args.length ? JSON.parse(p.args.join("")) : undefined;
        for (const message of [
          await mergeStream(await streamed.stream("hi")),
          await invoked.invoke("hi"),
        ]) {
          expect(message.content).toBe(expectedText);
          if (expectedArgs) {
            expect(message.tool_calls).toHaveLength(1);
            expect(message.tool_calls?.[0]).toMatchObject({
              id: "call_p",
              name: "lookup",
              args: expectedArgs,
            });
          } else {
            expect(message.tool_calls ?? []).toHaveLength(0);
          }
          expect(message.invalid_tool_calls ?? []).toHaveLength(0);
          if (p.usage) expect(message.usage_metadata?.total_tokens).toBe(8);
        }
      }),
      { numRuns: 60, seed: 2024 },
    );
  }, 60_000);
});

describe("history codec through a real thread (property)", () => {
  let emulator: EmulatorHandle;
  let studio: StudioClient;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    studio = new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl });
  });
  afterAll(async () => {
    await studio.close();
    await emulator.close();
  });

  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 600, maxLength: 3000 }) },
    { weight: 1, arbitrary: fc.constantFrom("", "😀".repeat(300), "\u0000\r\n", "a\u0301") },
  );
  const id = fc.string({ minLength: 1, maxLength: 16 });
  const args = fc
    .dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.boolean()),
      {
        maxKeys: 3,
      },
    )
    .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
  const message: fc.Arbitrary<BaseMessage> = fc.oneof(
    text.map((content) => new HumanMessage(content)),
    fc
      .tuple(text, fc.constantFrom<"" | never[]>("", []))
      .map(([t, empty]) => new SystemMessage(t || empty)),
    fc.tuple(text, fc.array(fc.record({ id, name: id, args }), { maxLength: 25 })).map(
      ([content, calls]) =>
        new AIMessage({
          content,
          tool_calls: calls.map((c, i) => ({
            ...c,
            id: `${c.id}${i}`,
            type: "tool_call" as const,
          })),
          usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
        }),
    ),
    fc
      .tuple(text, id)
      .map(([content, callId]) => new ToolMessage({ content, tool_call_id: callId })),
    fc.tuple(text, id).map(([content, name]) => new FunctionMessage({ content, name })),
    fc.tuple(text, id).map(([content, role]) => new ChatMessage({ content, role })),
  );

  function view(m: BaseMessage): unknown {
    const r = m as unknown as Record<string, unknown>;
    return {
      type: m.getType(),
      content: m.content,
      ...Object.fromEntries(
        [
          "name",
          "tool_calls",
          "invalid_tool_calls",
          "usage_metadata",
          "tool_call_id",
          "role",
          "additional_kwargs",
        ]
          .filter((k) => r[k] !== undefined)
          .map((k) => [k, r[k]]),
      ),
    };
  }

  it("batches of generated messages come back equal, in order, from a fresh history on the same thread", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 6 }), async (batch) => {
        const writer = new StudioChatMessageHistory({ client: studio });
        await writer.addMessages(batch);
        const reader = new StudioChatMessageHistory({ client: studio, threadId: writer.threadId! });
        const loaded = await reader.getMessages();
        expect(loaded.map(view)).toEqual(batch.map(view));
      }),
      { numRuns: 40, seed: 77 },
    );
  }, 60_000);
});
