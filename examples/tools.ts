/**
 * Tool calling: bind a `tool()` with a zod schema, let the model call it, run it, send the
 * result back as a ToolMessage, and get the final answer.
 *
 *   npx tsx examples/tools.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatStudio } from "langchain-studio";
import { z } from "zod";
import { openBackend } from "./lib/backend";

const getStockPrice = tool(
  async ({ symbol }) => {
    const prices: Record<string, number> = { ACME: 123.45, GLOBEX: 67.8 };
    return JSON.stringify({ symbol, price: prices[symbol.toUpperCase()] ?? null, currency: "USD" });
  },
  {
    name: "get_stock_price",
    description: "Latest price of a stock, by ticker symbol.",
    schema: z.object({ symbol: z.string().describe("ticker symbol, e.g. ACME") }),
  },
);

const backend = await openBackend();

try {
  const model = new ChatStudio({ model: backend.model, client: backend.client, temperature: 0 });
  const withTools = model.bindTools([getStockPrice]);

  const messages: BaseMessage[] = [
    new HumanMessage('What does ACME trade at? Use get_stock_price with {"symbol": "ACME"}'),
  ];
  const aiMessage = await withTools.invoke(messages);
  messages.push(aiMessage);
  console.log("tool calls:", aiMessage.tool_calls);

  for (const toolCall of aiMessage.tool_calls ?? []) {
    // Invoked with the whole tool call, a tool returns a ToolMessage that carries the call's id.
    const toolMessage = await getStockPrice.invoke(toolCall);
    console.log(`tool result for ${toolMessage.tool_call_id}:`, toolMessage.content);
    messages.push(toolMessage);
  }

  const answer = await withTools.invoke(messages);
  console.log("answer:", answer.text);
} finally {
  await backend.close();
}
