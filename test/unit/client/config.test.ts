import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { StudioClient, VERSION } from "../../../src/client";
import { StudioConfigError, StudioError, StudioValidationError } from "../../../src/errors";
import {
  CHAT,
  failure,
  field,
  intercept,
  json,
  KEY,
  MODEL,
  makeClient,
  PROXY,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";
import { useInstantRetries } from "./retry-clock";

useNock();

afterEach(() => {
  vi.unstubAllEnvs();
});

function clearEnv(): void {
  for (const name of ["STUDIO_API_KEY", "STUDIO_ORG_ID", "STUDIO_BASE_URL", "STUDIO_PROXY_URL"]) {
    vi.stubEnv(name, "");
  }
}

const chat = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

describe("configuration", () => {
  it("falls back to the environment", async () => {
    vi.stubEnv("STUDIO_API_KEY", "env-key-1234");
    vi.stubEnv("STUDIO_ORG_ID", "env-org");
    vi.stubEnv("STUDIO_BASE_URL", STUDIO);
    vi.stubEnv("STUDIO_PROXY_URL", `${PROXY}/`);
    const calls = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    await new StudioClient({ fetch: globalThis.fetch }).chatCompletion(chat);
    expect(calls[0]?.headers.authorization).toBe("env-key-1234");
    expect(calls[0]?.headers["x-org-id"]).toBe("env-org");
  });

  it("options win over the environment", async () => {
    vi.stubEnv("STUDIO_API_KEY", "env-key-1234");
    vi.stubEnv("STUDIO_BASE_URL", "http://wrong.test");
    const calls = intercept(STUDIO, "GET", "/v1/threads/t", json(200, THREAD));
    await makeClient().getThread("t");
    expect(calls[0]?.headers["x-service-key"]).toBe(KEY);
  });

  it("a missing key fails at the first call that needs it, naming option and variable", async () => {
    clearEnv();
    const client = makeClient({ apiKey: undefined }); // construction is fine
    const error = (await failure(client.getThread("t"))) as StudioConfigError;
    expect(error).toBeInstanceOf(StudioConfigError);
    expect(error.option).toBe("apiKey");
    expect(error.envVar).toBe("STUDIO_API_KEY");
    expect(error.message).toContain("STUDIO_API_KEY");
    expect(await failure(client.chatCompletion(chat))).toBeInstanceOf(StudioConfigError);
    expect(await failure(client.streamChatCompletion(chat))).toBeInstanceOf(StudioConfigError);
    // ...while listing public models needs none.
    intercept(STUDIO, "POST", "/svc.Studio/ListPublicModels", json(200, { models: [MODEL] }));
    expect((await client.listPublicModels()).models).toHaveLength(1);
  });

  it("a missing address fails at the first call that needs it", async () => {
    clearEnv();
    const client = new StudioClient({ apiKey: KEY, proxyUrl: PROXY, fetch: globalThis.fetch });
    const error = (await failure(client.listThreads())) as StudioConfigError;
    expect(error.option).toBe("baseUrl");
    expect(error.envVar).toBe("STUDIO_BASE_URL");
    const noProxy = new StudioClient({ apiKey: KEY, baseUrl: STUDIO, fetch: globalThis.fetch });
    const error2 = (await failure(
      noProxy.textCompletion({ model: "o/m", prompt: "p" }),
    )) as StudioConfigError;
    expect(error2.option).toBe("proxyUrl");
    expect(error2.envVar).toBe("STUDIO_PROXY_URL");
  });

  it.each([
    [{ timeout: 0 }, "timeout"],
    [{ timeout: -5 }, "timeout"],
    [{ timeout: "10" }, "timeout"],
    [{ timeout: 2 ** 31 }, "timeout"],
    [{ streamIdleTimeout: 0 }, "streamIdleTimeout"],
    [{ streamTimeout: 0 }, "streamTimeout"],
    [{ streamTimeout: "600000" }, "streamTimeout"],
    [{ streamTimeout: 2 ** 31 }, "streamTimeout"],
    [{ maxRetries: 1.5 }, "maxRetries"],
    [{ maxRetries: -1 }, "maxRetries"],
    [{ maxResponseBytes: 0 }, "maxResponseBytes"],
    [{ baseUrl: "ftp://files.test" }, "baseUrl"],
    [{ baseUrl: "not a url" }, "baseUrl"],
    [{ proxyUrl: "http://h.test/?q=1" }, "proxyUrl"],
    [{ proxyUrl: "http://user:pw@h.test" }, "proxyUrl"],
    [{ defaultHeaders: { a: 1 } }, "defaultHeaders"],
    [{ fetch: "fetch" }, "fetch"],
    [{ dispatcher: {} }, "dispatcher"],
    [{ connections: 0 }, "connections"],
    [{ connections: 2.5 }, "connections"],
  ])("rejects %j with a StudioValidationError naming %s", (options, field) => {
    let error: unknown;
    try {
      new StudioClient(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe(field);
  });

  it("a key or org id read with its line end (a key file, a heredoc) is sent without it", async () => {
    vi.stubEnv("STUDIO_API_KEY", `${KEY}\n`);
    const calls = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    await makeClient({ apiKey: undefined, orgId: " org-1\r\n" }).chatCompletion(chat);
    expect(calls[0]?.headers.authorization).toBe(KEY);
    expect(calls[0]?.headers["x-org-id"]).toBe("org-1");
  });

  it.each([
    [{ apiKey: `sk-abc\ndef-${KEY}` }, "apiKey"],
    [{ orgId: "org\u0000x" }, "orgId"],
    [{ defaultHeaders: { "x-gateway-token": "tok\r\nen-secret" } }, "defaultHeaders"],
  ])(
    "refuses a header value HTTP cannot carry at construction, without quoting it (%#)",
    (options, field) => {
      let error: unknown;
      try {
        makeClient(options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe(field);
      const shown = `${(error as Error).message} ${JSON.stringify(error)}`;
      expect(shown).not.toContain("def-");
      expect(shown).not.toContain("secret");
    },
  );

  it("streamTimeout: 10 minutes by default, `timeout` when that is longer, else as given", () => {
    expect(makeClient().toJSON().streamTimeout).toBe(600_000);
    expect(makeClient({ timeout: 900_000 }).toJSON().streamTimeout).toBe(900_000);
    expect(makeClient({ streamTimeout: 5_000 }).toJSON().streamTimeout).toBe(5_000);
  });

  it.each([
    ["https://proxy.test/v1", '"/v1"', "no version segment", "https://proxy.test"],
    ["https://proxy.test/v1/", '"/v1"', "no version segment", "https://proxy.test"],
    ["https://proxy.test/chat/completions", '"/chat/completions"', "appends", "https://proxy.test"],
    [
      "https://gw.test/team/v1/chat/completions",
      '"/v1/chat/completions"',
      "appends /chat/completions itself",
      "https://gw.test/team",
    ],
  ])("a proxyUrl copied with its path (%s) is refused: drop the path", (url, ends, why, use) => {
    const error = (() => {
      try {
        new StudioClient({ proxyUrl: url });
      } catch (e) {
        return e as StudioValidationError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StudioValidationError);
    expect(error!.field).toBe("proxyUrl");
    expect(error!.message).toContain(`ends in ${ends}: drop the path`);
    expect(error!.message).toContain(why);
    expect(error!.message).toContain(`use ${use}`);
  });

  it("a proxyUrl whose path only looks alike is kept", () => {
    for (const url of [
      "https://proxy.test/inference",
      "https://proxy.test/v1beta",
      "https://p.test/v10",
    ]) {
      expect(field(() => new StudioClient({ proxyUrl: url }))).toBeUndefined();
    }
  });

  it("drop the path says where the value came from", () => {
    vi.stubEnv("STUDIO_PROXY_URL", "http://127.0.0.1:8080/v1");
    expect(() => new StudioClient({})).toThrow(
      'Invalid proxyUrl: ends in "/v1": drop the path (the inference paths carry no version segment); use http://127.0.0.1:8080 (from STUDIO_PROXY_URL)',
    );
  });

  it("says when a bad value came from the environment", () => {
    vi.stubEnv("STUDIO_BASE_URL", "studio.example.com");
    expect(() => new StudioClient({})).toThrow(/baseUrl.*from STUDIO_BASE_URL/);
  });

  it("rejects bad per-call overrides before sending", async () => {
    const client = makeClient();
    expect(await failure(client.getThread("t", { timeout: -1 }))).toBeInstanceOf(
      StudioValidationError,
    );
    expect(await failure(client.getThread("t", { maxRetries: 0.5 }))).toBeInstanceOf(
      StudioValidationError,
    );
  });

  it("checks ids, models and required fields before sending", async () => {
    const client = makeClient();
    for (const work of [
      client.getThread(""),
      client.deleteMessage("t", ""),
      client.getAssistant(undefined as unknown as string),
      client.chatCompletion({ model: "no-owner", messages: [] }),
      client.textCompletion({ model: "o/m" } as never),
      client.listThreads({ order: "up" as never }),
      client.listDatasetThreadsMessages({ datasetId: "" }),
      client.createThread({ metadata: { n: 1n } } as never),
    ]) {
      expect(await failure(work)).toBeInstanceOf(StudioValidationError);
    }
  });

  it("the User-Agent version matches package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    expect(VERSION).toBe(pkg.version);
  });
});

describe("close", () => {
  const clock = useInstantRetries();
  it("is idempotent and later calls fail with a clear error", async () => {
    const client = makeClient();
    await client.close();
    await client.close();
    const error = await failure(client.getThread("t"));
    expect(error).toBeInstanceOf(StudioError);
    expect(error.message).toContain("closed");
    expect(await failure(client.streamChatCompletion(chat))).toBeInstanceOf(StudioError);
    expect(await failure(client.iterateThreads())).toBeInstanceOf(StudioError);
    expect(JSON.parse(JSON.stringify(client)).closed).toBe(true);
  });

  it("a close() during a retry's backoff ends the call instead of reconnecting", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/threads/t", () => [
      503,
      {},
      { "retry-after": "1" },
    ]);
    const client = makeClient();
    // The close comes while the client waits out Retry-After: 1 (on the retry clock).
    clock.onSleep = (ms) => {
      expect(ms).toBe(1000);
      return client.close();
    };
    const error = await failure(client.getThread("t"));
    expect(error.message).toContain("closed");
    expect(calls).toHaveLength(1);
  });

  it("an undici client that never made a call closes cleanly", async () => {
    const client = new StudioClient({ apiKey: KEY, baseUrl: STUDIO });
    await expect(client.close()).resolves.toBeUndefined();
  });
});
