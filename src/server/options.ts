/**
 * What `createAgentServer` is given, and the one schema that checks it at construction: every
 * failure a `StudioValidationError` naming the option, an unknown name refused with the closest
 * known one (the client's options are known too: they build the thread list's client).
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import * as z from "zod/v4/mini";
import type { StudioClient } from "../client";
import { CLIENT_OPTION_NAMES, type StudioClientOptions } from "../client/options";
import { StudioValidationError } from "../errors";
import {
  describeValue,
  functionField,
  integerAtLeast,
  type KnownKeys,
  knownKeysOnly,
  parseFields,
  refuseUnknownKeys,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { isRunCoordination, type RunCoordination } from "./coordination";
import { type AgentServerCors, corsSchema } from "./cors";
import { type GraphLike, isGraphLike } from "./graphs";
import { DEFAULT_MAX_BODY_BYTES } from "./http";
import { DEFAULT_MAX_JSON_DEPTH } from "./json-depth";
import { DEFAULT_MAX_INPUT_BYTES } from "./run-admission";
import type { AgentServerAssistants, AssistantServerTool } from "./service-assistants";
import { DEFAULT_HEARTBEAT_INTERVAL_MS } from "./sse";
import { type AgentServerStoreNamespaces, storeNamespacesSchema } from "./store-access";
import type { AgentServerKeyRing } from "./user-graphs";

useEnglishMessages();

/** Who is calling: a user id, or null (then 401). */
export type AgentServerAuth = (
  request: Request,
) => string | null | undefined | Promise<string | null | undefined>;

export interface AgentServerOptions extends StudioClientOptions {
  /** Graph id (the SDK's `assistant_id`) to a compiled graph or a `createAgent` result. */
  graphs: Record<string, GraphLike>;
  /** Where the graphs' checkpoints are kept (a `StudioCheckpointSaver`, usually). */
  checkpointer: BaseCheckpointSaver;
  /** The graphs' long-term store, if they use one. */
  store?: BaseStore | undefined;
  /**
   * Who is calling. Every thread belongs to the user who created it; another user's thread is a
   * 404 on every route. Without `auth`, every caller is the same user: one user per server.
   */
  auth?: AgentServerAuth | undefined;
  /** The client keeping the thread list (else one is built from the client options). */
  client?: StudioClient | undefined;
  /**
   * Path prefix the handler is mounted under (e.g. "/api"): it starts with "/" and has no
   * trailing "/". Paths outside it are 404s.
   */
  basePath?: string | undefined;
  /**
   * Told of every error the handler did not expect (a 500, a 503 for the service's rate limit,
   * a run whose thread list update failed, an `auth` hook that threw), with the request. The
   * browser gets only a generic message: service errors name hosts, paths and accounts.
   * Default: `console.error`.
   */
  onError?: ((error: unknown, request: Request) => void) | undefined;
  /** The largest request body accepted, in bytes; a larger one is a 413. Default 10 MiB. */
  maxBodyBytes?: number | undefined;
  /**
   * The deepest nesting of arrays and objects a JSON body may have (the body itself is level 1);
   * a deeper one is a 422 before anything is created. Default 64.
   */
  maxJsonDepth?: number | undefined;
  /**
   * Keeps this handler's users apart from another handler's on the same account: the same user
   * id under two tenants is two users. Default: none (handlers without a tenant share users).
   */
  tenant?: string | undefined;
  /**
   * The largest run input (its `input` and `command` as JSON) accepted, in bytes; a larger one is
   * a 413 before the run, leaving the thread as it was. Default 256 KiB (about 64,000 tokens).
   */
  maxInputBytes?: number | undefined;
  /**
   * Each user's encryption keys (`{ keys, activeKeyId }`, as `createEncryptedSerde` takes them),
   * by the `auth` user id. The checkpoints and store values of a user's runs are sealed with them,
   * a value one user's keys cannot open is an error, and plaintext is refused. Needs a
   * `StudioCheckpointSaver` (and a `StudioStore`, if any).
   */
  keyRing?: AgentServerKeyRing | undefined;
  /**
   * Browser origins allowed to call the handler from another origin (`{ origins, credentials,
   * maxAge, allowHeaders }`): preflights are answered, and the headers the SDK reads exposed.
   * Default: no CORS headers (same-origin pages only).
   */
  cors?: AgentServerCors | undefined;
  /**
   * Which store namespaces a user reaches through the store routes: `"user"` (each user's start
   * with their user id), `"shared"` (all), or `(userId, namespace) => boolean`. Default `"user"`;
   * without `auth` every namespace is the one user's.
   */
  storeNamespaces?: AgentServerStoreNamespaces | undefined;
  /**
   * The service's own assistants behind `/assistants`, beside the graphs given in code, each run
   * as an agent: `{ load: loadAssistantAgent, tools, maxIterations }` (`load` from
   * `langchain-studio/agents`; `tools`, the LangChain tools they may name). Default: only the
   * graphs given in code.
   */
  assistants?: AgentServerAssistants | undefined;
  /**
   * Milliseconds between the heartbeats (`: heartbeat` SSE comments) sent on an event stream
   * while nothing else is, so a proxy does not close a stream idle while the model thinks, and the
   * SDK's idle reconnect can tell a live stream from a dropped one; 0 sends none. Default 5000
   * (the LangGraph Platform's cadence).
   */
  heartbeatIntervalMs?: number | undefined;
  /**
   * Coordinates runs with the other instances serving the same threads (behind a load balancer,
   * on a serverless host): `redisCoordination({ url })` from `langchain-studio/server/redis`.
   * Default: runs are coordinated in this process alone (see `docs/deployment.md`).
   */
  coordination?: RunCoordination | undefined;
}

