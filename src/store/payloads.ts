/**
 * Sealing: what a put stores of an item's payload (inline JSON, or a serializer's output such as
 * an encrypted value bound to its namespace and key), and the payload read back from it.
 */
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { fromBase64, toBase64 } from "../converters/base64";
import { storeContext } from "../crypto/contexts";
import { isContextualSerde } from "../crypto/encrypted-serde";
import { StudioError } from "../errors";
import { type Payload, type PutEntry, type StoredPayload, show } from "./records";

/** What a put stores of `payload`: inline JSON, or the serializer's output for its place. */
export async function storePayload(
  serde: SerializerProtocol | undefined,
  namespace: readonly string[],
  key: string,
  payload: Payload,
): Promise<StoredPayload> {
  if (!serde) return { p: payload };
  const [type, bytes] = isContextualSerde(serde)
    ? await serde.sealFor(storeContext(namespace, key), await serde.inner.dumpsTyped(payload))
    : await serde.dumpsTyped(payload);
  return { x: { type, data: toBase64(bytes) } };
}

/** The payload a put stored, through the serializer that stored it. */
export async function loadPayload(
  serde: SerializerProtocol | undefined,
  namespace: readonly string[],
  entry: PutEntry,
): Promise<Payload> {
  const where = `key "${entry.key}" in namespace ${show(namespace)}`;
  if (!serde) {
    if ("p" in entry) return entry.p;
    throw new StudioError(
      `The value of ${where} was stored through a serializer (type "${entry.x.type}"): pass the same \`serde\` to the StudioStore that reads it.`,
    );
  }
  // Inline JSON goes through the serializer too, so that an encrypting one can refuse it.
  const [type, data] =
    "p" in entry ? ["json", JSON.stringify(entry.p)] : [entry.x.type, fromBase64(entry.x.data)];
  if (data === undefined) {
    throw new StudioError(`The stored value of ${where} is damaged: its data is not base64.`);
  }
  const payload: unknown = isContextualSerde(serde)
    ? await serde.inner.loadsTyped(
        ...(await serde.openFor(storeContext(namespace, entry.key), type, data)),
      )
    : await serde.loadsTyped(type, data);
  const value = (payload as Partial<Payload> | null)?.value;
  if (typeof value !== "object" || value === null) {
    throw new StudioError(`The stored value of ${where} did not read back as an object.`);
  }
  return payload as Payload;
}
