import { named, StudioError } from "../errors";
import { redactText } from "../errors/redact";
import type { FineTuneRecordProblem } from "./validate-record";

/**
 * A chat model run the recorder did not record (or cannot confirm it recorded). The user's call
 * was not affected; this reaches the recorder's `onError` only.
 */
export class StudioRecordingError extends StudioError {
  static {
    named(StudioRecordingError, "StudioRecordingError");
  }

  readonly runId: string;
  readonly datasetId: string;
  /**
   * `"no"`: the run is not in the dataset. `"unknown"`: its thread may be stored (a write whose
   * answer was lost); should it be stored twice, the export keeps one copy.
   */
  readonly stored: "no" | "unknown";

  constructor(init: {
    runId: string;
    datasetId: string;
    stored: "no" | "unknown";
    reason: string;
    cause?: unknown;
  }) {
    const outcome =
      init.stored === "no"
        ? "was not recorded"
        : "may not have been recorded (its thread may or may not be stored)";
    super(
      `Chat model run ${init.runId} ${outcome} in dataset "${init.datasetId}": ${init.reason}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.runId = init.runId;
    this.datasetId = init.datasetId;
    this.stored = init.stored;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), runId: this.runId, datasetId: this.datasetId, stored: this.stored };
  }
}

function describeProblems(problems: readonly FineTuneRecordProblem[]): string {
  const shown = problems
    .slice(0, 5)
    .map((p) => (p.path ? `${p.path}: ${p.message}` : p.message))
    .join("; ");
  return problems.length > 5 ? `${shown}; and ${problems.length - 5} more` : shown;
}

/**
 * The export met a thread that does not make a valid fine-tuning record, and was asked to fail
 * on such threads (`invalid: "fail"`, the default). Records before it were yielded.
 */
export class StudioInvalidRecordError extends StudioError {
  static {
    named(StudioInvalidRecordError, "StudioInvalidRecordError");
  }

  readonly threadId: string;
  /** The recorded run the thread holds; undefined for threads the recorder did not write. */
  readonly runId: string | undefined;
  readonly problems: FineTuneRecordProblem[];

  constructor(init: {
    threadId: string;
    runId: string | undefined;
    problems: readonly FineTuneRecordProblem[];
  }) {
    const run = init.runId === undefined ? "" : ` (run ${init.runId})`;
    super(
      `Thread ${init.threadId}${run} is not a valid fine-tuning record: ` +
        `${describeProblems(init.problems)}. Fix or delete the thread, or pass invalid: "skip" ` +
        "to leave such threads out.",
    );
    // Ids read from the service, shown apart from the message: an echoed key must not ride out.
    this.threadId = redactText(init.threadId);
    this.runId = init.runId === undefined ? undefined : redactText(init.runId);
    this.problems = [...init.problems];
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      threadId: this.threadId,
      runId: this.runId,
      problems: this.problems,
    };
  }
}
