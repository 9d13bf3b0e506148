/**
 * Embedding, on the client with the `Embeddings` the caller gives: the vectors of each put's
 * indexed texts (stored with the item, so no other process embeds them again) and of each
 * search's query.
 */
import { StudioError } from "../errors";
import type { StudioStoreIndex } from "./fields";
import type { Classified, StudioPutOperation } from "./operations";
import { textsAtPath } from "./queries";
import { encodeVector } from "./records";

export type CheckedIndex = StudioStoreIndex & { fields: string[] };

/** The vectors of each put's indexed texts (by field path), as base64 float32. */
export async function embedPuts(
  index: CheckedIndex | undefined,
  ops: readonly StudioPutOperation[],
): Promise<(Record<string, string> | undefined)[]> {
  if (!index) return ops.map(() => undefined);
  const fieldsOf = ops.map((op) => {
    if (op.value === null || op.index === false) return [];
    const paths = op.index ?? index.fields;
    return paths.flatMap((path) => {
      const texts = textsAtPath(op.value, path);
      return texts.map((text, i) => ({ field: texts.length > 1 ? `${path}.${i}` : path, text }));
    });
  });
  const texts = [...new Set(fieldsOf.flat().map(({ text }) => text))];
  if (texts.length === 0) return ops.map(() => undefined);
  const embedded = await index.embeddings.embedDocuments(texts);
  const byText = new Map<string, string>();
  texts.forEach((text, i) => {
    const vector = embedded[i];
    if (!Array.isArray(vector) || vector.length !== index.dims) {
      throw new StudioError(
        "The embeddings returned " +
          `${Array.isArray(vector) ? `a vector of ${vector.length} numbers` : "no vector"} for ` +
          `text ${i + 1} of ${texts.length}; index.dims says ${index.dims}. Nothing was stored. ` +
          "Set index.dims to the length of the vectors your embeddings return.",
      );
    }
    byText.set(text, encodeVector(vector));
  });
  return fieldsOf.map((fields) =>
    fields.length === 0
      ? undefined
      : Object.fromEntries(fields.map(({ field, text }) => [field, byText.get(text)!])),
  );
}

/** Embeds each distinct query of the batch's searches once (when an index is configured). */
export async function embedQueries(
  index: CheckedIndex | undefined,
  ops: readonly Classified[],
): Promise<Map<string, number[]>> {
  const vectors = new Map<string, number[]>();
  if (!index) return vectors;
  for (const op of ops) {
    if (op.kind !== "search" || !op.op.query || vectors.has(op.op.query)) continue;
    vectors.set(op.op.query, await index.embeddings.embedQuery(op.op.query));
  }
  return vectors;
}
