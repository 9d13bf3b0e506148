/**
 * `createAgentServer`'s options, checked by one schema at construction: each mistake a
 * `StudioValidationError` naming the option, with the exact text a user reads.
 */
import { AIMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { type AgentServerOptions, createAgentServer } from "../../../src/server";
import { redisCoordination } from "../../../src/server/redis";

const client = new StudioClient({ apiKey: "test-key", baseUrl: "http://studio.test" });

function graph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", () => ({ messages: [new AIMessage("hi")] }))
    .addEdge(START, "reply")
    .compile();
}

const agent = graph();
const base = { graphs: { agent }, checkpointer: new MemorySaver(), client };

/** What `createAgentServer` throws for `options`: its class, field and message. */
function refusal(options: unknown): { name: string; field: string; message: string } {
  try {
    createAgentServer(options as AgentServerOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    const { name, field, message } = error as StudioValidationError;
    return { name, field, message };
  }
  throw new Error("createAgentServer accepted the options");
}

describe("createAgentServer options", () => {
  it("accepts a graph, a createAgent-like holder, the defaults and the client options", () => {
    expect(typeof createAgentServer(base)).toBe("function");
    const held = { graph: graph() };
    const full = createAgentServer({
      graphs: { agent, held: held as never },
      checkpointer: new MemorySaver(),
      apiKey: "test-key",
      baseUrl: "http://studio.test",
      basePath: "/api/v1",
      auth: () => "ada",
      onError: () => {},
      maxBodyBytes: 1024,
      maxJsonDepth: 10,
      tenant: "app-a",
    });
    expect(typeof full).toBe("function");
  });

  it("refuses an unknown option, naming the close known one", () => {
    const { graphs: _graphs, ...rest } = base;
    expect(refusal({ ...rest, graph: { agent } })).toEqual({
      name: "StudioValidationError",
      field: "graph",
      message: 'Invalid graph: is not a createAgentServer option; did you mean "graphs"?',
    });
    expect(refusal({ ...base, maxBodyByte: 10 }).message).toBe(
      'Invalid maxBodyByte: is not a createAgentServer option; did you mean "maxBodyBytes"?',
    );
    expect(refusal({ ...base, zzz: 1 }).message).toBe(
      "Invalid zzz: is not a createAgentServer option (known: graphs, checkpointer, store, auth, " +
        "basePath, onError, maxBodyBytes, maxJsonDepth, maxInputBytes, keyRing, tenant, cors, " +
        "storeNamespaces, assistants, heartbeatIntervalMs, coordination, client, and the client options)",
    );
  });

  it("takes heartbeatIntervalMs of 0 (none) or more, and refuses a negative or fractional one", () => {
    expect(() => createAgentServer({ ...base, heartbeatIntervalMs: 0 })).not.toThrow();
    expect(refusal({ ...base, heartbeatIntervalMs: -1 }).field).toBe("heartbeatIntervalMs");
    expect(refusal({ ...base, heartbeatIntervalMs: 1.5 }).message).toMatch(
      /^Invalid heartbeatIntervalMs: must be an integer of at least 0/,
    );
  });

  it("refuses options that are not an object", () => {
    expect(refusal(undefined).message).toBe(
      "Invalid options: must be an object such as { graphs, checkpointer }",
    );
  });

  it("names a missing or wrong checkpointer", () => {
    const { checkpointer: _c, ...rest } = base;
    const expected = {
      name: "StudioValidationError",
      field: "checkpointer",
      message:
        "Invalid checkpointer: must be a LangGraph checkpointer, e.g. new StudioCheckpointSaver(" +
        "{ client })",
    };
    expect(refusal(rest)).toEqual(expected);
    expect(refusal({ ...base, checkpointer: {} })).toEqual(expected);
  });

  it("refuses graphs given as an array, as an empty object, or holding something else", () => {
    expect(refusal({ ...base, graphs: [agent] })).toMatchObject({
      field: "graphs",
      message: "Invalid graphs: must be an object of graph id to graph, e.g. { agent: graph }",
    });
    expect(refusal({ ...base, graphs: {} })).toMatchObject({
      field: "graphs",
      message: "Invalid graphs: must name at least one graph, e.g. { agent: graph }",
    });
    expect(
      refusal({ ...base, graphs: { agent, chat: new StateGraph(MessagesAnnotation) } }),
    ).toMatchObject({
      field: "graphs.chat",
      message:
        "Invalid graphs.chat: is not a compiled LangGraph graph: pass StateGraph#compile() or " +
        "a createAgent result",
    });
  });

  it("refuses an auth or onError that is not a function", () => {
    expect(refusal({ ...base, auth: "x-user-id" })).toMatchObject({
      field: "auth",
      message: "Invalid auth: must be a function",
    });
    expect(refusal({ ...base, onError: console })).toMatchObject({
      field: "onError",
      message: "Invalid onError: must be a function",
    });
  });

  it("refuses a basePath without a leading slash or with a trailing one", () => {
    for (const basePath of ["api", "/api/", "/", "", "/a//b"]) {
      expect(refusal({ ...base, basePath })).toMatchObject({
        field: "basePath",
        message: 'Invalid basePath: must start with "/" and not end with "/", e.g. "/api"',
      });
    }
    expect(refusal({ ...base, basePath: 1 }).message).toBe(
      'Invalid basePath: must be a path such as "/api"',
    );
  });

  it("refuses a maxBodyBytes that is not a positive integer", () => {
    const cases: [unknown, string][] = [
      ["10mb", '"10mb"'],
      [Number.NaN, "NaN"],
      [0, "0"],
      [-1, "-1"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      [1.5, "1.5"],
    ];
    for (const [maxBodyBytes, got] of cases) {
      expect(refusal({ ...base, maxBodyBytes })).toEqual({
        name: "StudioValidationError",
        field: "maxBodyBytes",
        message: `Invalid maxBodyBytes: must be a positive integer (bytes) (got ${got})`,
      });
    }
  });

  it("refuses a maxJsonDepth below 2 and a tenant that is not a short name", () => {
    expect(refusal({ ...base, maxJsonDepth: 1 }).message).toBe(
      "Invalid maxJsonDepth: must be an integer of at least 2 (levels) (got 1)",
    );
    for (const tenant of ["", "a b", "x".repeat(65), "a\u0000b"]) {
      expect(refusal({ ...base, tenant }).message).toBe(
        'Invalid tenant: must be 1 to 64 letters, digits, ".", "_" or "-", e.g. "app-a"',
      );
    }
  });

  it("keeps checking the client's options by the client's schema", () => {
    const { client: _client, ...rest } = base;
    const { field, message } = refusal({ ...rest, apiKey: "k", timeout: -5 });
    expect(field).toBe("timeout");
    expect(message).toMatch(/^Invalid timeout: /);
  });
});

describe("createAgentServer coordination option", () => {
  it("takes a coordination backend, refuses anything else, and refuses it beside keyRing", () => {
    const coordination = redisCoordination({ url: "redis://127.0.0.1:1" });
    expect(typeof createAgentServer({ ...base, coordination }).drain).toBe("function");
    expect(refusal({ ...base, coordination: { url: "redis://x" } })).toMatchObject({
      field: "coordination",
      message: expect.stringContaining("redisCoordination({ url })"),
    });
    expect(refusal({ ...base, coordination, keyRing: () => undefined })).toMatchObject({
      field: "coordination",
      message: expect.stringContaining("Redis would keep the runs' events unencrypted"),
    });
  });

  it("checks redisCoordination's own options where they are given", () => {
    expect(() => redisCoordination({})).toThrow(/url: give either url or client/);
    expect(() => redisCoordination({ url: "http://x" })).toThrow(
      /Invalid url: must start with redis:\/\/ or rediss:\/\//,
    );
    expect(() => redisCoordination({ url: "redis://x", leaseMs: 5 })).toThrow(/Invalid leaseMs/);
    expect(() => redisCoordination({ url: "redis://x", leaseMS: 5 } as never)).toThrow(
      /leaseMS: is not a redisCoordination option; did you mean "leaseMs"/,
    );
  });
});
