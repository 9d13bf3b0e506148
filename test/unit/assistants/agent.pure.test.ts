/**
 * The agent assembly with scripted in-process models: what is bound, which model answers, how
 * tools run and fail, and how history and the iteration limit behave. No network.
 */
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { buildAssistantAgent } from "../../../src/agents/agent";
import { StudioMaxIterationsError } from "../../../src/agents/errors";
import type { AgentMessageHistory } from "../../../src/agents/types";
import type { ChatTool } from "../../../src/api-types";

interface ScriptedCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

interface RecordedCall {
  messages: BaseMessage[];
  tools: BindToolsInput[] | undefined;
}

type Script = (messages: BaseMessage[], call: number) => AIMessage;

class ScriptedChat extends BaseChatModel<ScriptedCallOptions> {
  readonly calls: RecordedCall[] = [];

  constructor(
    readonly label: string,
    readonly script: Script,
  ) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<ScriptedCallOptions>) {
    return this.withConfig({ ...kwargs, tools });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
  ): Promise<ChatResult> {
    this.calls.push({ messages, tools: options.tools });
    const message = this.script(messages, this.calls.length);
    return { generations: [{ text: message.text, message }] };
  }
}

const declared: ChatTool[] = [
  {
    type: "function",
    function: {
      name: "search",
      description: "Declared search.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  },
  {
    type: "function",
    function: { name: "fail", parameters: { type: "object", properties: {} } },
  },
];

const search = tool(({ q }) => `results for ${q}`, {
  name: "search",
  description: "Implementation's own description.",
  schema: z.object({ q: z.string().optional() }),
});
const fail = tool(
  (): string => {
    throw new Error("database unavailable");
  },
  { name: "fail", description: "always fails", schema: z.object({}) },
);

const callTools = (...names: string[]) =>
  new AIMessage({
    content: "",
    tool_calls: names.map((name, i) => ({ id: `call_${i}`, name, args: { q: "cats" } })),
  });

/** Calls the given tools on the first call, then answers with what the last tool said. */
const toolThenAnswer =
  (...names: string[]): Script =>
  (messages) => {
    const last = messages.at(-1);
    if (ToolMessage.isInstance(last)) return new AIMessage(`function: ${last.text}`);
    return callTools(...names);
  };

function memoryHistory(initial: BaseMessage[] = []) {
  const stored = [...initial];
  const writes: BaseMessage[][] = [];
  const history: AgentMessageHistory = {
    getMessages: async () => [...stored],
    addMessages: async (messages) => {
      writes.push(messages);
      stored.push(...messages);
    },
  };
  return { history, stored, writes };
}

function build(
  functionModel: ScriptedChat,
  options: {
    responseModel?: ScriptedChat;
    history?: AgentMessageHistory;
    maxIterations?: number;
  } = {},
) {
  return buildAssistantAgent({
    functionModel,
    responseModel: options.responseModel,
    declaredTools: declared,
    tools: [search, fail],
    instructions: "You are terse.",
    history: options.history,
    maxIterations: options.maxIterations ?? 5,
  });
}

describe("buildAssistantAgent", () => {
  it("binds the declared schemas, runs the tool and returns the whole exchange", async () => {
    const fn = new ScriptedChat("fn", toolThenAnswer("search"));
    const agent = build(fn);
    const result = await agent.invoke({ messages: [new HumanMessage("find cats")] });
    const { messages } = result;
    expect(Object.keys(result)).toEqual(["messages"]);

    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(messages.at(-1)?.text).toBe("function: results for cats");
    expect(fn.calls).toHaveLength(2);
    expect(fn.calls[0]?.tools).toEqual(declared);
    const first = fn.calls[0]?.messages ?? [];
    expect(SystemMessage.isInstance(first[0])).toBe(true);
    expect(first[0]?.text).toBe("You are terse.");
  });

  it("lets the response model write the answer, without tools, over the whole exchange", async () => {
    const fn = new ScriptedChat("fn", toolThenAnswer("search"));
    const rsp = new ScriptedChat(
      "rsp",
      (messages) => new AIMessage(`final after ${messages.length}`),
    );
    const agent = build(fn, { responseModel: rsp });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("find cats")] });

    expect(fn.calls).toHaveLength(2);
    expect(rsp.calls).toHaveLength(1);
    expect(rsp.calls[0]?.tools ?? []).toEqual([]);
    // system + human + ai(tool call) + tool
    expect(rsp.calls[0]?.messages.map((m) => m.type)).toEqual(["system", "human", "ai", "tool"]);
    expect(messages.at(-1)?.text).toBe("final after 4");
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
  });

  it("works for an assistant without tools: one call, nothing bound", async () => {
    const fn = new ScriptedChat("fn", () => new AIMessage("plain answer"));
    const agent = buildAssistantAgent({
      functionModel: fn,
      declaredTools: [],
      tools: [],
      maxIterations: 1,
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(messages.map((m) => m.text)).toEqual(["hi", "plain answer"]);
    expect(fn.calls).toHaveLength(1);
    expect(fn.calls[0]?.tools ?? []).toEqual([]);
    expect(fn.calls[0]?.messages.map((m) => m.type)).toEqual(["human"]);
  });

  it("runs several tool calls of one message in parallel", async () => {
    const started: string[] = [];
    let release: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = (name: string) =>
      tool(
        async () => {
          started.push(name);
          if (started.length === 2) release();
          // Resolves only once both tools are running; the timeout bounds a serial regression.
          await Promise.race([bothStarted, new Promise((r) => setTimeout(r, 2_000))]);
          return `${name}:${started.length}`;
        },
        { name, description: name, schema: z.object({ q: z.string() }) },
      );
    const fn = new ScriptedChat("fn", toolThenAnswer("search", "fail"));
    const agent = buildAssistantAgent({
      functionModel: fn,
      declaredTools: declared,
      tools: [slow("search"), slow("fail")],
      maxIterations: 3,
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("both")] });
    const toolMessages = messages.filter(ToolMessage.isInstance);
    expect(toolMessages.map((m) => m.text).sort()).toEqual(["fail:2", "search:2"]);
  });

  it("turns a throwing tool into an error ToolMessage the model sees", async () => {
    const fn = new ScriptedChat("fn", toolThenAnswer("fail"));
    const { messages } = await build(fn).invoke({ messages: [new HumanMessage("go")] });
    const toolMessage = messages.find(ToolMessage.isInstance);
    expect(toolMessage?.status).toBe("error");
    expect(toolMessage?.text).toBe('Tool "fail" failed: Error: database unavailable');
    expect(messages.at(-1)?.text).toContain("database unavailable");
  });

  it("stops at maxIterations with the pending calls named and the exchange kept", async () => {
    const fn = new ScriptedChat("fn", () => callTools("search"));
    const error = await build(fn, { maxIterations: 3 })
      .invoke({ messages: [new HumanMessage("loop")] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioMaxIterationsError);
    const limit = error as StudioMaxIterationsError;
    expect(limit.message).toMatch(/stopped after 3 function-model calls.*"search".*maxIterations/);
    expect(limit.pendingToolCalls).toEqual(["search"]);
    expect(fn.calls).toHaveLength(3);
    // human, then (ai, tool) twice, then the last ai whose call was not executed
    expect(limit.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai", "tool", "ai"]);
  });

  it("loads earlier turns first and appends the whole turn in one write", async () => {
    const earlier = [new HumanMessage("hi"), new AIMessage("hello")];
    const { history, stored, writes } = memoryHistory(earlier);
    const fn = new ScriptedChat("fn", toolThenAnswer("search"));
    const { messages } = await build(fn, { history }).invoke({
      messages: [new HumanMessage("find cats")],
    });

    expect(fn.calls[0]?.messages.map((m) => m.text)).toEqual([
      "You are terse.",
      "hi",
      "hello",
      "find cats",
    ]);
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(stored).toHaveLength(6);
  });

  it("passes the caller's signal to tools: an abort is not turned into a tool message", async () => {
    const controller = new AbortController();
    const hang = tool(
      async (_input, config) => {
        controller.abort(new Error("caller gave up"));
        config.signal?.throwIfAborted();
        return "unreachable";
      },
      { name: "search", description: "hangs", schema: z.object({ q: z.string() }) },
    );
    const fn = new ScriptedChat("fn", toolThenAnswer("search"));
    const agent = buildAssistantAgent({
      functionModel: fn,
      declaredTools: declared.slice(0, 1),
      tools: [hang],
      maxIterations: 3,
    });
    await expect(
      agent.invoke({ messages: [new HumanMessage("go")] }, { signal: controller.signal }),
    ).rejects.toThrow(/abort|gave up/i);
    expect(fn.calls).toHaveLength(1);
  });
});
