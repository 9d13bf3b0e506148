/**
 * The history and `loadDatasetConversations` take the client options instead of a `client`
 * (issue 14.13 and the StudioClientFields contract): each option reaches the client they build,
 * shown on the wire (the emulator's request log) where the option is visible there.
 */
import { HumanMessage } from "@langchain/core/messages";
import { Agent, type Dispatcher } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { CLIENT_OPTION_NAMES } from "../../../src/client/options";
import { loadDatasetConversations } from "../../../src/datasets";
import { StudioError, StudioTimeoutError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
let threadId: string;

function base() {
  return { baseUrl: emulator.handle.baseUrl, apiKey: emulator.handle.apiKey };
}

beforeEach(async () => {
  await emulator.handle.reset();
  const writer = new StudioChatMessageHistory({ ...base(), datasetId: "ds_opts" });
  await writer.addMessage(new HumanMessage("x".repeat(400)));
  threadId = writer.threadId!;
  emulator.handle.clearRequests();
});

afterEach(() => {
  emulator.handle.setFaults(undefined);
});

/** The option is checked by the client the history builds, before anything is sent. */
const refused = (fields: Record<string, unknown>, option: string) => {
  expect(() => new StudioChatMessageHistory({ ...base(), threadId, ...fields })).toThrow(
    new RegExp(option),
  );
};

const read = (fields: Record<string, unknown>) =>
  new StudioChatMessageHistory({ ...base(), threadId, ...fields }).getMessages();

const cases: Record<(typeof CLIENT_OPTION_NAMES)[number], () => Promise<void>> = {
  async apiKey() {
    await read({});
    expect(emulator.handle.requests[0]?.headers["x-service-key"]).toBe("[REDACTED]");
    await expect(read({ apiKey: "wrong-key-0123456789" })).rejects.toMatchObject({ status: 401 });
  },
  async orgId() {
    await read({ orgId: "org_42" });
    expect(emulator.handle.requests.map((r) => r.headers["x-org-id"])).toEqual(["org_42"]);
  },
  async serviceKeyHeader() {
    await read({ serviceKeyHeader: "X-Api-Key" }).catch(() => undefined);
    const sent = emulator.handle.requests[0]?.headers ?? {};
    expect([sent["x-api-key"] !== undefined, sent["x-service-key"]]).toEqual([true, undefined]);
    refused({ serviceKeyHeader: "not a header" }, "serviceKeyHeader");
  },
  async rpcPathPrefix() {
    // Thread calls have no remote-call path; the dataset export's call has.
    const pages = loadDatasetConversations({
      ...base(),
      datasetId: "ds_opts",
      rpcPathPrefix: "/api/",
    });
    await pages.next().catch(() => undefined);
    expect(emulator.handle.requests.map((r) => r.path)).toEqual([
      "/studio/api/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages",
    ]);
    refused({ rpcPathPrefix: "api" }, "rpcPathPrefix");
  },
  async baseUrl() {
    await read({});
    expect(emulator.handle.requests.map((r) => r.path)).toEqual([
      `/studio/v1/threads/${threadId}/messages`,
    ]);
  },
  async proxyUrl() {
    // Not used by thread calls, but accepted and checked like any client option.
    await read({ proxyUrl: emulator.handle.proxyUrl });
    refused({ proxyUrl: "not a url" }, "proxyUrl");
    expect(emulator.handle.requests).toHaveLength(1);
  },
  async timeout() {
    emulator.handle.setFaults({ latencyMs: 400, match: "/messages" });
    const error = await read({ timeout: 100, maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as StudioTimeoutError).timeoutMs).toBe(100);
  },
  async streamIdleTimeout() {
    await read({ streamIdleTimeout: 1_000 });
    refused({ streamIdleTimeout: -1 }, "streamIdleTimeout");
  },
  async streamTimeout() {
    await read({ streamTimeout: 1_000 });
    refused({ streamTimeout: -1 }, "streamTimeout");
  },
  async maxRetries() {
    emulator.handle.setFaults({ rate503Before: 1, match: "/messages" });
    await expect(read({ maxRetries: 2 })).rejects.toMatchObject({ status: 503 });
    expect(emulator.handle.requests).toHaveLength(3);
  },
  async defaultHeaders() {
    await read({ defaultHeaders: { "X-Trace": "history-1" } });
    expect(emulator.handle.requests[0]?.headers["x-trace"]).toBe("history-1");
    for await (const _ of loadDatasetConversations({
      ...base(),
      datasetId: "ds_opts",
      defaultHeaders: { "X-Trace": "dataset-1" },
    })) {
      // Reading is enough.
    }
    expect(emulator.handle.requests[1]?.headers["x-trace"]).toBe("dataset-1");
  },
  async connections() {
    await read({ connections: 1 });
    refused({ connections: 0 }, "connections");
  },
  async dispatcher() {
    let dispatched = 0;
    class Counting extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        dispatched += 1;
        return super.dispatch(options, handler);
      }
    }
    const agent = new Counting();
    await read({ dispatcher: agent });
    expect(dispatched).toBe(1);
    await agent.close();
  },
  async fetch() {
    const seen: string[] = [];
    await read({
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        seen.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });
    expect(seen).toEqual([
      `${emulator.handle.baseUrl}/v1/threads/${threadId}/messages?order=asc&limit=100`,
    ]);
  },
  async maxResponseBytes() {
    const error = await read({ maxResponseBytes: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(String(error)).toMatch(/maxResponseBytes|200/);
  },
};

describe("client options given to the history reach its client", () => {
  it("covers every client option", () => {
    expect(Object.keys(cases).sort()).toEqual([...CLIENT_OPTION_NAMES].sort());
  });
  it.each(Object.entries(cases))("%s", async (_name, check) => {
    await check();
  });
});