/**
 * The handler, with what a process does when it stops (`docs/deployment.md`). `runtime` is what
 * a runtime passes second (Bun's server, the Node upgrade adapter's): a WebSocket upgrade needs
 * it there; everything else ignores it.
 */
export interface AgentServerHandler {
  (request: Request, runtime?: unknown): Promise<Response>;
  /**
   * Stops taking runs (new ones are a 503) and hands the running ones to another instance at
   * their next superstep boundary, their checkpoints saved (with `coordination`), or waits for
   * them to end (without). Resolves once no run is left in this process. Call it on `SIGTERM`.
   */
  drain(): Promise<void>;
  /** Disconnects from the coordination backend (after `drain`). */
  close(): Promise<void>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const graphsSchema = z.pipe(
  z.custom<Record<string, unknown>>(isPlainObject, {
    error: "must be an object of graph id to graph, e.g. { agent: graph }",
  }),
  z
    .record(
      z.string(),
      z.custom<GraphLike>(isGraphLike, {
        error:
          "is not a compiled LangGraph graph: pass StateGraph#compile() or a createAgent result",
      }),
    )
    .check(
      z.refine((graphs) => Object.keys(graphs).length > 0, {
        error: "must name at least one graph, e.g. { agent: graph }",
      }),
    ),
);

const checkpointerSchema = z.custom<BaseCheckpointSaver>(
  (value) =>
    isPlainObjectLike(value) &&
    typeof value.getTuple === "function" &&
    typeof value.put === "function",
  { error: "must be a LangGraph checkpointer, e.g. new StudioCheckpointSaver({ client })" },
);

const storeSchema = z.custom<BaseStore>(
  (value) => isPlainObjectLike(value) && typeof value.batch === "function",
  { error: "must be a LangGraph store (a BaseStore, e.g. new StudioStore({ client }))" },
);

function isPlainObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

const assistantsShape = z.object(
  {
    load: functionField(),
    tools: z.optional(
      z.array(
        z.custom<AssistantServerTool>(
          (tool) =>
            isPlainObjectLike(tool) &&
            typeof tool.name === "string" &&
            tool.name !== "" &&
            typeof tool.invoke === "function",
          { error: 'must be a LangChain tool (tool() from "@langchain/core/tools")' },
        ),
      ),
    ),
    maxIterations: z.optional(integerAtLeast(1, "must be an integer of at least 1")),
  },
  { error: "must be an object such as { load: loadAssistantAgent, tools: [getWeather] }" },
);

const assistantsSchema = knownKeysOnly(assistantsShape, {
  owner: "assistants",
  known: Object.keys(assistantsShape.shape),
});

/** The server's own options, in the order they are checked (the first bad one is named). */
const serverFieldsSchema = z.object({
  graphs: graphsSchema,
  checkpointer: checkpointerSchema,
  store: z.optional(storeSchema),
  auth: z.optional(functionField()),
  basePath: z.optional(
    z.string({ error: 'must be a path such as "/api"' }).check(
      z.regex(/^(\/[^/?#\s]+)+$/, {
        error: 'must start with "/" and not end with "/", e.g. "/api"',
      }),
    ),
  ),
  onError: z.optional(functionField()),
  maxBodyBytes: z._default(
    integerAtLeast(1, "must be a positive integer (bytes)", describeValue),
    DEFAULT_MAX_BODY_BYTES,
  ),
  maxJsonDepth: z._default(
    integerAtLeast(2, "must be an integer of at least 2 (levels)", describeValue),
    DEFAULT_MAX_JSON_DEPTH,
  ),
  maxInputBytes: z._default(
    integerAtLeast(1, "must be a positive integer (bytes)", describeValue),
    DEFAULT_MAX_INPUT_BYTES,
  ),
  keyRing: z.optional(functionField()),
  tenant: z.optional(
    z.string({ error: "must be a string" }).check(
      z.regex(/^[A-Za-z0-9._-]{1,64}$/, {
        error: 'must be 1 to 64 letters, digits, ".", "_" or "-", e.g. "app-a"',
      }),
    ),
  ),
  cors: z.optional(corsSchema),
  storeNamespaces: z.optional(storeNamespacesSchema),
  assistants: z.optional(assistantsSchema),
  heartbeatIntervalMs: z._default(
    integerAtLeast(0, "must be an integer of at least 0 (milliseconds; 0: none)", describeValue),
    DEFAULT_HEARTBEAT_INTERVAL_MS,
  ),
  coordination: z.optional(
    z.custom<RunCoordination>(isRunCoordination, {
      error:
        "must be a coordination backend, e.g. redisCoordination({ url }) from " +
        "langchain-studio/server/redis",
    }),
  ),
});

const SERVER_KEYS: ReadonlySet<string> = new Set(Object.keys(serverFieldsSchema.shape));

const SERVER_OPTION_KEYS: KnownKeys = {
  owner: "createAgentServer",
  known: [...SERVER_KEYS, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...SERVER_KEYS, "client", "and the client options"],
};

/** The server's options checked and defaulted, and the client's options apart. */
export type ServerSettings = z.output<typeof serverFieldsSchema> & {
  clientFields: StudioClientOptions & { client?: StudioClient | undefined };
};

/**
 * `options` checked (naming the option at fault) and defaulted.
 * @throws StudioValidationError naming the option (e.g. "graphs.agent") and what it must be.
 */
export function serverSettings(options: AgentServerOptions): ServerSettings {
  if (!isPlainObject(options)) {
    throw new StudioValidationError(
      "options",
      "must be an object such as { graphs, checkpointer }",
    );
  }
  refuseUnknownKeys(options, SERVER_OPTION_KEYS);
  if (options.coordination !== undefined && options.keyRing !== undefined) {
    // Redis would hold each run's input and events (the conversation) in plaintext for as long
    // as a join may read them, beside a service that holds them sealed.
    throw new StudioValidationError(
      "coordination",
      "cannot be used with keyRing: Redis would keep the runs' events unencrypted; run one " +
        "instance, or leave keyRing out",
    );
  }
  const own: Record<string, unknown> = {};
  const clientFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    (SERVER_KEYS.has(key) ? own : clientFields)[key] = value;
  }
  return {
    ...parseFields(serverFieldsSchema, own, "options"),
    clientFields: clientFields as ServerSettings["clientFields"],
  };
}
