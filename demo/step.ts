/**
 * What every demo step receives and provides. Steps run in order and share one context; the
 * first step chooses the model the others use.
 */
import { ChatStudio, type ChatStudioInput } from "../src/chat_models";
import type { Backend } from "./backend";
import type { DemoConfig } from "./config";

export interface DemoContext {
  config: DemoConfig;
  backend: Backend;
  /** Model uri used by the steps; chosen by the models step. */
  model: string;
  /** Distinguishes this run's datasets and assistants from earlier runs' in the same data file. */
  runId: string;
}

export interface DemoStep {
  title: string;
  /** One or two sentences on what the step shows and why it matters. */
  intro: string;
  run(ctx: DemoContext): Promise<void>;
}

/** A chat model on the shared client, so all steps reuse one socket pool. */
export function chatModel(ctx: DemoContext, fields: Partial<ChatStudioInput> = {}): ChatStudio {
  return new ChatStudio({ ...fields, model: ctx.model, client: ctx.backend.client });
}

/** A step's own check failed (the service answered, but not as the demo needs). */
export class DemoCheckError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "DemoCheckError";
  }
}
