/**
 * `langchain-studio/langgraph`: a LangGraph checkpointer and store kept in the service's threads,
 * and a serializer that encrypts what they keep. Needs the optional peer
 * `@langchain/langgraph-checkpoint`.
 */
export {
  type ChannelValuePlace,
  type CheckpointPlace,
  channelValueContext,
  checkpointContext,
  type PendingWritePlace,
  pendingWriteContext,
  storeContext,
} from "../crypto/contexts";
export {
  type ContextualSerde,
  createEncryptedSerde,
  ENCRYPTED_TYPE,
  EncryptedSerde,
  type EncryptedSerdeOptions,
  isContextualSerde,
} from "../crypto/encrypted-serde";
export { type DecryptionRefusal, StudioDecryptionError } from "../crypto/errors";
export type { EncryptionKey } from "../crypto/key-ring";
export {
  type StudioPutOperation,
  StudioStore,
  type StudioStoreFields,
  type StudioStoreIndex,
  type StudioStoreTtl,
} from "../store/store";
export {
  type CheckpointTTL,
  type DeleteThreadsOptions,
  type PrunedThread,
  type PruneOptions,
  type PruneReport,
  StudioCheckpointSaver,
  type StudioCheckpointSaverFields,
} from "./saver";
