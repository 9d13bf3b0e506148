/**
 * What makes a run of the run lifecycle a protocol v2 run: its graph streamed into the thread's
 * v2 events, and its root's last `lifecycle` event once it has ended. The same for a run started
 * by a command (`run-commands.ts`) and for one taken over from another instance
 * (`run-takeover.ts`), so a v2 run handed over stays a v2 run.
 */
import type { RunnableGraph } from "../graphs";
import type { RunRequest } from "../run-lifecycle";
import type { ProtocolLog } from "./protocol-log";
import { endEvent, type RunEnd, streamProtocolRun } from "./run-stream";

export interface ProtocolRunSpec {
  graph: RunnableGraph;
  log: ProtocolLog;
  userId: string | undefined;
  report(error: unknown): void;
  /** A run another instance started: its root's "running" was sent there. */
  takenOver?: boolean | undefined;
}

export function protocolRun(
  spec: ProtocolRunSpec,
): Required<Pick<RunRequest, "execute" | "ending" | "protocol">> {
  const { graph, log, userId, report } = spec;
  const end: RunEnd = {};
  return {
    protocol: "v2",
    execute: (run, body) =>
      streamProtocolRun({
        graph,
        run,
        body,
        userId,
        log,
        end,
        report,
        takenOver: spec.takenOver,
      }),
    ending: async (run, status) => {
      const data = endEvent(run.assistant_id, status, end);
      if (data) log.append({ method: "lifecycle", namespace: [], data });
      await log.flushed();
    },
  };
}
