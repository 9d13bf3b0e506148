/**
 * The graphs as one user runs them. Without `keyRing` every user runs the same graphs over the
 * server's checkpointer and store. With it, each user's graphs run over views of them whose values
 * are sealed with that user's keys (`withSerde`), so one user's key cannot open another's
 * checkpoints or store values, and a plaintext value is refused. The views share the client;
 * the last `USERS_KEPT` users' views are kept, so a user's reads stay cached between requests.
 */
import type {
  BaseCheckpointSaver,
  BaseStore,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { createEncryptedSerde, isContextualSerde } from "../crypto/encrypted-serde";
import type { KeyRingOptions } from "../crypto/key-ring";
import { StudioValidationError } from "../errors";
import { RecentKeys } from "../threads/in-flight";
import { bindGraph, type GraphLike, type RunnableGraph } from "./graphs";

/** One user's keys: `{ keys, activeKeyId }`, as `createEncryptedSerde` takes them. */
export type AgentServerKeyRing = (userId: string) => KeyRingOptions | Promise<KeyRingOptions>;

/** What a user's runs and reads go through. */
export interface UserGraphs {
  graphs: ReadonlyMap<string, RunnableGraph>;
  checkpointer: BaseCheckpointSaver;
  /** The store the user's graphs run over (the store routes read and write it), if any. */
  store: BaseStore | undefined;
}

/** A saver or store that can give a view of itself through another serializer. */
interface SerdeViews<T> {
  withSerde(serde: SerializerProtocol): T;
}

/**
 * Users whose views are kept. Each holds its saver's cached threads (`maxCachedThreads`), so the
 * bound is the memory's: a user beyond it is rebuilt on the next request (reads cost calls again).
 */
export const USERS_KEPT = 256;

export interface UserGraphsParts {
  graphs: Record<string, GraphLike>;
  checkpointer: BaseCheckpointSaver;
  store: BaseStore | undefined;
  keyRing: AgentServerKeyRing | undefined;
  /** Wraps a checkpointer the way the server guards writes of deleted threads. */
  guard(saver: BaseCheckpointSaver): BaseCheckpointSaver;
}

/**
 * The graphs over the server's own checkpointer and store (`shared`), and each user's (`forUser`).
 * @throws StudioValidationError when `keyRing` is set and the checkpointer or store has no views.
 */
export function userGraphs(parts: UserGraphsParts): {
  shared: UserGraphs;
  forUser: (userId: string) => Promise<UserGraphs>;
} {
  const { graphs, checkpointer, store, keyRing, guard } = parts;
  const bindAll = (saver: BaseCheckpointSaver, userStore: BaseStore | undefined): UserGraphs => {
    const guarded = guard(saver);
    const bound = new Map<string, RunnableGraph>();
    for (const [id, graph] of Object.entries(graphs)) {
      bound.set(id, bindGraph(graph, id, guarded, userStore));
    }
    return { graphs: bound, checkpointer: guarded, store: userStore };
  };
  const shared = bindAll(checkpointer, store);
  if (keyRing === undefined) return { shared, forUser: async () => shared };

  const saverViews = viewsOf<BaseCheckpointSaver>(checkpointer, "checkpointer");
  const storeViews = store === undefined ? undefined : viewsOf<BaseStore>(store, "store");
  const inner = innerSerde(checkpointer.serde);
  const kept = new RecentKeys<Promise<UserGraphs>>(USERS_KEPT);
  const forUser = (userId: string): Promise<UserGraphs> => {
    const found = kept.get(userId);
    if (found) return found;
    const made = (async () => {
      const { keys, activeKeyId } = await keyRing(userId);
      // Only the keys: a user's values are always encrypted, and plaintext is always refused.
      const serde = createEncryptedSerde({ keys, activeKeyId, serde: inner });
      return bindAll(saverViews.withSerde(serde), storeViews?.withSerde(serde));
    })();
    kept.set(userId, made);
    // A failed key lookup (a key service down) is tried again on the user's next request.
    made.catch(() => {
      if (kept.get(userId) === made) kept.delete(userId);
    });
    return made;
  };
  return { shared, forUser };
}

function viewsOf<T>(value: unknown, option: "checkpointer" | "store"): SerdeViews<T> {
  if (typeof (value as Partial<SerdeViews<T>>)?.withSerde === "function") {
    return value as SerdeViews<T>;
  }
  const kind = option === "checkpointer" ? "StudioCheckpointSaver" : "StudioStore";
  throw new StudioValidationError(
    option,
    `must be a ${kind} when keyRing is set: each user's values are sealed with their keys ` +
      "through its withSerde view",
  );
}

/** What turns values into bytes under the users' encryption (the checkpointer's own). */
function innerSerde(serde: SerializerProtocol): SerializerProtocol {
  return isContextualSerde(serde) ? serde.inner : serde;
}
