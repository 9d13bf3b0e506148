/**
 * The order between a protocol v2 command and an event stream opened while it is handled: the
 * stream waits for the command's answer before it replays, so a stream opened for the answer to
 * an interrupt never replays the paused run's end. Gates order the steps, not the clock.
 */

import type { RunnableConfig } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { type Deferred, deferred, type Gate, gate } from "../../helpers/gate";
import { studioServer } from "./harness";
import { command, readEvents, rootEnd } from "./protocol-v2-scripts";
import { say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** A MemorySaver whose next checkpoint read, once armed, says it started and waits at a gate. */
class HeldSaver extends MemorySaver {
  hold: { reached: Deferred<void>; gate: Gate } | undefined;

  override async getTuple(config: RunnableConfig) {
    const hold = this.hold;
    if (hold) {
      this.hold = undefined;
      hold.reached.resolve();
      await hold.gate.wait;
    }
    return super.getTuple(config);
  }
}

describe("a stream opened while a command is handled", () => {
  it("waits for input.respond's answer and replays none of the paused run", async () => {
    const saver = new HeldSaver();
    const { handler } = studioServer(emulator.handle, { checkpointer: saver });
    const threadId = crypto.randomUUID();
    const start = { assistant_id: "approval", input: say("write to Ada") };
    await command(handler, threadId, { id: 1, method: "run.start", params: start });
    const paused = await readEvents(
      handler,
      threadId,
      { channels: ["lifecycle", "input"] },
      rootEnd,
    );
    expect(paused.at(-1)?.params.data.event).toBe("interrupted");
    const interruptId = paused
      .filter((event) => event.method === "input.requested")
      .map((event) => (event.params.data as { interrupt_id?: string }).interrupt_id)
      .find((id) => id !== undefined);
    expect(interruptId).toEqual(expect.any(String));

    // The answer is held inside its handling (its read of the pending interrupts).
    const held = { reached: deferred<void>(), gate: gate() };
    saver.hold = held;
    const answer = command(handler, threadId, {
      id: 2,
      method: "input.respond",
      params: { namespace: [], interrupt_id: interruptId, response: "yes" },
    });
    await held.reached.promise;
    const streamed = readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
    held.gate.open();
    expect((await answer).body).toMatchObject({ type: "success", id: 2 });
    const events = await streamed;
    const root = events
      .filter((event) => event.params.namespace.length === 0)
      .map((event) => event.params.data.event);
    expect(root).toEqual(["running", "completed"]);
  });
});
