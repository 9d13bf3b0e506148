/**
 * ChatStudio basics: a prompt template piped into the model, then `invoke` and `batch`.
 *
 *   npx tsx examples/chat.ts
 *
 * Runs against a local emulator started here, unless STUDIO_API_KEY, STUDIO_BASE_URL and
 * STUDIO_PROXY_URL are set (then the real service, with the model from STUDIO_MODEL).
 */
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatStudio } from "../src/chat_models";
import { startEmulator } from "../src/emulator";

const { STUDIO_API_KEY, STUDIO_BASE_URL, STUDIO_PROXY_URL, STUDIO_MODEL } = process.env;
const emulator =
  STUDIO_API_KEY && STUDIO_BASE_URL && STUDIO_PROXY_URL ? undefined : await startEmulator();

try {
  const model = new ChatStudio({
    model: STUDIO_MODEL ?? "studio/echo-small",
    temperature: 0,
    maxTokens: 100,
    // Without these, ChatStudio reads STUDIO_API_KEY, STUDIO_BASE_URL and STUDIO_PROXY_URL.
    ...(emulator && {
      apiKey: emulator.apiKey,
      baseUrl: emulator.baseUrl,
      proxyUrl: emulator.proxyUrl,
    }),
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
  await emulator?.close();
}
