/**
 * `loadAssistantAgent`: fetches the assistant (unless given), checks the tools against it,
 * resolves its two model references and builds the agent (see ./agent).
 */
import { requireId } from "../assistants/resources";
import { ChatStudio } from "../chat_models";
import type { StudioClient } from "../client";
import { resolveClient } from "../client/resolve";
import { validateField } from "../validation";
import { type AssistantAgent, buildAssistantAgent } from "./agent";
import { type ResolvedModelSettings, resolveModelSettings, sameModelSettings } from "./model-refs";
import { checkLoadParams } from "./params";
import { matchTools } from "./tool-match";
import type { LoadAssistantAgentParams } from "./types";

export { DEFAULT_MAX_ITERATIONS } from "./params";

/**
 * Loads an assistant (or takes the record given) and returns a runnable agent:
 * `invoke({ messages })` resolves to `{ messages }` with the final answer last; `stream` and
 * `streamEvents` work; callbacks and `signal` in the call config reach the models and tools.
 *
 * Fails before any model call when a declared tool has no implementation, an implementation is
 * not declared, or a model reference cannot be resolved.
 */
export async function loadAssistantAgent(
  params: LoadAssistantAgentParams,
): Promise<AssistantAgent> {
  const { maxIterations, tools } = checkLoadParams(params);
  // resolveClient reads only `client` and the client options among the params.
  const client = resolveClient(params);
  let assistant = params.assistant;
  if (!assistant) {
    requireId(params.assistantId);
    assistant = await client.getAssistant(params.assistantId);
  }
  const declaredTools = matchTools(assistant, tools);

  const functionSettings = await resolveModelSettings(
    assistant,
    assistant.functionModel,
    "functionModel",
    client,
  );
  const responseSettings = assistant.responseModel
    ? await resolveModelSettings(assistant, assistant.responseModel, "responseModel", client)
    : functionSettings;

  return buildAssistantAgent({
    functionModel: chatModel(functionSettings, "functionModel", client),
    responseModel: sameModelSettings(functionSettings, responseSettings)
      ? undefined
      : chatModel(responseSettings, "responseModel", client),
    declaredTools,
    tools,
    instructions: assistant.instructions,
    history: params.history,
    maxIterations,
  });
}

/** A ChatStudio for one of the assistant's models, tagged so traces and streams tell them apart. */
function chatModel(
  settings: ResolvedModelSettings,
  field: "functionModel" | "responseModel",
  client: StudioClient,
): ChatStudio {
  validateField("temperature", `${field}.temperature`, settings.temperature);
  validateField("topP", `${field}.topP`, settings.topP);
  return new ChatStudio({
    model: settings.model,
    client,
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { topP: settings.topP }),
    tags: [`studio:${field}`],
  });
}
