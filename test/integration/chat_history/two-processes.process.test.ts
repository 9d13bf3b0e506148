/**
 * RunnableWithMessageHistory on ChatStudio across two separate processes: each starts its own
 * emulator on the same data file; the second continues the conversation the first began.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { nodeEntry } from "../../helpers/node-entry";

const run = promisify(execFile);
const dirs: string[] = [];

interface TurnOutput {
  threadId: string;
  reply: string;
  sent: [string, string][];
  messages: [string, string][];
}

async function turn(dataFile: string, sessionId: string, text: string): Promise<TurnOutput> {
  const { stdout } = await run(
    process.execPath,
    await nodeEntry("test/fixtures/history-turn.ts", [dataFile, sessionId, text]),
    { cwd: process.cwd(), timeout: 45_000, env: { ...process.env, NO_COLOR: "1" } },
  );
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as TurnOutput;
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("history across processes", () => {
  it("the second process sees and continues the first one's conversation", async () => {
    const dir = await mkdtemp(join(tmpdir(), "studio-history-"));
    dirs.push(dir);
    const dataFile = join(dir, "emulator.json");

    const first = await turn(dataFile, "new", "My name is Ada.");
    expect(first.threadId).toMatch(/^thread_/);
    expect(first.messages).toEqual([
      ["human", "My name is Ada."],
      ["ai", first.reply],
    ]);

    const second = await turn(dataFile, first.threadId, "What is my name?");
    expect(second.threadId).toBe(first.threadId);
    // The model was sent the first process's turn as history.
    expect(second.sent).toEqual([
      ["system", "You are a helpful parrot."],
      ["user", "My name is Ada."],
      ["assistant", first.reply],
      ["user", "What is my name?"],
    ]);
    expect(second.messages).toEqual([
      ["human", "My name is Ada."],
      ["ai", first.reply],
      ["human", "What is my name?"],
      ["ai", second.reply],
    ]);
  }, 120_000);
});
