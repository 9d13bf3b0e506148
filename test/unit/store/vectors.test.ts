import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { describe, expect, it } from "vitest";
import { embedPuts } from "../../../src/store/vectors";

/** Embeddings that answer every text with a vector of `length` numbers. */
function embeddingsOf(length: number): EmbeddingsInterface {
  return {
    embedDocuments: async (texts) => texts.map(() => Array.from({ length }, () => 0.5)),
    embedQuery: async () => Array.from({ length }, () => 0.5),
  };
}

describe("embedPuts", () => {
  it("stores each indexed text's vector when the embeddings return index.dims numbers", async () => {
    const index = { embeddings: embeddingsOf(3), dims: 3, fields: ["text"] };
    const [vectors] = await embedPuts(index, [
      { namespace: ["a"], key: "k", value: { text: "hi" } },
    ]);
    expect(Object.keys(vectors!)).toEqual(["text"]);
  });

  it("names the lengths that differ and the option to set", async () => {
    const index = { embeddings: embeddingsOf(4), dims: 3, fields: ["text"] };
    await expect(
      embedPuts(index, [{ namespace: ["a"], key: "k", value: { text: "hi" } }]),
    ).rejects.toThrow(
      "The embeddings returned a vector of 4 numbers for text 1 of 1; index.dims says 3. " +
        "Nothing was stored. Set index.dims to the length of the vectors your embeddings return.",
    );
  });
});
