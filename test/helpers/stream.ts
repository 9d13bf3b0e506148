/** The chunks of `stream` added up into one, as a caller of `stream()` merges them. */
export async function mergeStream<T extends { concat(chunk: T): T }>(
  stream: AsyncIterable<T>,
): Promise<T> {
  let merged: T | undefined;
  for await (const chunk of stream) merged = merged ? merged.concat(chunk) : chunk;
  if (!merged) throw new Error("the stream ended without a single chunk");
  return merged;
}
