/**
 * A model's `profile` (core's `ModelProfile`) from the public model listing: createAgent picks
 * its structured-output strategy from it, the summarization middleware reads `maxInputTokens`.
 */
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { Model } from "../api-types";
import type { StudioClient } from "../client";

/** What reading the listing takes of a client (tests hand in a fake). */
type ModelListing = Pick<StudioClient, "iteratePublicModels">;

/** One read of the listing per client, shared by every model and agent built on it. */
const listings = new WeakMap<ModelListing, Promise<ReadonlyMap<string, Model>>>();

/**
 * The public models by uri, read once per client; a failed read is not kept, so it can be retried.
 */
export function publicModels(client: ModelListing): Promise<ReadonlyMap<string, Model>> {
  let listing = listings.get(client);
  if (listing === undefined) {
    listing = readListing(client);
    listings.set(client, listing);
    listing.catch(() => listings.delete(client));
  }
  return listing;
}

async function readListing(client: ModelListing): Promise<ReadonlyMap<string, Model>> {
  const byUri = new Map<string, Model>();
  for await (const model of client.iteratePublicModels({ limit: 100 })) byUri.set(model.uri, model);
  return byUri;
}

/**
 * The profile a listing entry declares: the `tools` tag means tool calling, tool choice and
 * structured output; the mid-conversation flags are ChatStudio's (see below);
 * `extra_args.max_model_len` is the context length; `modality` names the
 * input kinds (MODALITY_TEXT: text only).
 */
export function profileFromModel(model: Model | undefined): ModelProfile {
  if (model === undefined) return {};
  const profile: ModelProfile = {
    // ChatStudio sends a system message where it sits (role "system" in place), never moved into
    // a leading prompt, so the prompt prefix before it is unchanged (core 1.2.20's flag).
    midConversationSystemMessages: true,
    // Tools go in the request's `tools` list only: the chat API has no message that adds one.
    midConversationTools: false,
  };
  const tags = model.meta?.metadata?.description?.model_tags;
  if (Array.isArray(tags)) {
    const tools = tags.includes("tools");
    profile.toolCalling = tools;
    profile.toolChoice = tools;
    profile.structuredOutput = tools;
  }
  const maxLen = Number(model.meta?.metadata?.extra_args?.max_model_len);
  if (Number.isInteger(maxLen) && maxLen > 0) profile.maxInputTokens = maxLen;
  const modality = model.meta?.modality?.toUpperCase();
  if (modality) {
    const images = /IMAGE|VISION|MULTIMODAL/.test(modality);
    profile.imageInputs = images;
    profile.imageUrlInputs = images;
    profile.audioInputs = /AUDIO|MULTIMODAL/.test(modality);
    profile.videoInputs = /VIDEO/.test(modality);
  }
  return profile;
}

/** Whether the warning below was given: once per process, however many models forget. */
let warnedNotLoaded = false;

/**
 * Tells, once per process, that a profile was read before it was loaded. `createAgent` and the
 * summarization middleware read `profile` synchronously, so an empty one silently costs the
 * agent its json_schema strategy and its token budget; the warning makes that visible. Once per
 * process rather than per model, because apps that build a model per request would otherwise
 * log it on every request.
 */
export function warnProfileNotLoaded(className: string, model: string): void {
  if (warnedNotLoaded) return;
  warnedNotLoaded = true;
  console.warn(
    `${className}("${model}").profile was read before it was loaded, so it is {}: createAgent ` +
      "falls back to the tool strategy for structured output, and the summarization middleware " +
      `knows no context size. Build the model with \`await ${className}.fromModel("${model}", ` +
      `fields)\`, call \`await model.loadProfile()\` before handing it to an agent, or pass ` +
      `the \`profile\` option. (Warned once per process.)`,
  );
}
