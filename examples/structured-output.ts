/**
 * Structured output: a zod schema in, a typed object out, with `withStructuredOutput`.
 * Shows both methods (a forced tool call, and JSON mode) and `includeRaw`.
 *
 *   npx tsx examples/structured-output.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */

import { ChatStudio } from "langchain-studio";
import { z } from "zod";
import { openBackend } from "./lib/backend";

const Movie = z.object({
  title: z.string().describe("the movie's title"),
  year: z.number().int().describe("year of release"),
  genres: z.array(z.string()).describe("genres, lower case"),
});

const backend = await openBackend();

try {
  const model = new ChatStudio({ model: backend.model, client: backend.client, temperature: 0 });
  const text =
    'Extract the movie from this listing: {"title": "Spirited Away", "year": 2001, "genres": ["animation", "fantasy"]}';

  // 1. functionCalling (the default): the schema becomes a tool the model is made to call.
  const extractor = model.withStructuredOutput(Movie, { name: "movie" });
  const movie = await extractor.invoke(text);
  console.log("functionCalling:", movie, `-> typed: ${movie.title} (${movie.year})`);

  // 2. jsonMode: the model is asked for a JSON object, which is parsed against the schema.
  const jsonExtractor = model.withStructuredOutput(Movie, { method: "jsonMode" });
  console.log(
    "jsonMode:",
    await jsonExtractor.invoke(`Answer with a JSON object with title, year and genres. ${text}`),
  );

  // 3. includeRaw: the AI message too, and a parsing error instead of a throw.
  const withRaw = model.withStructuredOutput(Movie, { name: "movie", includeRaw: true });
  const { raw, parsed } = await withRaw.invoke(text);
  console.log("includeRaw: parsed =", parsed, "| raw tool calls =", raw.tool_calls?.length ?? 0);
} finally {
  await backend.close();
}
