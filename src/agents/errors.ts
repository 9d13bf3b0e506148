import type { BaseMessage } from "@langchain/core/messages";
import { named, StudioError } from "../errors";

/**
 * The function model still asked for tools after `maxIterations` calls in one run. The pending
 * calls were not executed; `messages` holds the exchange up to and including that last request,
 * so nothing that happened is lost.
 */
export class StudioMaxIterationsError extends StudioError {
  static {
    named(StudioMaxIterationsError, "StudioMaxIterationsError");
  }

  readonly maxIterations: number;
  readonly pendingToolCalls: string[];
  readonly messages: BaseMessage[];

  constructor(maxIterations: number, pendingToolCalls: string[], messages: BaseMessage[]) {
    super(
      `Assistant agent stopped after ${maxIterations} function-model ` +
        `call${maxIterations === 1 ? "" : "s"}: the model still requested ` +
        `${pendingToolCalls.map((name) => `"${name}"`).join(", ")}, which was not executed. ` +
        'Raise "maxIterations" in loadAssistantAgent if the task needs more steps, ' +
        "or check that the tools return what the model needs; error.messages holds the exchange.",
    );
    this.maxIterations = maxIterations;
    this.pendingToolCalls = pendingToolCalls;
    this.messages = messages;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      maxIterations: this.maxIterations,
      pendingToolCalls: this.pendingToolCalls,
    };
  }
}
