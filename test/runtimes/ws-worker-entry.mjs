/**
 * Entry of workerd's WebSocket check: a module worker serving the built `createAgentServer`
 * (an echo graph over the emulator whose address comes in the `OPTIONS` binding), as a worker
 * serves it: `fetch(request, env)`. Bundled by `bundle.ts`; driven by `workerd-ws-run.mjs`.
 */
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { StudioClient } from "langchain-studio";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { createAgentServer } from "langchain-studio/server";

function echoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (state) => {
      const last = state.messages.at(-1);
      return { messages: [new AIMessage({ content: `You said: ${last?.text ?? ""}` })] };
    })
    .addEdge(START, "reply")
    .compile();
}

let handler;

export default {
  fetch(request, env) {
    if (!handler) {
      const client = new StudioClient(JSON.parse(env.OPTIONS));
      handler = createAgentServer({
        graphs: { echo: echoGraph() },
        checkpointer: new StudioCheckpointSaver({ client, datasetId: "runtime-ws" }),
        client,
      });
    }
    return handler(request, env);
  },
};
