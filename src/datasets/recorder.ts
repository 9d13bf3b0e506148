/**
 * StudioConversationRecorder: a LangChain callback handler that stores every chat model run it
 * sees (the messages sent, the tools offered, the answer) as one thread of a dataset, ready for
 * `exportFineTuneRecords`.
 *
 * It never slows or fails the call it watches: the handler only notes the run and starts a
 * background write; writes are capped (`maxPendingWrites`), and every failure goes to `onError`.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage, type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import type { ChatGeneration, LLMResult } from "@langchain/core/outputs";
import * as z from "zod/v4/mini";
import type { ChatTool } from "../api-types";
import type { StudioClient } from "../client";
import { CLIENT_OPTION_NAMES } from "../client/options";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import { convertToolsToStudio } from "../converters/tools";
import { describeFields } from "../field-docs";
import { DEFAULT_WRITE_POLICY } from "../threads/backoff";
import { completeBatch, createThreadConfirmed, PartialWrite } from "../threads/confirmed-writes";
import {
  described,
  describeValue,
  functionField,
  integerAtLeast,
  type KnownKeys,
  nonEmptyString,
  parseFields,
  refuseUnknownKeys,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { StudioRecordingError } from "./errors";
import { PendingWrites } from "./pending-writes";
import { copyMessages, encodeRunThread, type RecordedRun } from "./run-thread";

useEnglishMessages();

/** Takes the messages about to be stored (copies: change them or return new ones). */
export type RedactMessages = (messages: BaseMessage[]) => BaseMessage[] | Promise<BaseMessage[]>;

export interface StudioConversationRecorderInput extends StudioClientFields {
  /** The dataset each run is stored in, as one thread. */
  datasetId: string;
  /** Fraction of model runs recorded, 0 to 1 (default 1: all), drawn per run. */
  sampleRate?: number;
  /** Rewrites the messages (sent and received) before they leave the process, e.g. PII removal. */
  redact?: RedactMessages;
  /** Gets every run that could not be recorded. Default: a `console.warn`. */
  onError?: (error: StudioRecordingError) => void;
  /** Writes in flight at most; a run ending while this many are pending is dropped. Default 100. */
  maxPendingWrites?: number;
}

const DEFAULT_MAX_PENDING_WRITES = 100;

/**
 * Runs started but not yet ended, at most. A stream whose reader stops early never ends (core
 * calls neither `handleLLMEnd` nor `handleLLMError`), so the oldest open run is forgotten when
 * this many are open; it has no answer to record anyway.
 */
const MAX_OPEN_RUNS = 1_000;

interface OpenRun {
  messages: BaseMessage[];
  extraParams: Record<string, unknown> | undefined;
}

const sampleRateError = (issue: { input?: unknown }) =>
  `must be a number from 0 to 1 (got ${described(issue.input)})`;

/** The recorder's own fields, checked before anything is recorded. */
const recorderFieldsSchema = z.object(
  {
    datasetId: nonEmptyString(described, { trim: true }),
    sampleRate: z.optional(
      z
        .number({ error: sampleRateError })
        .check(z.gte(0, { error: sampleRateError }), z.lte(1, { error: sampleRateError })),
    ),
    maxPendingWrites: z.optional(integerAtLeast(1, "must be an integer >= 1", described)),
    redact: z.optional(functionField(described)),
    onError: z.optional(functionField(described)),
  },
  { error: "must be an object with at least a datasetId" },
);

describeFields("recorder", recorderFieldsSchema, {
  datasetId: "The dataset each recorded model run is stored in, as one thread",
  sampleRate: "Fraction of model runs recorded, 0 to 1, drawn per run (0.1: one run in ten)",
  maxPendingWrites:
    "Writes in flight at most; a run ending while this many are pending is dropped and reported",
  redact:
    "Rewrites copies of the messages (sent and received) before they are stored, e.g. PII " +
    "removal; if it throws, nothing is stored",
  onError: "Gets every run that could not be recorded, as a `StudioRecordingError`",
});
const RECORDER_OWN = Object.keys(recorderFieldsSchema.shape);
const RECORDER_KEYS: KnownKeys = {
  owner: "StudioConversationRecorder",
  known: [...RECORDER_OWN, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...RECORDER_OWN, "and the client options"],
};

function checkFields(fields: StudioConversationRecorderInput): void {
  refuseUnknownKeys(fields, RECORDER_KEYS);
  parseFields(recorderFieldsSchema, fields);
}

function warn(error: StudioRecordingError): void {
  console.warn(`[langchain-studio] ${error.message}`);
}

/**
 * The tools offered to the model, in the OpenAI function-tool shape: the call's bound tools
 * (`bindTools`, as any chat model receives them), else the model's own request `tools`.
 */
function offeredTools(extraParams: Record<string, unknown> | undefined): ChatTool[] {
  const options = extraParams?.options as { tools?: unknown } | undefined;
  const invocation = extraParams?.invocation_params as { tools?: unknown } | undefined;
  const tools = options?.tools ?? invocation?.tools;
  if (!Array.isArray(tools) || tools.length === 0) return [];
  return convertToolsToStudio(tools as BindToolsInput[]);
}

