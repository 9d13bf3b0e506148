/**
 * `langchain-studio/server`: an Agent Server handler for chat UIs (`useStream`, agent-chat-ui)
 * over the service's threads. Web APIs only; needs the peers `@langchain/langgraph` and
 * `@langchain/langgraph-checkpoint`.
 */

export type { GraphLike } from "./graphs";
export { type NodeListenerOptions, toNodeListener } from "./node-adapter";
export {
  type AgentServerAuth,
  type AgentServerHandler,
  type AgentServerOptions,
  createAgentServer,
} from "./server";
export type { ThreadStatus, ThreadView } from "./thread-view";
