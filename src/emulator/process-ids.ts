/**
 * Tool-call and completion ids, unique across every emulator of a process: a client (or a test
 * collecting ids from two emulators) never meets one twice. The counters live on `globalThis`
 * under a registered symbol, so two copies of this module (the ESM and CommonJS builds loaded side
 * by side, a test runner's module isolation) still share them.
 */
import type { Rng } from "./rng";

interface Counters {
  toolCalls: number;
  completions: number;
}

const KEY = Symbol.for("langchain-studio.emulator.process-ids");
/** Base-36 digits of the completion counter at the front of a completion id's 24 characters. */
const SEQ_CHARS = 8;
const ID_CHARS = 24;

function counters(): Counters {
  const global = globalThis as { [KEY]?: Counters };
  global[KEY] ??= { toolCalls: 0, completions: 0 };
  return global[KEY];
}

/** `call_<n>`: numbered across the process, never rewound (not by `reset()`). */
export function nextToolCallId(): string {
  return `call_${++counters().toolCalls}`;
}

/**
 * `<kind>-<24 characters of [0-9a-z]>` as before: the process-wide count, then characters from the
 * emulator's seeded generator (so the id shape and the draws of a seed stay as they were).
 */
export function nextCompletionId(kind: string, rng: Rng): string {
  const seq = (++counters().completions).toString(36).padStart(SEQ_CHARS, "0");
  return `${kind}-${seq}${rng.token(ID_CHARS - SEQ_CHARS)}`;
}
