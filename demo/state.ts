/**
 * The little the demo remembers between runs: which thread holds its conversation, per backend
 * (an emulator thread id means nothing to the real service, and the reverse).
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DemoTarget } from "./config";

interface DemoState {
  conversationThread?: Partial<Record<DemoTarget["kind"], string>>;
}

function stateFile(stateDir: string): string {
  return join(stateDir, "demo-state.json");
}

async function readState(stateDir: string): Promise<DemoState> {
  let text: string;
  try {
    text = await readFile(stateFile(stateDir), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as DemoState) : {};
  } catch {
    // A damaged state file only costs the remembered conversation; start a new one.
    return {};
  }
}

export async function rememberedThread(
  stateDir: string,
  kind: DemoTarget["kind"],
): Promise<string | undefined> {
  return (await readState(stateDir)).conversationThread?.[kind];
}

export async function rememberThread(
  stateDir: string,
  kind: DemoTarget["kind"],
  threadId: string | undefined,
): Promise<void> {
  const state = await readState(stateDir);
  state.conversationThread = { ...state.conversationThread, [kind]: threadId };
  const file = stateFile(stateDir);
  // Temporary file + rename: an interrupted run never leaves a half-written file.
  await writeFile(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
