import type { CreateAssistantRequest, ListQuery } from "../api-types";
import type { RequestOptions } from "../client/options";
import type { StudioClientFields } from "../client/resolve";
import type { AssistantToolInput } from "../converters/assistant-tools";

export type { AssistantToolInput } from "../converters/assistant-tools";

/** Input of `createAssistant`: the create body, with tools as LangChain tools or Tool objects. */
export interface CreateAssistantInput extends Omit<CreateAssistantRequest, "tools"> {
  tools?: AssistantToolInput[];
}

/**
 * Options of the assistant functions: a `client` or the client options (else the environment),
 * and the per-call `signal`, `timeout`, `maxRetries` and `headers`.
 */
export type AssistantCallOptions = StudioClientFields & RequestOptions;

export type ListAssistantsOptions = AssistantCallOptions & {
  /** Page size (1 to 100); every page is fetched either way. */
  limit?: ListQuery["limit"];
  /** Default `asc` (sent explicitly, see the interface notes). */
  order?: ListQuery["order"];
};
