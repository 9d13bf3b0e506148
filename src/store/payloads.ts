/**
 * Sealing: what a put stores of an item's payload (inline JSON, or a serializer's output such as
 * an encrypted value bound to its namespace and key), and the payload read back from it.
 *
 * Item values are JSON data. With an encrypting (contextual) serializer the payload's JSON text
 * is sealed as it is and parsed back as it was: it never goes through LangGraph's reviving
 * serializer, which would turn a plain value shaped like a serialized LangChain object
 * (`{lc: 1, type: "constructor", ...}`) into a class instance, read environment variables for
 * `{lc: 1, type: "secret"}`, or fail with the decrypted value in its message. So an encrypted
 * value comes back exactly as the same value does without encryption. A serializer that is not
 * contextual is used as given.
 */
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { fromBase64, toBase64 } from "../converters/base64";
import { storeContext } from "../crypto/contexts";
import { type ContextualSerde, isContextualSerde } from "../crypto/encrypted-serde";
import { StudioError } from "../errors";
import { type Payload, type PutEntry, type StoredPayload, show } from "./records";

const JSON_TYPE = "json";
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** What a put stores of `payload`: inline JSON, or the serializer's output for its place. */
export async function storePayload(
  serde: SerializerProtocol | undefined,
  namespace: readonly string[],
  key: string,
  payload: Payload,
): Promise<StoredPayload> {
  if (!serde) return { p: payload };
  const [type, bytes] = isContextualSerde(serde)
    ? await serde.sealFor(storeContext(namespace, key), [
        JSON_TYPE,
        utf8.encode(JSON.stringify(payload)),
      ])
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
      `The value of ${where} was stored through a serializer (type "${entry.x.type}"): pass the ` +
        `same \`serde\` to the StudioStore that reads it.`,
    );
  }
  // Inline JSON goes through the serializer too, so that an encrypting one can refuse it.
  const [type, data] =
    "p" in entry ? [JSON_TYPE, JSON.stringify(entry.p)] : [entry.x.type, fromBase64(entry.x.data)];
  if (data === undefined) {
    throw new StudioError(`The stored value of ${where} is damaged: its data is not base64.`);
  }
  const payload = isContextualSerde(serde)
    ? await openPayload(serde, storeContext(namespace, entry.key), type, data, where)
    : await serde.loadsTyped(type, data);
  const value = (payload as Partial<Payload> | null)?.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new StudioError(`The stored value of ${where} did not read back as an object.`);
  }
  return payload as Payload;
}

/**
 * Decrypts (refusals are `StudioDecryptionError`s, which hold no value) and parses the JSON text
 * back. A value of another type was written through a custom inner serializer: it reads through
 * it. Whatever fails past decryption is reported without the decrypted bytes or their parser's
 * message, which quotes them.
 */
async function openPayload(
  serde: ContextualSerde,
  context: string,
  type: string,
  data: string | Uint8Array,
  where: string,
): Promise<unknown> {
  const [innerType, innerData] = await serde.openFor(context, type, data);
  try {
    if (innerType !== JSON_TYPE) return await serde.inner.loadsTyped(innerType, innerData);
    return JSON.parse(typeof innerData === "string" ? innerData : fromUtf8.decode(innerData));
  } catch {
    throw new StudioError(
      `The stored value of ${where} decrypted, but is not the JSON of a stored item (type ` +
        `"${innerType}"); it was written by another tool or a damaged writer. Its content is ` +
        "not shown here. Write the key again (or delete it) to replace it.",
    );
  }
}
