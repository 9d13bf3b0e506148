/**
 * What `createAgentServer` refuses at its edges, over HTTP against the in-process emulator: a
 * faulty `auth` (told to `onError`, a plain 401 to the browser), blank user ids, health routes
 * that need no user, paths outside `basePath`, metadata keys the server relies on, JSON nested
 * too deep (refused before anything is created on the service), and tenants kept apart.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { type AgentServerOptions, createAgentServer } from "../../../src/server";
import { useInProcessEmulator } from "../../helpers/emulator";
import { echoGraph } from "./graphs";
import { type Handler, sdkClient } from "./harness";

const emulator = useInProcessEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function studio(): StudioClient {
  const { baseUrl, proxyUrl, apiKey, fetch } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey, fetch } as ConstructorParameters<
    typeof StudioClient
  >[0]);
}

function server(extra: Partial<AgentServerOptions> = {}): Handler {
  const client = studio();
  return createAgentServer({
    graphs: { echo: echoGraph(), other: echoGraph() },
    checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
    client,
    ...extra,
  });
}

/** A user named by the `X-User` header (a test's stand-in for a verified identity). */
const byHeader = (request: Request) => request.headers.get("X-User");

async function call(
  handler: Handler,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await handler(
    new Request(`http://agent.test${path}`, {
      method,
      headers: { "Content-Type": "application/json", ...headers },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

async function serviceThreads(): Promise<number> {
  let count = 0;
  for await (const _ of studio().iterateThreads()) count++;
  return count;
}

const UNAUTHORIZED = {
  error: "Unauthorized",
  message: "sign in: the server's auth hook did not name a user",
};

describe("createAgentServer: auth", () => {
  it("answers a plain 401 to a throwing auth and tells onError the error", async () => {
    const told: unknown[] = [];
    const expired = new Error("JWTExpired: the token has expired");
    const handler = server({
      auth: () => {
        throw expired;
      },
      onError: (error) => told.push(error),
    });
    expect(await call(handler, "POST", "/threads/search", {})).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
    expect(told).toEqual([expired]);
  });

  it("answers a plain 401 to an auth answering a number or an object, told to onError", async () => {
    for (const [user, got] of [
      [42, "a number"],
      [{ id: "ada" }, "an object"],
    ] as const) {
      const told: unknown[] = [];
      const handler = server({ auth: () => user as never, onError: (error) => told.push(error) });
      expect(await call(handler, "POST", "/threads/search", {})).toEqual({
        status: 401,
        body: UNAUTHORIZED,
      });
      expect(told).toHaveLength(1);
      expect(told[0]).toBeInstanceOf(StudioValidationError);
      expect((told[0] as Error).message).toBe(
        `Invalid auth: returned ${got}, not a user id (a string) or null; the request was ` +
          "refused (401)",
      );
    }
  });

  it("treats a blank or white-space user id as nobody: a 401, not a user", async () => {
    const told: unknown[] = [];
    for (const user of ["", "   ", "\t\n"]) {
      const handler = server({ auth: () => user, onError: (error) => told.push(error) });
      expect(await call(handler, "POST", "/threads", {})).toEqual({
        status: 401,
        body: UNAUTHORIZED,
      });
    }
    expect(await serviceThreads()).toBe(0);
    expect(told).toEqual([]);
  });

  it("answers GET /ok and GET /info with no user, also under basePath", async () => {
    let asked = 0;
    const auth = () => {
      asked++;
      return null;
    };
    const plain = server({ auth });
    expect(await call(plain, "GET", "/ok")).toEqual({ status: 200, body: { ok: true } });
    expect((await call(plain, "GET", "/info")).status).toBe(200);
    const mounted = server({ auth, basePath: "/api" });
    expect(await call(mounted, "GET", "/api/ok")).toEqual({ status: 200, body: { ok: true } });
    expect((await call(mounted, "GET", "/api/info")).status).toBe(200);
    expect(asked).toBe(0);
    // Every other route still asks.
    expect((await call(plain, "POST", "/threads/search", {})).status).toBe(401);
    expect(asked).toBe(1);
  });
});

describe("createAgentServer: basePath", () => {
  it("answers 404 to paths outside basePath", async () => {
    const handler = server({ basePath: "/api" });
    for (const path of ["/threads/search", "/apix/threads/search", "/ok"]) {
      expect(await call(handler, "POST", path, {})).toEqual({
        status: 404,
        body: {
          error: "Not Found",
          message: `no route matches POST ${path}: it is outside the server's basePath "/api"`,
        },
      });
    }
    expect((await call(handler, "POST", "/api/threads/search", {})).status).toBe(200);
  });

  it("hints at basePath when a route matches below an unknown prefix", async () => {
    const handler = server();
    expect(await call(handler, "POST", "/api/threads/search", {})).toEqual({
      status: 404,
      body: {
        error: "Not Found",
        message:
          'no route matches POST /api/threads/search; if the handler is mounted under "/api", ' +
          'pass basePath: "/api"',
      },
    });
  });
});

describe("createAgentServer: metadata the server relies on", () => {
  it("keeps the SDK's graph_id on create and refuses a PATCH that changes it", async () => {
    const handler = server();
    const client = sdkClient(handler);
    const thread = await client.threads.create({ graphId: "echo", metadata: { topic: "a" } });
    expect(thread.metadata).toMatchObject({ graph_id: "echo", topic: "a" });
    const path = `/threads/${thread.thread_id}`;
    expect(await call(handler, "PATCH", path, { metadata: { graph_id: "other" } })).toEqual({
      status: 422,
      body: {
        error: "Unprocessable Entity",
        message:
          "metadata.graph_id: is the server's (the graph that reads the thread's state) and " +
          "cannot be changed; leave it out",
      },
    });
    expect((await call(handler, "PATCH", path, { metadata: { assistant_id: "x" } })).body).toEqual({
      error: "Unprocessable Entity",
      message:
        "metadata.assistant_id: is the server's (the assistant that last ran on the thread) " +
        "and cannot be changed; leave it out",
    });
    // Repeating what the thread holds is no change.
    const same = await client.threads.update(thread.thread_id, {
      metadata: { graph_id: "echo", topic: "b" },
    });
    expect(same.metadata).toMatchObject({ graph_id: "echo", topic: "b" });
    expect((await client.threads.get(thread.thread_id)).metadata).toMatchObject({
      graph_id: "echo",
    });
  });

  it("refuses a create naming no graph of the server, and an owner not the caller's", async () => {
    const handler = server({ auth: byHeader });
    const ada = { "X-User": "ada" };
    expect(
      await call(handler, "POST", "/threads", { metadata: { graph_id: "nope" } }, ada),
    ).toEqual({
      status: 422,
      body: {
        error: "Unprocessable Entity",
        message:
          "metadata.graph_id: is the server's (the graph that reads the thread's state); name " +
          "one of its graphs (echo, other) or leave it out",
      },
    });
    expect(await call(handler, "POST", "/threads", { metadata: { owner: "bob" } }, ada)).toEqual({
      status: 422,
      body: {
        error: "Unprocessable Entity",
        message:
          "metadata.owner: is the server's (the user the thread belongs to) and cannot be " +
          "changed; leave it out",
      },
    });
    expect(await call(handler, "POST", "/threads", { graph_id: "nope" }, ada)).toEqual({
      status: 422,
      body: {
        error: "Unprocessable Entity",
        message: "graph_id: names no graph of this server; use one of echo, other",
      },
    });
    expect(await serviceThreads()).toBe(0);
    const created = await call(handler, "POST", "/threads", { metadata: { owner: "ada" } }, ada);
    expect(created.status).toBe(200);
    const id = (created.body as { thread_id: string }).thread_id;
    const patched = await call(
      handler,
      "PATCH",
      `/threads/${id}`,
      { metadata: { owner: "bob" } },
      ada,
    );
    expect(patched.status).toBe(422);
    expect((await call(handler, "GET", `/threads/${id}`, undefined, ada)).body).toMatchObject({
      metadata: { owner: "ada" },
    });
  });
});

describe("createAgentServer: JSON nesting", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  const tooDeep = (field: string, depth = 64) => ({
    status: 422,
    body: {
      error: "Unprocessable Entity",
      message:
        `${field}: nested more than ${depth} levels deep (the server's maxJsonDepth, counting ` +
        "the body as one); send flatter JSON",
    },
  });

  it("refuses 10,000 levels in a create's metadata before creating anything", async () => {
    const handler = server();
    const before = await serviceThreads();
    const body = `{"metadata":{"a":${deep(10_000)}}}`;
    expect(await call(handler, "POST", "/threads", body)).toEqual(tooDeep("metadata"));
    expect(await serviceThreads()).toBe(before);
  });

  it("refuses deep JSON in a search filter and in a run's input", async () => {
    const handler = server();
    const search = `{"limit":5,"metadata":{"a":${deep(10_000)}}}`;
    expect(await call(handler, "POST", "/threads/search", search)).toEqual(tooDeep("metadata"));
    const { thread_id } = await sdkClient(handler).threads.create();
    const run = `{"assistant_id":"echo","input":{"messages":${deep(10_000)}}}`;
    const path = `/threads/${thread_id}/runs/stream`;
    expect(await call(handler, "POST", path, run)).toEqual(tooDeep("input"));
    expect((await call(handler, "GET", `/threads/${thread_id}/runs`)).body).toEqual([]);
  });

  it("takes nesting up to maxJsonDepth, counting the body as one level", async () => {
    const handler = server({ maxJsonDepth: 4 });
    const ok = await call(handler, "POST", "/threads", { metadata: { a: { b: [1] } } });
    expect(ok.status).toBe(200);
    const over = await call(handler, "POST", "/threads", { metadata: { a: { b: [[1]] } } });
    expect(over).toEqual(tooDeep("metadata", 4));
    // Brackets inside strings are text, not nesting.
    const text = await call(handler, "POST", "/threads", { metadata: { a: 'q"[[[[[[{{\\' } });
    expect(text.status).toBe(200);
  });
});

describe("createAgentServer: tenant", () => {
  it("keeps two tenants' users apart on one account; without one, handlers share", async () => {
    const ada = { "X-User": "ada" };
    const appA = sdkClient(server({ auth: byHeader, tenant: "app-a" }), ada);
    const appB = sdkClient(server({ auth: byHeader, tenant: "app-b" }), ada);
    const shared1 = sdkClient(server({ auth: byHeader }), ada);
    const shared2 = sdkClient(server({ auth: byHeader }), ada);
    const inA = await appA.threads.create({ metadata: { app: "a" } });
    await expect(appB.threads.get(inA.thread_id)).rejects.toThrow(/HTTP 404/);
    await expect(shared1.threads.get(inA.thread_id)).rejects.toThrow(/HTTP 404/);
    expect(await appB.threads.search()).toEqual([]);
    expect((await appA.threads.search()).map((t) => t.thread_id)).toEqual([inA.thread_id]);
    // The default: handlers without a tenant on one account share their users' threads.
    const inShared = await shared1.threads.create();
    expect((await shared2.threads.get(inShared.thread_id)).thread_id).toBe(inShared.thread_id);
    expect((await appA.threads.search()).map((t) => t.thread_id)).toEqual([inA.thread_id]);
  });
});
