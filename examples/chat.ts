/**
 * ChatStudio basics: a prompt template piped into the model, then `invoke` and `batch`.
 *
 *   npx tsx examples/chat.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatStudio } from "langchain-studio";
import { openBackend } from "./lib/backend";

const backend = await openBackend();

try {
  // On its own, `new ChatStudio({ model })` reads STUDIO_API_KEY, STUDIO_BASE_URL and
  // STUDIO_PROXY_URL; here it shares the backend's client.
  const model = new ChatStudio({
    model: backend.model,
    client: backend.client,
    temperature: 0,
    maxTokens: 100,
  });

  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You translate English into {language}. Answer with the translation only."],
    ["human", "{text}"],
  ]);
  const chain = prompt.pipe(model);

  const reply = await chain.invoke({ language: "French", text: "Good morning!" });
  console.log("invoke:", reply.text);
  console.log("usage:", reply.usage_metadata);
  console.log("finish reason:", reply.response_metadata.finish_reason);

  // `batch` runs the inputs concurrently and keeps their order.
  const replies = await chain.batch([
    { language: "German", text: "Thank you." },
    { language: "Spanish", text: "See you tomorrow." },
  ]);
  for (const r of replies) console.log("batch:", r.text);
} finally {
  await backend.close();
}
