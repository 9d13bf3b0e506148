/**
 * A thread `run.start` creates: its record is held for its run's end, which need not read back
 * what this process just wrote (costs.int.test.ts counts it); when no run starts, nothing holds
 * it, and a later read sees what another process changed since.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, studioServer } from "./harness";
import { command } from "./protocol-v2-scripts";
import { say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("a thread run.start creates", () => {
  it("is read afresh after a run.start refused once created", async () => {
    const here = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    const refused = await command(here.handler, threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "echo", input: say("hi"), multitask_strategy: "sometimes" },
    });
    expect(refused.body).toMatchObject({ type: "error", error: "invalid_argument" });
    // Another process (another instance) changes the thread meanwhile.
    const elsewhere = sdkClient(studioServer(emulator.handle).handler);
    await elsewhere.threads.update(threadId, { metadata: { topic: "renamed" } });
    const seen = await sdkClient(here.handler).threads.get(threadId);
    expect(seen.metadata?.topic).toBe("renamed");
  });
});
