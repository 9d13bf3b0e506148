/** What `createAgentServer` is given. */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { StudioClient } from "../client";
import type { StudioClientOptions } from "../client/options";
import type { GraphLike } from "./graphs";
import type { AgentServerKeyRing } from "./user-graphs";

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
  /** Path prefix the handler is mounted under (e.g. "/api"), stripped before routing. */
  basePath?: string | undefined;
  /**
   * Told of every error the handler did not expect (a 500, a 503 for the service's rate limit,
   * a run whose thread list update failed), with the request. The browser gets only a generic
   * message: service errors name hosts, paths and accounts. Default: `console.error`.
   */
  onError?: ((error: unknown, request: Request) => void) | undefined;
  /** The largest request body accepted, in bytes; a larger one is a 413. Default 10 MiB. */
  maxBodyBytes?: number | undefined;
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
}

export type AgentServerHandler = (request: Request) => Promise<Response>;
