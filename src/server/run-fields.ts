/**
 * The run fields the SDK sends beyond a run's input, each honoured or refused with a 422 naming
 * it, never accepted and dropped: a client that asked for a webhook, a scheduled start or a
 * strict resume must learn the server did not do it.
 *
 * Honoured elsewhere: `strict_resume` (LangGraph refuses a resume no interrupt waits for),
 * `durability` / `checkpoint_during`, `after_seconds` (the run lifecycle), `on_completion` (a
 * stateless run's thread), `if_not_exists` (the routes), `namespace` and `stream_mode` of a stream
 * (`eventFilter` below).
 */
import * as langgraph from "@langchain/langgraph/web";
import { HttpProblem } from "./http";
import { type RunCreate, STREAM_MODES, type StreamMode } from "./requests";
import type { RunEvent } from "./runs";

function unprocessable(message: string): HttpProblem {
  return new HttpProblem(422, "Unprocessable Entity", message);
}

/**
 * True when the loaded LangGraph refuses a resume that answers no pending interrupt (it has
 * `UnknownInterruptError`); an older one would run the resume as if `strict_resume` were unset.
 */
export function strictResumeSupported(): boolean {
  return typeof (langgraph as Record<string, unknown>).UnknownInterruptError === "function";
}

/** Throws a 422 naming the first run field this server cannot honour. */
export function checkRunFields(body: RunCreate, stateless: boolean): void {
  if (body.webhook) {
    throw unprocessable("webhook: this server calls no webhooks; leave it out and join the run");
  }
  const feedback = body.feedback_keys;
  if (feedback != null && (typeof feedback === "string" || feedback.length > 0)) {
    throw unprocessable(
      "feedback_keys: this server makes no LangSmith feedback URLs; leave it out",
    );
  }
  if (body.langsmith_tracer != null) {
    throw unprocessable("langsmith_tracer: this server sends no LangSmith traces; leave it out");
  }
  if (body.durability != null && body.checkpoint_during != null) {
    throw unprocessable("checkpoint_during: send durability or checkpoint_during, not both");
  }
  if (body.strict_resume === true && !strictResumeSupported()) {
    throw unprocessable(
      "strict_resume: the server's @langchain/langgraph cannot refuse an unmatched resume; " +
        "upgrade it or leave strict_resume out",
    );
  }
  if (!stateless && body.on_completion === "delete") {
    throw unprocessable(
      'on_completion: "delete" is for a stateless run (POST /runs/...); a thread\'s runs keep it',
    );
  }
}

/** LangGraph's durability for the run's `durability` or deprecated `checkpoint_during`. */
export function durabilityOf(body: RunCreate): "sync" | "async" | "exit" | undefined {
  if (body.durability) return body.durability;
  if (body.checkpoint_during == null) return undefined;
  return body.checkpoint_during ? "async" : "exit";
}

/** Events every reader gets, whatever it filters. */
const CONTROL = new Set(["metadata", "error", "end"]);

/** The event name of an SDK stream mode (`messages-tuple` is sent as `messages`). */
const EVENT_OF: Partial<Record<StreamMode, string>> = { "messages-tuple": "messages" };

/** A namespace segment without its task id (`agent:1f0...` is `agent`). */
function bare(namespace: string): string {
  return namespace
    .split("|")
    .map((segment) => segment.split(":")[0])
    .join("|");
}

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/**
 * Which of a run's events a reader asked for: those of the listed namespaces (`""` the root
 * graph; a namespace as the event names it, `agent:<task id>|tools:<task id>`, or by its nodes
 * alone, `agent|tools`; each without the subgraphs below it) and of the listed stream modes. The
 * control events always pass. Undefined when the reader asked for everything.
 */
export function eventFilter(query: {
  namespace?: string | string[] | undefined;
  stream_mode?: string | string[] | undefined;
}): ((event: RunEvent) => boolean) | undefined {
  const namespaces = asList(query.namespace);
  const modes = asList(query.stream_mode);
  const unknown = modes?.find((mode) => !(STREAM_MODES as readonly string[]).includes(mode));
  if (unknown !== undefined) {
    throw unprocessable(
      `stream_mode: "${unknown}" is not a stream mode this server sends; ` +
        `use ${STREAM_MODES.join(", ")}`,
    );
  }
  if (!namespaces && !modes) return undefined;
  const wanted = namespaces && new Set(namespaces);
  const events = modes && new Set(modes.map((mode) => EVENT_OF[mode as StreamMode] ?? mode));
  return (event) => {
    if (CONTROL.has(event.event)) return true;
    const bar = event.event.indexOf("|");
    const name = bar < 0 ? event.event : event.event.slice(0, bar);
    const namespace = bar < 0 ? "" : event.event.slice(bar + 1);
    if (events && !events.has(name)) return false;
    return !wanted || wanted.has(namespace) || wanted.has(bare(namespace));
  };
}

/** True when a stream filtered this way needs the run's subgraph events. */
export function wantsSubgraphs(namespace: string | string[] | undefined): boolean {
  return (asList(namespace) ?? []).some((name) => name !== "");
}
