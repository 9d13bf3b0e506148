/**
 * StudioLLM, text completions: a prompt template piped into the model, then `invoke`, a batch of
 * prompts with two completions each, and a stream.
 *
 *   npx tsx examples/llm.ts
 *
 * Runs against a local emulator started here, unless STUDIO_API_KEY and STUDIO_PROXY_URL are set
 * (then the real service, with the model from STUDIO_MODEL).
 */
import { StringOutputParser } from "@langchain/core/output_parsers";
import { PromptTemplate } from "@langchain/core/prompts";
import { startEmulator } from "../src/emulator";
import { StudioLLM } from "../src/llms";

const { STUDIO_API_KEY, STUDIO_PROXY_URL, STUDIO_MODEL } = process.env;
const emulator = STUDIO_API_KEY && STUDIO_PROXY_URL ? undefined : await startEmulator();

const llm = new StudioLLM({
  model: STUDIO_MODEL ?? "studio/echo-text",
  temperature: 0,
  maxTokens: 64,
  // Without these, StudioLLM reads STUDIO_API_KEY and STUDIO_PROXY_URL.
  ...(emulator && { apiKey: emulator.apiKey, proxyUrl: emulator.proxyUrl }),
});

try {
  const chain = PromptTemplate.fromTemplate("Write a haiku about {topic}.")
    .pipe(llm)
    .pipe(new StringOutputParser());
  console.log("invoke:", await chain.invoke({ topic: "autumn rain" }));

  // `generate` sends the prompts concurrently; `n: 2` asks for two completions of each.
  const result = await llm.generate(["The capital of France is", "Two plus two is"], { n: 2 });
  result.generations.forEach((completions, i) => {
    for (const completion of completions) {
      console.log(`batch[${i}]:`, completion.text, `(${completion.generationInfo?.finish_reason})`);
    }
  });
  console.log("token usage:", result.llmOutput?.tokenUsage);

  process.stdout.write("stream: ");
  for await (const piece of await llm.stream("Count from one to five:")) {
    process.stdout.write(piece);
  }
  process.stdout.write("\n");
} finally {
  await llm.client.close();
  await emulator?.close();
}
