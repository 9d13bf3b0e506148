/**
 * Encryption of the checkpointer's records. With a serializer that binds values to their place
 * (`isContextualSerde`, e.g. `createEncryptedSerde`), every value a record holds is sealed for its
 * place just before the record is sent, and opened as soon as it is read back. Everything between
 * (the appended-part plan, the log, the tuples) works on the inner serializer's output, exactly as
 * without encryption: that is what lets a list that only grew be stored as its appended items
 * while encrypted.
 *
 * The places (`crypto/contexts.ts`) are built from the LangGraph thread being read, not from the
 * record's own fields, so a record copied from another thread fails to open. Everything a record
 * keeps readable (ids, versions, channel names) is bound into the values it holds: changing it
 * makes them fail to open.
 */
import { channelValueContext, checkpointContext, pendingWriteContext } from "../crypto/contexts";
import { type ContextualSerde, ENCRYPTED_TYPE } from "../crypto/encrypted-serde";
import { StudioError } from "../errors";
import {
  type BlobRecord,
  loadValue,
  type StoredRecord,
  type StoredValue,
  storeValue,
} from "./records";
import { refTag } from "./value-refs";

/** How records are turned into what is stored, and back. */
export interface RecordCodec {
  seal(threadId: string, record: StoredRecord): Promise<StoredRecord>;
  /** @throws StudioDecryptionError when a value the record holds is refused. */
  open(threadId: string, record: StoredRecord): Promise<StoredRecord>;
}

/**
 * Records stored as the serializer wrote their values. Reading one that holds sealed values
 * fails, saying what to pass: handed to a plain serializer, they would read back as bytes.
 */
export const PLAIN_RECORDS: RecordCodec = {
  seal: async (_threadId, record) => record,
  open: (threadId, record) =>
    mapValues(threadId, record, async (context, value) => {
      if (value.type !== ENCRYPTED_TYPE) return value;
      throw new StudioError(
        `The checkpoint value at ${context} is encrypted, and this StudioCheckpointSaver has no ` +
          `encrypting serde: pass \`serde: createEncryptedSerde({ keys })\` with the keys it ` +
          "was written with.",
      );
    }),
};

/** Records whose every value is sealed for its place by `serde`. */
export function sealedRecords(serde: ContextualSerde): RecordCodec {
  const utf8 = new TextEncoder();
  return {
    seal: (threadId, record) =>
      mapValues(threadId, record, async (context, value) => {
        const [type, data] = loadValue(value);
        const bytes = typeof data === "string" ? utf8.encode(data) : data;
        return storeValue(await serde.sealFor(context, [type, bytes]));
      }),
    open: (threadId, record) =>
      mapValues(threadId, record, async (context, value) => {
        const [type, data] = await serde.openFor(context, ...loadValue(value));
        // "empty" is a value too: a channel emptied is sealed like one that holds something.
        if (type === "empty") return { type: "empty" };
        return storeValue([type, typeof data === "string" ? utf8.encode(data) : data]);
      }),
  };
}

type Convert = (context: string, value: StoredValue) => Promise<StoredValue>;

/** The record with each value it holds converted for the place it is stored. */
async function mapValues(
  threadId: string,
  record: StoredRecord,
  convert: Convert,
): Promise<StoredRecord> {
  const checkpointNs = record.ns;
  const blobs = (list: BlobRecord[]) =>
    Promise.all(
      list.map(async (blob): Promise<BlobRecord> => {
        const place = { threadId, checkpointNs, channel: blob.channel, version: blob.version };
        return "value" in blob
          ? {
              ...blob,
              value: await convert(
                channelValueContext(
                  blob.cut === undefined ? place : { ...place, base: refTag(blob.cut) },
                ),
                blob.value,
              ),
            }
          : {
              ...blob,
              // A cut is part of what the value is: bound in with the version it extends.
              append: await convert(
                channelValueContext({
                  ...place,
                  base:
                    blob.keepChars === undefined
                      ? blob.base
                      : `${String(blob.base)}#${blob.keepChars}`,
                }),
                blob.append,
              ),
            };
      }),
    );
  switch (record.kind) {
    case "checkpoint": {
      const place = {
        threadId,
        checkpointNs,
        checkpointId: record.checkpointId,
        parentId: record.parentId,
        versions: record.versions,
      };
      return {
        ...record,
        checkpoint: await convert(checkpointContext(place, "checkpoint"), record.checkpoint),
        metadata: await convert(checkpointContext(place, "metadata"), record.metadata),
        blobs: await blobs(record.blobs),
      };
    }
    case "values":
      return { ...record, blobs: await blobs(record.blobs) };
    case "writes": {
      const { checkpointId, taskId } = record;
      const writes = await Promise.all(
        record.writes.map(async (write) => {
          const place = { threadId, checkpointNs, checkpointId, taskId, ...write };
          // A reference is part of what the value is: bound in with its channel.
          if (write.cut !== undefined) place.channel = `${write.channel} ${refTag(write.cut)}`;
          return { ...write, value: await convert(pendingWriteContext(place), write.value) };
        }),
      );
      return { ...record, writes };
    }
  }
}
