/**
 * `langchain-studio/langgraph`: a LangGraph checkpointer kept in the service's threads. Needs the
 * optional peer `@langchain/langgraph-checkpoint`.
 */
export { StudioCheckpointSaver, type StudioCheckpointSaverFields } from "./saver";
