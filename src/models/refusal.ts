/**
 * A model's refusal as core defines it: `ModelRefusalError` where a refusal cannot be an answer
 * (structured output has nothing to parse). Core 1.4 has the class; an older core (the peer range
 * starts at 1.2) has none, so an error of the same name and text stands in, and callers can test
 * `error.name === "ModelRefusalError"` on every core.
 */
import * as coreErrors from "@langchain/core/errors";
import type { BaseMessage } from "@langchain/core/messages";

const DEFAULT_TEXT = "Model refused to produce the requested output";

interface RefusalErrorClass {
  fromRefusal(block: { type: "refusal"; refusal: string }, rawMessage?: BaseMessage): Error;
}

/** Core's class when this core has it; read off the namespace so older cores still load. */
const coreRefusalError = (coreErrors as Record<string, unknown>).ModelRefusalError as
  | RefusalErrorClass
  | undefined;

/** The stand-in on a core without `ModelRefusalError`: its name, text and `rawMessage`. */
export class StudioModelRefusalError extends Error {
  override name = "ModelRefusalError";
  readonly rawMessage: BaseMessage | undefined;

  constructor(refusal: string, rawMessage?: BaseMessage) {
    super(refusal ? `${DEFAULT_TEXT}: ${refusal}` : DEFAULT_TEXT);
    this.rawMessage = rawMessage;
  }
}

/**
 * The error for a refusal: core's `ModelRefusalError` (same text as core's parsers give), or the
 * stand-in. `errorClass` is for tests of the fallback (`null`: a core without the class).
 */
export function modelRefusalError(
  refusal: string,
  rawMessage?: BaseMessage,
  errorClass: RefusalErrorClass | null = coreRefusalError ?? null,
): Error {
  if (errorClass) return errorClass.fromRefusal({ type: "refusal", refusal }, rawMessage);
  return new StudioModelRefusalError(refusal, rawMessage);
}

/**
 * The refusal text of a model's reply: `additional_kwargs.refusal` (where Studio's converters and
 * core's OpenAI translator keep it), or `refusal` blocks in the content (a message assembled from
 * content-block events, or `outputVersion: "v1"`).
 */
export function refusalOfMessage(message: BaseMessage | undefined): string | undefined {
  if (message === undefined) return undefined;
  const kept = message.additional_kwargs?.refusal;
  if (typeof kept === "string" && kept !== "") return kept;
  if (!Array.isArray(message.content)) return undefined;
  let text = "";
  for (const block of message.content as unknown[]) {
    const { type, refusal } = (block ?? {}) as { type?: unknown; refusal?: unknown };
    if (type === "refusal" && typeof refusal === "string") text += refusal;
  }
  return text === "" ? undefined : text;
}

/** Throws the refusal error when the message is a refusal. */
export function throwIfRefusal(message: BaseMessage | undefined): void {
  const refusal = refusalOfMessage(message);
  if (refusal !== undefined) throw modelRefusalError(refusal, message);
}
