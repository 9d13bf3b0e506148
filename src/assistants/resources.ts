/**
 * Create, fetch and list assistants. Each call takes an optional client; without one, a client is
 * made from the environment (`STUDIO_API_KEY`, `STUDIO_BASE_URL`, ...) and closed when the call ends.
 */
import type { Assistant } from "../api-types";
import { StudioClient } from "../client";
import type { RequestOptions } from "../client/types";
import { StudioValidationError } from "../errors";
import type { AssistantCallOptions, CreateAssistantInput, ListAssistantsOptions } from "./types";
import { toCreateAssistantRequest } from "./validate";

/** Validates `input` (nothing is sent when it fails), converts its tools and creates the assistant. */
export async function createAssistant(
  input: CreateAssistantInput,
  options: AssistantCallOptions = {},
): Promise<Assistant> {
  const body = toCreateAssistantRequest(input);
  return withClient(options.client, (client) =>
    client.createAssistant(body, requestOptions(options)),
  );
}

export async function getAssistant(
  assistantId: string,
  options: AssistantCallOptions = {},
): Promise<Assistant> {
  requireId(assistantId);
  return withClient(options.client, (client) =>
    client.getAssistant(assistantId, requestOptions(options)),
  );
}

/**
 * Every assistant, across all pages, as an async iterable: pages are fetched as the loop reaches
 * them, and breaking out of the loop stops fetching.
 *
 * @example
 * for await (const assistant of listAssistants({ client })) console.log(assistant.assistantName);
 */
export async function* listAssistants(
  options: ListAssistantsOptions = {},
): AsyncGenerator<Assistant, void, undefined> {
  const { client: given, limit, order = "asc" } = options;
  const client = given ?? new StudioClient();
  try {
    yield* client.iterateAssistants(
      { order, ...(limit === undefined ? {} : { limit }) },
      requestOptions(options),
    );
  } finally {
    if (!given) await client.close();
  }
}

/** Runs `call` with the caller's client, or with one made from the environment and then closed. */
export async function withClient<T>(
  client: StudioClient | undefined,
  call: (client: StudioClient) => Promise<T>,
): Promise<T> {
  if (client) return call(client);
  const own = new StudioClient();
  try {
    return await call(own);
  } finally {
    await own.close();
  }
}

export function requireId(assistantId: unknown): asserts assistantId is string {
  if (typeof assistantId !== "string" || assistantId.trim() === "") {
    throw new StudioValidationError("assistantId", "is required and must be a non-empty string");
  }
}

function requestOptions(options: AssistantCallOptions): RequestOptions {
  const { signal, timeout, maxRetries, headers } = options;
  return { signal, timeout, maxRetries, headers };
}
