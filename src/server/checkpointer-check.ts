/**
 * The server's checkpointer must keep its conversations where another app's retention cannot
 * reach them. A `StudioCheckpointSaver` without a `datasetId` files its threads where every saver
 * without one looks, so another app's `deleteThreads` or `sweep` on the same account would delete
 * them, leaving the thread list pointing at empty conversations. A saver's `datasetId` keeps them
 * apart; sharing one with another app is then a choice made by naming it.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { StudioValidationError } from "../errors";

/** A `StudioCheckpointSaver` by its shape (the server does not load the saver's code). */
interface DatasetSaver {
  datasetId: string | undefined;
  withSerde(serde: unknown): unknown;
}

function isStudioSaver(checkpointer: unknown): checkpointer is DatasetSaver {
  const saver = checkpointer as Partial<DatasetSaver> | null;
  return typeof saver?.withSerde === "function" && "datasetId" in (saver as object);
}

/** @throws StudioValidationError for a `StudioCheckpointSaver` without a `datasetId`. */
export function checkServerCheckpointer(checkpointer: BaseCheckpointSaver): void {
  if (!isStudioSaver(checkpointer) || checkpointer.datasetId !== undefined) return;
  throw new StudioValidationError(
    "checkpointer.datasetId",
    'is required for the server: new StudioCheckpointSaver({ client, datasetId: "chat-server" }) ' +
      "keeps its conversations out of reach of another app's retention (docs/chat-ui.md)",
  );
}
