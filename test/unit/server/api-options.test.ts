/**
 * The options of the assistants, store and CORS parts of `createAgentServer`, checked at
 * construction: each mistake a `StudioValidationError` naming the option.
 */
import { tool } from "@langchain/core/tools";
import { MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { type AgentServerOptions, createAgentServer } from "../../../src/server";

const client = new StudioClient({ apiKey: "test-key", baseUrl: "http://studio.test" });
const agent = new StateGraph(MessagesAnnotation)
  .addNode("reply", () => ({}))
  .addEdge(START, "reply")
  .compile();
const base = { graphs: { agent }, checkpointer: new MemorySaver(), client };
const load = async () => ({ graph: agent });
const echo = tool(({ text }) => text, {
  name: "echo",
  description: "Says it back.",
  schema: z.object({ text: z.string() }),
});

function refusal(extra: Record<string, unknown>): string {
  try {
    createAgentServer({ ...base, ...extra } as AgentServerOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    return (error as Error).message;
  }
  throw new Error("createAgentServer accepted the options");
}

describe("createAgentServer's assistants, storeNamespaces and cors options", () => {
  it("accepts them when well formed", () => {
    const handler = createAgentServer({
      ...base,
      assistants: { load, tools: [echo], maxIterations: 5 },
      storeNamespaces: (user, namespace) => namespace[0] === user,
      cors: { origins: ["http://localhost:3000"], credentials: true, allowHeaders: ["X-Session"] },
    });
    expect(typeof handler).toBe("function");
  });

  it("refuses a bad assistants option, naming the field", () => {
    expect(refusal({ assistants: { tools: [echo] } })).toBe(
      "Invalid assistants.load: must be a function",
    );
    expect(refusal({ assistants: { load, tools: [{ name: "x" }] } })).toBe(
      'Invalid assistants.tools[0]: must be a LangChain tool (tool() from "@langchain/core/tools")',
    );
    expect(refusal({ assistants: { load, tool: [echo] } })).toMatch(
      /^Invalid assistants\.tool: is not an assistants option; did you mean "tools"\?/,
    );
    expect(refusal({ assistants: { load, maxIterations: 0 } })).toBe(
      "Invalid assistants.maxIterations: must be an integer of at least 1 (got 0)",
    );
    expect(refusal({ assistants: { load }, graphs: { "studio-assistant": agent } })).toBe(
      "Invalid graphs.studio-assistant: is the graph id of the service's assistants when " +
        "assistants is set; name the graph otherwise",
    );
  });

  it("refuses a bad storeNamespaces or cors option, naming the field", () => {
    expect(refusal({ storeNamespaces: "mine" })).toBe(
      'Invalid storeNamespaces: must be "user", "shared" or a function (userId, namespace) => boolean',
    );
    expect(refusal({ cors: { origins: ["localhost:3000"] } })).toMatch(
      /^Invalid cors\.origins\[0\]: must be an origin such as "https:\/\/chat\.example\.com"/,
    );
    expect(refusal({ cors: { origins: ["*"], allowHeaders: ["X Session"] } })).toBe(
      'Invalid cors.allowHeaders[0]: must be a header name such as "X-Session"',
    );
  });
});
