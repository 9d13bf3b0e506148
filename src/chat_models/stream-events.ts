/**
 * Core's content-block event stream (`streamEvents()` without a version, and the message core
 * assembles from it when a callback handler prefers events) for a Studio chat stream. Core's own
 * OpenAI-completions converter does the work; this adds what it leaves out or reads differently:
 * - the response metadata is Studio's, and usage is read as everywhere else (cache writes too);
 * - finished tool calls whose arguments are not a JSON object become invalid calls;
 * - a refusal (`delta.refusal`, which core's converter ignores) is a `refusal` block, started when
 *   its first slice comes, grown by `block-delta`s and finished before the message;
 * - only choice 0: core's converter reads `choices[0]` whatever its index, so with n > 1 the other
 *   choices' deltas would be merged into the first's blocks.
 */
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import {
  convertOpenAICompletionsStream,
  type OpenAICompletionsStreamChunk,
} from "@langchain/core/language_models/openai_completions_stream";
import type { ChatCompletionChunk, Usage } from "../api-types";
import { finalResponseMetadata, MODEL_PROVIDER, refusalText } from "../converters/completion";
import { convertUsage } from "../converters/usage";

export function studioChatModelEvents(
  stream: AsyncIterable<ChatCompletionChunk>,
  options: { streamUsage: boolean; requestedModel: string },
): AsyncGenerator<ChatModelStreamEvent> {
  const { streamUsage, requestedModel } = options;
  let first: ChatCompletionChunk | undefined;
  let finishReason: string | null | undefined;
  let usage: Usage | undefined;
  const refusal = new RefusalBlock();
  const events = convertOpenAICompletionsStream(
    stream as AsyncIterable<unknown> as AsyncIterable<OpenAICompletionsStreamChunk>,
    {
      streamUsage,
      provider: MODEL_PROVIDER,
      mapChunk: (chunk) => {
        const studioChunk = chunk as unknown as ChatCompletionChunk;
        first ??= studioChunk;
        usage = studioChunk.usage ?? usage;
        const choices = studioChunk.choices.filter((choice) => choice.index === 0);
        finishReason = choices[0]?.finish_reason ?? finishReason;
        refusal.add(choices[0]?.delta.refusal);
        return { ...studioChunk, choices } as unknown as OpenAICompletionsStreamChunk;
      },
    },
  );
  return renumbered(events, refusal, (event) => {
    if (event.event === "content-block-finish") {
      return { ...event, content: strictToolBlock(event.content) };
    }
    if (event.event === "usage") {
      return { ...event, usage: convertUsage(usage) ?? event.usage };
    }
    if (event.event === "message-finish") {
      const sent = streamUsage ? usage : undefined;
      const usageMetadata = convertUsage(sent);
      return {
        ...event,
        ...(usageMetadata && { usage: usageMetadata }),
        responseMetadata: finalResponseMetadata({
          model: first?.model ?? requestedModel,
          finishReason,
          id: first?.id,
          created: first?.created,
          usage: sent,
        }),
      };
    }
    return event;
  });
}

/**
 * Core's events with block indexes of our own (core numbers its blocks from 0 and knows nothing
 * of the refusal block), and the refusal's events put in as its slices come. A chunk that holds
 * only a refusal slice gives core's converter nothing to emit, so the next event is raced with
 * the arrival of a slice: each slice is sent when it comes, not with the next event.
 */
async function* renumbered(
  events: AsyncGenerator<ChatModelStreamEvent>,
  refusal: RefusalBlock,
  map: (event: ChatModelStreamEvent) => ChatModelStreamEvent,
): AsyncGenerator<ChatModelStreamEvent> {
  const indexes = new Map<number, number>();
  let next = 0;
  const claim = () => next++;
  try {
    let coming = events.next();
    for (;;) {
      const result = await Promise.race([coming, refusal.arrival()]);
      yield* refusal.pending(claim);
      if (result === SLICE_ARRIVED) continue;
      if (result.done) return;
      coming = events.next();
      const event = result.value;
      if (event.event === "message-finish") yield* refusal.finish();
      if ("index" in event && typeof event.index === "number") {
        let index = indexes.get(event.index);
        if (index === undefined) {
          index = claim();
          indexes.set(event.index, index);
        }
        yield map({ ...event, index } as ChatModelStreamEvent);
      } else {
        yield map(event);
      }
    }
  } finally {
    await events.return(undefined);
  }
}

const SLICE_ARRIVED = Symbol("refusal slice");

/** The refusal text of choice 0 as its slices come, and the events that stream it. */
class RefusalBlock {
  #index: number | undefined;
  #text = "";
  #unsent = "";
  #arrived: (() => void) | undefined;
  #arrival: Promise<typeof SLICE_ARRIVED> | undefined;

  add(slice: unknown): void {
    const text = refusalText(slice);
    if (text === undefined) return;
    this.#unsent += text;
    this.#arrived?.();
  }

  /** Settles when a slice comes (at once when one is waiting). */
  arrival(): Promise<typeof SLICE_ARRIVED> {
    if (this.#unsent !== "") return Promise.resolve(SLICE_ARRIVED);
    this.#arrival ??= new Promise((resolve) => {
      this.#arrived = () => {
        this.#arrival = undefined;
        this.#arrived = undefined;
        resolve(SLICE_ARRIVED);
      };
    });
    return this.#arrival;
  }

  *pending(claim: () => number): Generator<ChatModelStreamEvent> {
    if (this.#unsent === "") return;
    if (this.#index === undefined) {
      this.#index = claim();
      yield {
        event: "content-block-start",
        index: this.#index,
        content: { type: "refusal", refusal: "" },
      } as ChatModelStreamEvent;
    }
    this.#text += this.#unsent;
    this.#unsent = "";
    yield {
      event: "content-block-delta",
      index: this.#index,
      delta: { type: "block-delta", fields: { type: "refusal", refusal: this.#text } },
    } as ChatModelStreamEvent;
  }

  *finish(): Generator<ChatModelStreamEvent> {
    if (this.#index === undefined) return;
    yield {
      event: "content-block-finish",
      index: this.#index,
      content: { type: "refusal", refusal: this.#text },
    } as ChatModelStreamEvent;
  }
}

/** Core's finished tool block holds any JSON; arguments must be an object, as everywhere. */
function strictToolBlock<T>(block: T): T {
  const { type, args } = block as { type?: unknown; args?: unknown };
  if (type !== "tool_call" || (typeof args === "object" && args !== null && !Array.isArray(args))) {
    return block;
  }
  return {
    ...block,
    type: "invalid_tool_call",
    args: JSON.stringify(args),
    error: "The arguments are valid JSON but not an object",
  } as T;
}
