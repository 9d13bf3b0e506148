import { describe, expect, it } from "vitest";
import { runConfig } from "../../../src/server/execute";

describe("runConfig", () => {
  it("keeps the caller's settings and checkpoint, but the server decides thread, run and user", () => {
    const config = runConfig(
      "t1",
      "r1",
      {
        assistant_id: "agent",
        config: {
          configurable: {
            model: "fast",
            thread_id: "someone-elses",
            __pregel_scratchpad: {},
            langgraph_auth_user_id: "mallory",
            assistant_id: "admin",
          },
          tags: ["x"],
          recursion_limit: 5,
        },
        checkpoint: { checkpoint_id: "c1", thread_id: "other", checkpoint_ns: "" },
        metadata: { source: "ui", langgraph_auth_user_id: "mallory", assistant_id: "admin" },
      },
      "ada",
    ) as { configurable: Record<string, unknown>; metadata: Record<string, unknown> };
    expect(config.configurable).toEqual({
      model: "fast",
      checkpoint_id: "c1",
      checkpoint_ns: "",
      thread_id: "t1",
      run_id: "r1",
      graph_id: "agent",
      langgraph_auth_user_id: "ada",
    });
    expect(config).toMatchObject({ tags: ["x"], recursionLimit: 5 });
    expect(config.metadata).toMatchObject({
      source: "ui",
      run_id: "r1",
      thread_id: "t1",
      graph_id: "agent",
      langgraph_auth_user_id: "ada",
    });
    expect("assistant_id" in config.metadata).toBe(false);
  });

  it("sets no user id without auth", () => {
    const config = runConfig("t1", "r1", { assistant_id: "agent" }) as {
      configurable: Record<string, unknown>;
    };
    expect("langgraph_auth_user_id" in config.configurable).toBe(false);
  });
});
