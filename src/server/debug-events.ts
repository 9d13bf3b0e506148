/**
 * `debug` events as the Agent Server sends them: a checkpoint's payload names its checkpoint and
 * its parent's (`checkpoint`, `parent_checkpoint`, as in `ThreadState`), spells `parentConfig`
 * as `parent_config`, and leaves out LangGraph's internal `__`-prefixed configurable keys and the
 * callbacks; a task whose `state` is a config carries it as `checkpoint`.
 */
import { checkpointOf } from "./state";

type Config = { configurable?: Record<string, unknown>; callbacks?: unknown } & Record<
  string,
  unknown
>;

function publicConfig(config: unknown): unknown {
  if (typeof config !== "object" || config === null) return config;
  const { callbacks: _callbacks, ...rest } = config as Config;
  const configurable = rest.configurable;
  if (typeof configurable !== "object" || configurable === null) return rest;
  return {
    ...rest,
    configurable: Object.fromEntries(
      Object.entries(configurable).filter(([key]) => !key.startsWith("__")),
    ),
  };
}

function taskWithCheckpoint(task: unknown): unknown {
  if (typeof task !== "object" || task === null) return task;
  const { state, ...rest } = task as { state?: Config } & Record<string, unknown>;
  const checkpoint = checkpointOf(state, false);
  return checkpoint ? { ...rest, checkpoint } : task;
}

/** A `debug` chunk in the API's shape (other chunk types pass through). */
export function debugEvent(chunk: unknown): unknown {
  if (typeof chunk !== "object" || chunk === null) return chunk;
  const { type, payload } = chunk as { type?: string; payload?: Record<string, unknown> };
  if (!payload) return chunk;
  if (type === "checkpoint") {
    const { parentConfig, config, tasks, ...rest } = payload as {
      parentConfig?: Config;
      config?: Config;
      tasks?: unknown[];
    } & Record<string, unknown>;
    return {
      ...chunk,
      payload: {
        ...rest,
        config: publicConfig(config),
        checkpoint: checkpointOf(config),
        parent_checkpoint: checkpointOf(parentConfig),
        parent_config: publicConfig(parentConfig),
        tasks: (tasks ?? []).map(taskWithCheckpoint),
      },
    };
  }
  if (type === "task_result") return { ...chunk, payload: taskWithCheckpoint(payload) };
  return chunk;
}
