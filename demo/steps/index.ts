import type { DemoStep } from "../step";
import { agentMemoryStep } from "./agent-memory";
import { assistantStep } from "./assistant";
import { chatUiStep } from "./chat-ui";
import { conversationStep } from "./conversation";
import { datasetStep } from "./dataset";
import { fineTuneStep } from "./fine-tune";
import { invokeStep } from "./invoke";
import { modelsStep } from "./models";
import { streamStep } from "./stream";
import { structuredStep } from "./structured";
import { toolsStep } from "./tools";

/** The walk-through, in order; `models` must come first (it picks the model). */
export const steps: readonly DemoStep[] = [
  modelsStep,
  invokeStep,
  streamStep,
  toolsStep,
  structuredStep,
  conversationStep,
  agentMemoryStep,
  datasetStep,
  fineTuneStep,
  assistantStep,
  chatUiStep,
];
