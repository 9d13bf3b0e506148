/**
 * Create, fetch, list and delete assistants. Each function takes a `client`, or the client options
 * to build one (else the environment: `STUDIO_API_KEY`, `STUDIO_BASE_URL`...), plus the per-call
 * options `signal`, `timeout`, `maxRetries` and `headers`, which apply to the call either way.
 * No assistant call has an `auth` body object, so there is no `auth.organization` to fill.
 */
import type { Assistant, Deleted } from "../api-types";
import type { StudioClient } from "../client";
import { CLIENT_OPTION_NAMES, type RequestOptions } from "../client/options";
import { resolveClient } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { refuseUnknownKeys } from "../validation";
import type { AssistantCallOptions, CreateAssistantInput, ListAssistantsOptions } from "./types";
import { toCreateAssistantRequest } from "./validate";

/**
 * Validates `input` (nothing is sent when it fails), converts its tools and creates the assistant.
 */
export async function createAssistant(
  input: CreateAssistantInput,
  options: AssistantCallOptions = {},
): Promise<Assistant> {
  const body = toCreateAssistantRequest(input);
  const [client, perCall] = split(options);
  return client.createAssistant(body, perCall);
}

export async function getAssistant(
  assistantId: string,
  options: AssistantCallOptions = {},
): Promise<Assistant> {
  requireId(assistantId);
  const [client, perCall] = split(options);
  return client.getAssistant(assistantId, perCall);
}

/** Deletes the assistant (`DELETE /v1/assistants/{id}`); an unknown id is `StudioNotFoundError`. */
export async function deleteAssistant(
  assistantId: string,
  options: AssistantCallOptions = {},
): Promise<Deleted> {
  requireId(assistantId);
  const [client, perCall] = split(options);
  return client.deleteAssistant(assistantId, perCall);
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
  refuseUnknownKeys(options, {
    owner: "listAssistants",
    known: ["limit", "order", ...CALL_OPTION_NAMES],
    listed: ["limit", "order", ...REQUEST_OPTION_NAMES, "and the client options"],
  });
  const { limit, order = "asc", ...rest } = options;
  const [client, perCall] = split(rest);
  yield* client.iterateAssistants({ order, ...(limit === undefined ? {} : { limit }) }, perCall);
}

export function requireId(assistantId: unknown): asserts assistantId is string {
  if (typeof assistantId !== "string" || assistantId.trim() === "") {
    throw new StudioValidationError("assistantId", "is required and must be a non-empty string");
  }
}

/**
 * The client (the caller's, or one built from the options) and the per-call options. `timeout`
 * and `maxRetries` are both client options and per-call options; here they are taken per call,
 * so they also work beside a passed `client`.
 */
function split(options: AssistantCallOptions): [StudioClient, RequestOptions] {
  refuseUnknownKeys(options, {
    owner: "assistant call",
    known: CALL_OPTION_NAMES,
    listed: [...REQUEST_OPTION_NAMES, "and the client options"],
  });
  const { signal, timeout, maxRetries, headers, ...fields } = options;
  return [resolveClient(fields), { signal, timeout, maxRetries, headers }];
}

const REQUEST_OPTION_NAMES = ["signal", "timeout", "maxRetries", "headers"] as const;

/** What every assistant function takes as options: the per-call ones, the client or its options. */
const CALL_OPTION_NAMES = [...REQUEST_OPTION_NAMES, ...CLIENT_OPTION_NAMES, "client"];
