import { Agent } from "undici";
import { ChatStudio } from "../../../../src/chat_models";
import { StudioLLM } from "../../../../src/llms";
import { StudioClient } from "../../../../src/client";
import { startLoopback } from "../loopback";
const server = await startLoopback(() => {});
for (const which of ["llm", "chat", "chat-signal", "llm-signal"]) {
  const agent = new Agent();
  const client = new StudioClient({ apiKey: "k", proxyUrl: server.origin, dispatcher: agent, timeout: 60000, maxRetries: 0 });
  const llm = new StudioLLM({ model: "a/b", client });
  const chat = new ChatStudio({ model: "a/b", client });
  const t = Date.now();
  try {
    if (which === "llm") await llm.invoke("x", { timeout: 300 });
    else if (which === "chat") await chat.invoke("x", { timeout: 300 });
    else if (which === "chat-signal") await chat.invoke("x", { signal: AbortSignal.timeout(300) });
    else await llm.invoke("x", { signal: AbortSignal.timeout(300) });
  } catch (e) { console.log(which, (e as Error).name, Date.now() - t); }
  await new Promise(r => setTimeout(r, 1000));
  console.log(which, "stats", JSON.stringify(agent.stats), "server open", server.openSockets());
  await agent.destroy();
  await new Promise(r => setTimeout(r, 200));
}
await server.close();
