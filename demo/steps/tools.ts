import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";
import { chatModel, DemoCheckError, type DemoStep } from "../step";
import { ui } from "../ui";

const multiply = tool(({ a, b }) => String(a * b), {
  name: "multiply",
  description: "Multiplies two numbers and returns the product.",
  schema: z.object({
    a: z.number().describe("first factor"),
    b: z.number().describe("second factor"),
  }),
});

export const toolsStep: DemoStep = {
  title: "Tool calling",
  intro:
    "bindTools() sends the tool's JSON schema with the request. The model answers with a tool\n" +
    "call; we run the tool and send its result back as a ToolMessage for the final answer.",
  async run(ctx) {
    const model = chatModel(ctx, { temperature: 0 }).bindTools([multiply]);
    const messages: BaseMessage[] = [
      new HumanMessage('Use the multiply tool to compute 6 times 7: {"a": 6, "b": 7}'),
    ];
    ui.result("You", messages[0]!.text);

    const first = await model.invoke(messages);
    messages.push(first);
    if (first.tool_calls === undefined || first.tool_calls.length === 0) {
      throw new DemoCheckError(
        `the model answered without calling the tool: "${first.text}"`,
        "Pick a model that supports tool calling with STUDIO_MODEL.",
      );
    }
    for (const call of first.tool_calls) {
      ui.result("AI asks for", `${call.name}(${JSON.stringify(call.args)})  [id ${call.id}]`);
      // Invoking a tool with the whole tool call returns a ToolMessage carrying its id.
      const toolMessage = await multiply.invoke({ ...call, type: "tool_call" });
      ui.result(
        "Tool returns",
        `${toolMessage.text}  (ToolMessage for ${toolMessage.tool_call_id})`,
      );
      messages.push(toolMessage);
    }

    const final = await model.invoke(messages);
    ui.result("AI", final.text);
  },
};
