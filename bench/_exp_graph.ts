import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
export function agentGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("model", (state) => {
      const last = state.messages.at(-1) as BaseMessage;
      const n = state.messages.length;
      if (HumanMessage.isInstance(last)) {
        return { messages: [new AIMessage({ id: `ai-${n}`, content: "", tool_calls: [{ id: `call-${n}`, name: "get_weather", args: { city: "Oslo" } }] })] };
      }
      return { messages: [new AIMessage({ id: `ai-${n}`, content: `answer ${n}: mostly sunny, 22°C, light wind from the west.` })] };
    })
    .addNode("tools", (state) => {
      const last = state.messages.at(-1) as AIMessage;
      return { messages: [new ToolMessage({ id: `tool-${state.messages.length}`, tool_call_id: last.tool_calls![0]!.id!, content: "Oslo: sunny, 22°C" })] };
    })
    .addEdge(START, "model")
    .addConditionalEdges("model", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "model")
    .compile({ checkpointer });
}

