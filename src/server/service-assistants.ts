/**
 * The service's own assistants behind `/assistants` (the `assistants` option), and each run as a
 * tool-calling agent through `loadAssistantAgent`. The one I/O module for them.
 *
 * - **Ids.** A graph given in code is the assistant named by its graph id; a service assistant
 *   is named by its service id, and a code graph's id wins when the two are equal. The service
 *   has no update call, so a patch creates a new record (carrying the first record's id in
 *   `lc_assistant` and a version one higher in `lc_version`) and deletes the old one: the id the
 *   API shows stays the same. A lookup by that id reads the record (one call), and only when it
 *   has been replaced lists the account's assistants to find the newest record carrying it.
 * - **Who sees what**, with `auth`: an assistant created through the API is its creator's
 *   (`lc_owner`, a hash of the user id and tenant); another user gets a 404. One created on the
 *   service directly has no owner: every user sees and runs it, and no user changes it here
 *   (403). Without `auth` every assistant is the one user's.
 * - **Tools.** Only code runs a tool, so a service assistant runs only tools the server holds
 *   (`assistants.tools`), matched by name; one declaring another tool is refused when it runs.
 * - Service records never change (a patch is a new record), so an agent is loaded once per
 *   record and kept (`AGENTS_KEPT`); each run binds it to the user's checkpointer and store.
 */
import type { RunnableToolLike } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { Assistant } from "../api-types";
import { toCreateAssistantRequest } from "../assistants/validate";
import type { StudioClient } from "../client";
import { StudioAPIError, StudioValidationError } from "../errors";
import { RecentKeys } from "../threads/in-flight";
import { sha256Hex } from "../threads/service-identity";
import {
  type AssistantCreate,
  type AssistantPatch,
  createInput,
  patchInput,
} from "./assistant-requests";
import {
  declaredToolNames,
  SERVICE_ASSISTANT_GRAPH,
  SERVICE_KEYS,
  stableIdOf,
  versionOf,
} from "./assistant-view";
import { bindGraph, type GraphLike, isGraphLike, type RunnableGraph } from "./graphs";
import { HttpProblem } from "./http";

/** A LangChain tool the server holds (a `tool()` or a `StructuredTool`): what an agent runs. */
export type AssistantServerTool = StructuredToolInterface | RunnableToolLike;

/** What the server passes to `load` (`loadAssistantAgent` takes exactly these). */
export interface AssistantLoadParams {
  assistant: Assistant;
  tools: AssistantServerTool[];
  client: StudioClient;
  maxIterations?: number;
}

export interface AgentServerAssistants {
  /**
   * `loadAssistantAgent` from `langchain-studio/agents`, passed in so that this subpath never
   * imports the optional peer `langchain` itself.
   */
  load: (params: AssistantLoadParams) => Promise<unknown>;
  /** The tools service assistants may name (by `name`); default none. */
  tools?: readonly AssistantServerTool[] | undefined;
  /** Most function-model calls in one run (`loadAssistantAgent`'s; default 15). */
  maxIterations?: number | undefined;
}

/** Agents kept loaded, by service record id. */
export const AGENTS_KEPT = 64;
const PAGE = 100;

function isMissing(error: unknown): boolean {
  return error instanceof StudioAPIError && (error.status === 404 || error.status === 400);
}

function notFound(id: string): HttpProblem {
  return new HttpProblem(404, "Not Found", `Assistant ${id} not found`);
}

export class ServiceAssistants {
  readonly #client: StudioClient;
  readonly #option: AgentServerAssistants;
  readonly #tenant: string | undefined;
  readonly #auth: boolean;
  readonly #tools: ReadonlyMap<string, AssistantServerTool>;
  readonly #agents = new RecentKeys<Promise<GraphLike>>(AGENTS_KEPT);

  /** @throws StudioValidationError when a graph given in code takes the service's graph id. */
  constructor(
    client: StudioClient,
    option: AgentServerAssistants,
    parts: { tenant: string | undefined; auth: boolean; graphs: ReadonlyMap<string, unknown> },
  ) {
    if (parts.graphs.has(SERVICE_ASSISTANT_GRAPH)) {
      throw new StudioValidationError(
        `graphs.${SERVICE_ASSISTANT_GRAPH}`,
        "is the graph id of the service's assistants when assistants is set; name the graph " +
          "otherwise",
      );
    }
    this.#client = client;
    this.#option = option;
    this.#tenant = parts.tenant;
    this.#auth = parts.auth;
    this.#tools = new Map((option.tools ?? []).map((tool) => [tool.name, tool]));
  }

  get toolNames(): string[] {
    return [...this.#tools.keys()];
  }

  async #ownerMark(owner: string): Promise<string | undefined> {
    if (!this.#auth) return undefined;
    const text =
      this.#tenant === undefined
        ? `assistant\u0000${owner}`
        : `assistant-tenant\u0000${this.#tenant}\u0000${owner}`;
    return (await sha256Hex(text)).slice(0, 32);
  }

  /** Whether the user sees the record: theirs, or one with no owner. */
  #visible(record: Assistant, mark: string | undefined): boolean {
    const owner = record.metadata?.[SERVICE_KEYS.owner];
    return mark === undefined || owner === undefined || owner === mark;
  }