function modelOf(extraParams: Record<string, unknown> | undefined): string | undefined {
  const params = extraParams?.invocation_params as Record<string, unknown> | undefined;
  const model = params?.model ?? params?.model_name;
  return typeof model === "string" ? model : undefined;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Records chat model runs into a dataset. Pass it as a callback to any chat model call, chain or
 * agent (`callbacks: [recorder]`); each model run becomes one thread of `datasetId`, exactly once
 * per run id, streamed and batched runs included. `await recorder.flush()` before the process
 * exits (or before exporting) to wait for the writes still in flight.
 * @example
 * const recorder = new StudioConversationRecorder({ datasetId: "support-v2" });
 * await agent.invoke({ messages }, { callbacks: [recorder] });
 * await recorder.flush();
 */
export class StudioConversationRecorder extends BaseCallbackHandler {
  name = "StudioConversationRecorder";

  readonly datasetId: string;
  readonly sampleRate: number;
  readonly #client: StudioClient;
  readonly #redact: RedactMessages | undefined;
  readonly #onError: (error: StudioRecordingError) => void;
  readonly #open = new Map<string, OpenRun>();
  readonly #writes: PendingWrites;

  constructor(fields: StudioConversationRecorderInput) {
    // Awaited by core (not queued on its background callback queue): the handler itself only
    // notes the run and starts a write, so the call waits for no I/O, and by the time the call
    // returns its write is pending here, where `flush()` finds it.
    super({ _awaitHandler: true });
    checkFields(fields);
    const { datasetId, sampleRate, redact, onError, maxPendingWrites, ...clientFields } = fields;
    this.#client = resolveClient(clientFields);
    this.datasetId = datasetId;
    this.sampleRate = sampleRate ?? 1;
    this.#redact = redact;
    this.#onError = onError ?? warn;
    this.#writes = new PendingWrites(maxPendingWrites ?? DEFAULT_MAX_PENDING_WRITES);
  }

  /** Writes started and not yet settled. */
  get pendingWrites(): number {
    return this.#writes.size;
  }

  /** Resolves once every run that has ended so far is stored or reported to `onError`. */
  flush(): Promise<void> {
    return this.#writes.drain();
  }

  override handleChatModelStart(
    _llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    extraParams?: Record<string, unknown>,
  ): void {
    // Core calls once per prompt of a batch, each with its own run id and one message list.
    const sent = messages[0];
    if (sent === undefined || !(Math.random() < this.sampleRate)) return;
    if (this.#open.size >= MAX_OPEN_RUNS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    this.#open.set(runId, { messages: [...sent], extraParams });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const run = this.#open.get(runId);
    if (run === undefined) return;
    this.#open.delete(runId);
    // With n > 1 choices the first is recorded: a record has one final answer.
    const answer = (output.generations[0]?.[0] as ChatGeneration | undefined)?.message;
    const started = this.#writes.start(() => this.#record(runId, run, answer));
    if (!started) {
      this.#report(
        runId,
        "no",
        `${this.#writes.limit} writes were already pending (maxPendingWrites), so it was ` +
          "dropped. The service is slow or unreachable; raise maxPendingWrites or lower " +
          "sampleRate.",
      );
    }
  }

  override handleLLMError(_error: unknown, runId: string): void {
    this.#open.delete(runId);
  }

  async #record(runId: string, run: OpenRun, answer: BaseMessage | undefined): Promise<void> {
    let recorded: RecordedRun;
    try {
      if (!AIMessage.isInstance(answer)) {
        throw new Error("the model's answer is not an AI message");
      }
      const tools = offeredTools(run.extraParams);
      const messages = [...run.messages, answer];
      recorded = {
        runId,
        tools,
        model: modelOf(run.extraParams),
        messages: this.#redact ? await this.#redacted(messages) : messages,
      };
    } catch (error) {
      this.#report(runId, "no", describeError(error), error);
      return;
    }
    await this.#write(recorded);
  }

  async #redacted(messages: BaseMessage[]): Promise<BaseMessage[]> {
    let result: unknown;
    try {
      result = await this.#redact!(copyMessages(messages));
    } catch (error) {
      throw new Error(`redact failed, so nothing was stored: ${describeError(error)}`, {
        cause: error,
      });
    }
    if (!Array.isArray(result) || !result.every(isBaseMessage)) {
      throw new Error(
        `redact must return an array of LangChain messages (got ${describeValue(result)}); ` +
          "nothing was stored",
      );
    }
    return result;
  }

  async #write(run: RecordedRun): Promise<void> {
    try {
      const { body, batch } = encodeRunThread(run, this.datasetId);
      const created = await createThreadConfirmed(this.#client, DEFAULT_WRITE_POLICY, body);
      if (created.foundAfterFailure) {
        await completeBatch(this.#client, DEFAULT_WRITE_POLICY, created.thread.id, batch);
      }
    } catch (error) {
      if (!(error instanceof PartialWrite)) {
        this.#report(run.runId, "no", describeError(error), error);
        return;
      }
      // A thread that exists but misses messages (a service whose create is not atomic) holds
      // part of the run: that is not "not stored" either.
      const partial = error.threadId !== undefined;
      const where = partial ? ` (thread ${error.threadId} holds part of the run)` : "";
      const stored = error.state === "unknown" || partial ? "unknown" : "no";
      this.#report(run.runId, stored, `${describeError(error.cause)}${where}`, error.cause);
    }
  }

  #report(runId: string, stored: "no" | "unknown", reason: string, cause?: unknown): void {
    const error = new StudioRecordingError({
      runId,
      datasetId: this.datasetId,
      stored,
      reason,
      ...(cause === undefined ? {} : { cause }),
    });
    try {
      this.#onError(error);
    } catch {
      // An onError that throws has nowhere to go: raising it would fail the user's call (or be an
      // unhandled rejection in a background write), which the recorder promises never to do.
    }
  }
}
