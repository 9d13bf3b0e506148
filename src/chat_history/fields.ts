/**
 * StudioChatMessageHistory's fields: declared once, checked by one schema before anything is
 * sent (a `StudioValidationError` naming the field), and resolved with their defaults.
 */
import * as z from "zod/v4/mini";
import type { Metadata } from "../api-types";
import { CLIENT_OPTION_NAMES } from "../client/options";
import type { StudioClientFields } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { describeFields } from "../field-docs";
import { DEFAULT_WRITE_POLICY, type WritePolicy } from "../threads/backoff";
import { checkThreadMetadata, SESSION_RESERVED_KEYS, THREAD_KEY } from "../threads/metadata";
import { sessionIdSchema } from "../threads/session-threads";
import {
  asWritten,
  integerAtLeast,
  type KnownKeys,
  nonEmptyString,
  parseFields,
  refuseUnknownKeys,
  typeName,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

export interface StudioChatMessageHistoryInput extends StudioClientFields {
  /**
   * Your own id for the conversation (a user id, a chat id...): the history finds the thread
   * tagged with it, or creates that thread on the first write. Not together with `threadId`.
   */
  sessionId?: string;
  /** An existing thread. Without it (and without `sessionId`), the first write creates one. */
  threadId?: string;
  /** Title of the thread the history creates. */
  title?: string;
  /**
   * Metadata of the thread the history creates (string values, at most 15 keys, 13 with
   * `sessionId`).
   */
  metadata?: Metadata;
  /** Dataset the thread the history creates relates to (session look-ups stay within it). */
  datasetId?: string;
  /** Attempts per message when writes fail ambiguously, the first included (default 3). */
  maxWriteAttempts?: number;
  /** Pause before reading a thread back after an ambiguous failure, doubling (default 250 ms). */
  confirmDelayMs?: number;
  /**
   * `getMessages()` returns at most the newest `maxMessages` messages (read from the newest end),
   * starting on a human message so that no tool result comes without the call it answers (see
   * `window.ts`).
   */
  maxMessages?: number;
}

export type StudioChatMessageHistoryOptions = Omit<StudioChatMessageHistoryInput, "threadId">;

/** Longest pause accepted between a failed write and its read-back. */
export const MAX_CONFIRM_DELAY_MS = 60_000;

const atLeastOne = () => integerAtLeast(1, "must be an integer >= 1", asWritten);

const confirmDelayError = (issue: { input?: unknown }) =>
  `must be a number of milliseconds between 0 and ${MAX_CONFIRM_DELAY_MS} (got ` +
  `${String(issue.input)})`;

/** The fields' rules, in the order they are checked (the first bad field is the one named). */
const historyFieldsSchema = z.object({
  threadId: z.optional(nonEmptyString()),
  sessionId: z.optional(sessionIdSchema),
  title: z.optional(
    z.string({ error: (issue) => `must be a string (got ${typeName(issue.input)})` }),
  ),
  datasetId: z.optional(nonEmptyString(typeName)),
  maxMessages: z.optional(atLeastOne()),
  maxWriteAttempts: z.optional(atLeastOne()),
  confirmDelayMs: z.optional(
    z
      .number({ error: confirmDelayError })
      .check(
        z.refine(Number.isFinite, { error: confirmDelayError }),
        z.gte(0, { error: confirmDelayError }),
        z.lte(MAX_CONFIRM_DELAY_MS, { error: confirmDelayError }),
      ),
  ),
});

describeFields("history", historyFieldsSchema, {
  threadId: "An existing thread of the service to read and write; not together with `sessionId`",
  sessionId:
    "Your own id for the conversation (up to 512 characters): the history finds the thread " +
    "tagged with it, or creates it on the first write",
  title: "Title of the thread the history creates",
  datasetId:
    "Dataset the created thread belongs to; session look-ups then stay within it (for export)",
  maxMessages:
    "`getMessages()` returns at most the newest N messages, never splitting a tool exchange",
  maxWriteAttempts: "Attempts per message when writes fail ambiguously, the first included",
  confirmDelayMs:
    "Pause (ms, 0 to 60,000) before reading a thread back after an ambiguous failure, doubling",
});
/** The history's own fields, the checked ones and `metadata` (checked by the thread rooms). */
const HISTORY_KEYS = [...Object.keys(historyFieldsSchema.shape), "metadata"];

/** Every field the history takes: its own and the client's. */
const HISTORY_FIELD_KEYS: KnownKeys = {
  owner: "StudioChatMessageHistory",
  known: [...HISTORY_KEYS, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...HISTORY_KEYS, "and the client options"],
};

export interface HistorySettings {
  threadId: string | undefined;
  sessionId: string | undefined;
  title: string | undefined;
  metadata: Metadata | undefined;
  datasetId: string | undefined;
  maxMessages: number | undefined;
  policy: WritePolicy;
}

/** The history's fields checked (naming the field at fault) and defaulted. */
export function historySettings(fields: StudioChatMessageHistoryInput): HistorySettings {
  refuseUnknownKeys(fields, HISTORY_FIELD_KEYS);
  // One conversation has one address: said first, whatever else is wrong.
  if (fields.threadId !== undefined && fields.sessionId !== undefined) {
    throw new StudioValidationError(
      "sessionId",
      "give either threadId (a thread of the service) or sessionId (your own id, resolved to " +
        "its thread), not both",
    );
  }
  const parsed = parseFields(historyFieldsSchema, fields);
  // The reserved keys depend on `sessionId`: the one metadata check of the thread rooms.
  checkThreadMetadata(
    fields.metadata,
    parsed.sessionId === undefined ? [THREAD_KEY] : SESSION_RESERVED_KEYS,
    "the history",
  );
  return {
    threadId: parsed.threadId,
    sessionId: parsed.sessionId,
    title: parsed.title,
    metadata: fields.metadata,
    datasetId: parsed.datasetId,
    maxMessages: parsed.maxMessages,
    policy: {
      maxAttempts: parsed.maxWriteAttempts ?? DEFAULT_WRITE_POLICY.maxAttempts,
      confirmDelayMs: parsed.confirmDelayMs ?? DEFAULT_WRITE_POLICY.confirmDelayMs,
    },
  };
}
