/**
 * `langchain-studio/server`: an Agent Server handler for chat UIs (`useStream`, agent-chat-ui)
 * over the service's threads. Web APIs only; needs the peers `@langchain/langgraph` and
 * `@langchain/langgraph-checkpoint`.
 */

export type { AgentServerCors } from "./cors";
export type { GraphLike } from "./graphs";
export { type NodeListenerOptions, toNodeListener } from "./node-adapter";
export {
  DEFAULT_PING_INTERVAL_MS,
  type NodeSocketLike,
  type NodeUpgradeOptions,
  toNodeUpgradeListener,
  type WebSocketHandler,
} from "./node-upgrade";
export { DEFAULT_MAX_INPUT_BYTES } from "./run-admission";
export { AgentRunError, type RunErrorEvent } from "./run-errors";
export {
  type AgentServerAuth,
  type AgentServerHandler,
  type AgentServerOptions,
  createAgentServer,
} from "./server";
export type {
  AgentServerAssistants,
  AssistantLoadParams,
  AssistantServerTool,
} from "./service-assistants";
export type { AgentServerStoreNamespaces } from "./store-access";
export type { ThreadStatus, ThreadView } from "./thread-view";
export type { AgentServerKeyRing } from "./user-graphs";
export { bunWebSocket } from "./v2/socket-upgrade";