  /** Every record the user sees, the newest per id (a patch cut short may leave two). */
  async list(owner: string): Promise<Assistant[]> {
    const mark = await this.#ownerMark(owner);
    const newest = new Map<string, Assistant>();
    for await (const record of this.#client.iterateAssistants({ limit: PAGE, order: "asc" })) {
      if (!this.#visible(record, mark)) continue;
      const id = stableIdOf(record);
      const seen = newest.get(id);
      if (!seen || versionOf(record) >= versionOf(seen)) newest.set(id, record);
    }
    return [...newest.values()];
  }

  /** The record the user sees under `id`, or undefined. */
  async find(owner: string, id: string): Promise<Assistant | undefined> {
    const mark = await this.#ownerMark(owner);
    try {
      const record = await this.#client.getAssistant(id);
      if (stableIdOf(record) === id) return this.#visible(record, mark) ? record : undefined;
    } catch (error) {
      if (!isMissing(error) && !(error instanceof StudioValidationError)) throw error;
    }
    // Replaced by a patch: the newest record carrying the id. (A first record left by a patch
    // cut short is still read above: one call per read is worth that rare staleness.)
    return (await this.list(owner)).find((record) => stableIdOf(record) === id);
  }

  async create(owner: string, body: AssistantCreate, graphs: ReadonlyMap<string, unknown>) {
    const input = createInput(body, graphs, this.#tools);
    const mark = await this.#ownerMark(owner);
    if (mark !== undefined) input.metadata = { ...input.metadata, [SERVICE_KEYS.owner]: mark };
    return this.#client.createAssistant(checked(input));
  }

  /** A patch: a new record with the changes, under the same id; then the old one deleted. */
  async patch(
    owner: string,
    id: string,
    body: AssistantPatch,
    graphs: ReadonlyMap<string, unknown>,
  ): Promise<Assistant> {
    const current = await this.#editable(owner, id);
    const input = patchInput(current, body, graphs, this.#tools);
    const kept: Record<string, string> = {
      [SERVICE_KEYS.stableId]: id,
      [SERVICE_KEYS.version]: String(versionOf(current) + 1),
    };
    const mark = current.metadata?.[SERVICE_KEYS.owner];
    if (typeof mark === "string") kept[SERVICE_KEYS.owner] = mark;
    input.metadata = { ...input.metadata, ...kept };
    const created = await this.#client.createAssistant(checked(input));
    await this.#forget(current.id);
    return created;
  }

  async delete(owner: string, id: string): Promise<void> {
    const current = await this.#editable(owner, id);
    await this.#forget(current.id);
  }

  async #editable(owner: string, id: string): Promise<Assistant> {
    const current = await this.find(owner, id);
    if (!current) throw notFound(id);
    if (this.#auth && current.metadata?.[SERVICE_KEYS.owner] === undefined) {
      throw new HttpProblem(
        403,
        "Forbidden",
        `Assistant ${id} was created on the service, not through this server: every user runs ` +
          "it and nobody changes it here; change it on the service",
      );
    }
    return current;
  }

  async #forget(recordId: string): Promise<void> {
    try {
      await this.#client.deleteAssistant(recordId);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  /**
   * The assistant's agent over the user's checkpointer and store, or undefined when the user
   * sees no assistant `id`.
   * @throws HttpProblem 422 when it declares a tool the server does not hold.
   */
  async graph(
    owner: string,
    id: string,
    parts: { checkpointer: BaseCheckpointSaver; store: BaseStore | undefined },
  ): Promise<RunnableGraph | undefined> {
    const record = await this.find(owner, id);
    if (!record) return undefined;
    const agent = await this.#agent(record);
    return bindGraph(agent, id, parts.checkpointer, parts.store);
  }

  #agent(record: Assistant): Promise<GraphLike> {
    const found = this.#agents.get(record.id);
    if (found) return found;
    const names = declaredToolNames(record);
    const missing = names.filter((name) => !this.#tools.has(name));
    if (missing.length > 0) {
      throw new HttpProblem(
        422,
        "Unprocessable Entity",
        `assistant_id: assistant ${stableIdOf(record)} declares tool(s) ` +
          `${missing.map((name) => `"${name}"`).join(", ")} this server has no code for; add ` +
          "them to createAgentServer({ assistants: { tools } }) or remove them from the assistant",
      );
    }
    const loading = (async () => {
      const agent = await this.#option.load({
        assistant: record,
        tools: names.map((name) => this.#tools.get(name)!),
        client: this.#client,
        ...(this.#option.maxIterations === undefined
          ? {}
          : { maxIterations: this.#option.maxIterations }),
      });
      if (!isGraphLike(agent)) {
        throw new TypeError(
          "assistants.load did not return an agent: pass loadAssistantAgent from " +
            '"langchain-studio/agents"',
        );
      }
      return agent;
    })();
    this.#agents.set(record.id, loading);
    // A failed load (a model listing down) is tried again on the next run.
    loading.catch(() => {
      if (this.#agents.get(record.id) === loading) this.#agents.delete(record.id);
    });
    return loading;
  }
}

/** The assistants room's checks of a create body (limits, metadata), as a 422. */
function checked(input: Parameters<typeof toCreateAssistantRequest>[0]) {
  try {
    return toCreateAssistantRequest(input);
  } catch (error) {
    if (error instanceof StudioValidationError) {
      throw new HttpProblem(422, "Unprocessable Entity", error.message);
    }
    throw error;
  }
}
