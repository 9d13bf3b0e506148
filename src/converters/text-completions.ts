/**
 * Text completions (wire) to LangChain generations, whole or streamed. Pure: no client, no model.
 */
import { type Generation, GenerationChunk } from "@langchain/core/outputs";
import type { TextCompletion, TextCompletionChunk, Usage } from "../api-types";
import { MODEL_PROVIDER, refusalText } from "./completion";

/**
 * What every finished generation carries, like `response_metadata` on chat messages. `model`
 * is the server's, else the requested one.
 */
export function textGenerationInfo(
  finishReason: string | null | undefined,
  model: string,
): Record<string, unknown> {
  return {
    model_provider: MODEL_PROVIDER,
    model,
    model_name: model,
    ...(finishReason != null && { finish_reason: finishReason }),
  };
}

/** The choices of one response, in choice order (the service may list them in any order). */
export function convertTextCompletionToGenerations(
  completion: TextCompletion,
  requestedModel: string,
): Generation[] {
  return [...completion.choices]
    .sort((a, b) => a.index - b.index)
    .map((choice) => ({
      text: choice.text,
      generationInfo: withRefusal(
        textGenerationInfo(choice.finish_reason, completion.model ?? requestedModel),
        choice.refusal,
      ),
    }));
}

/**
 * The text completions API has no refusal, but a server that reports one on a whole text choice
 * (as chat choices do) has it kept in `generationInfo.refusal`, never dropped for an empty text.
 */
function withRefusal(info: Record<string, unknown>, refusal: unknown): Record<string, unknown> {
  const text = refusalText(refusal);
  return text === undefined ? info : { ...info, refusal: text };
}

/** One streamed event to a `GenerationChunk` per choice it carries. */
export function convertTextChunkToGenerationChunks(
  chunk: TextCompletionChunk,
  requestedModel: string,
): { index: number; chunk: GenerationChunk }[] {
  return chunk.choices.map((choice) => ({
    index: choice.index,
    chunk: new GenerationChunk({
      text: choice.text ?? "",
      ...(choice.finish_reason != null && {
        generationInfo: textGenerationInfo(choice.finish_reason, chunk.model ?? requestedModel),
      }),
    }),
  }));
}

/**
 * Folds a stream of events into the same generations a non-streamed call returns: one per
 * choice index, and the usage if the service sent it. Servers that send usage on every event
 * send a running total, so the last one is kept, never a sum.
 */
export class TextStreamAccumulator {
  private readonly byIndex = new Map<number, GenerationChunk>();
  private usageSeen: Usage | undefined;

  constructor(private readonly requestedModel: string) {}

  /** Adds one event; returns its per-choice chunks so the caller can forward them as tokens. */
  add(event: TextCompletionChunk): { index: number; chunk: GenerationChunk }[] {
    if (event.usage != null) this.usageSeen = event.usage;
    const parts = convertTextChunkToGenerationChunks(event, this.requestedModel);
    for (const { index, chunk } of parts) {
      const previous = this.byIndex.get(index);
      this.byIndex.set(index, previous === undefined ? chunk : previous.concat(chunk));
    }
    return parts;
  }

  get usage(): Usage | undefined {
    return this.usageSeen;
  }

  generations(): Generation[] {
    return [...this.byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, chunk]) => ({ text: chunk.text, generationInfo: chunk.generationInfo ?? {} }));
  }
}
