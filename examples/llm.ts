/**
 * StudioLLM, text completions: a prompt template piped into the model, then `invoke`, a batch of
 * prompts with two completions each, and a stream.
 *
 *   npx tsx examples/llm.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { StringOutputParser } from "@langchain/core/output_parsers";
import { PromptTemplate } from "@langchain/core/prompts";
import { StudioLLM } from "langchain-studio";
import { openBackend } from "./lib/backend";

const backend = await openBackend({ defaultModel: "studio/echo-text" });

try {
  // On its own, `new StudioLLM({ model })` reads STUDIO_API_KEY and STUDIO_PROXY_URL.
  const llm = new StudioLLM({
    model: backend.model,
    client: backend.client,
    temperature: 0,
    maxTokens: 64,
  });

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
  await backend.close();
}
