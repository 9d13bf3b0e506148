/**
 * Turns an assistant's model references into model uris. A reference is either a uri
 * (`<owner>/<name>`, used as is) or a model record id, which only the model listing maps to a
 * uri. The listing is read at most once per client (and only when some reference needs it);
 * a failed read is not cached, so the next load tries again.
 */
import type { Assistant, ModelSettings } from "../api-types";
import type { StudioClient } from "../client";
import { StudioValidationError } from "../errors";
import { publicModels } from "../models/profile";
import { MODEL_URI_PATTERN } from "../validation";

type ModelListing = Pick<StudioClient, "iteratePublicModels">;

/** Record id -> uri of every public model, from the listing read once per client. */
export async function modelUrisById(client: ModelListing): Promise<ReadonlyMap<string, string>> {
  const byUri = await publicModels(client);
  return new Map([...byUri.values()].map((model) => [model.id, model.uri]));
}

/** The sampling settings of one of the assistant's models, with the model as a uri. */
export interface ResolvedModelSettings {
  model: string;
  temperature: number | undefined;
  topP: number | undefined;
}

/**
 * Resolves `settings.modelId`; when it is missing, or is a record id the listing does not hold,
 * falls back to the assistant's `modelName`, then to its `modelId`.
 *
 * @param field `functionModel` or `responseModel`, named in the error when nothing resolves.
 */
export async function resolveModelSettings(
  assistant: Assistant,
  settings: ModelSettings | null | undefined,
  field: string,
  client: ModelListing,
): Promise<ResolvedModelSettings> {
  const candidates = [settings?.modelId, assistant.modelName, assistant.modelId].filter(
    (ref): ref is string => typeof ref === "string" && ref.trim() !== "",
  );
  for (const ref of candidates) {
    if (MODEL_URI_PATTERN.test(ref)) return withSampling(ref, settings);
    const uri = (await modelUrisById(client)).get(ref);
    if (uri) return withSampling(uri, settings);
  }
  throw new StudioValidationError(
    `${field}.modelId`,
    candidates.length === 0
      ? `is missing and the assistant has no modelName to fall back to (assistant ${assistant.id})`
      : "could not be resolved to a model uri: none of " +
          `${candidates.map((c) => `"${c}"`).join(", ")} ` +
          `is a uri "<owner>/<model-name>" or the id of a listed public model (assistant ` +
          `${assistant.id})`,
  );
}

function withSampling(
  model: string,
  settings: ModelSettings | null | undefined,
): ResolvedModelSettings {
  return { model, temperature: settings?.temperature, topP: settings?.topP };
}

export function sameModelSettings(a: ResolvedModelSettings, b: ResolvedModelSettings): boolean {
  return a.model === b.model && a.temperature === b.temperature && a.topP === b.topP;
}
