/**
 * The emulator as a shared test server: a CLI emulator (a child process, as `npx studio-emulator`
 * runs) scripted, reset and faulted over plain HTTP, as a suite in any language drives it; scoped
 * scripts and faults keep concurrent tests on one emulator apart. Then the same through
 * `EmulatorHandle` (in process) and `connectEmulator` (the TypeScript client of the routes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import {
  CONTROL_PATHS,
  connectEmulator,
  createInProcessEmulator,
  SCOPE_HEADER,
} from "../../../src/emulator";
import { nodeEntry } from "../../helpers/node-entry";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const KEY = "control-test-key";
const MODEL = "studio/echo-small";

/** What the tests read of the emulator's answers. */
interface Reply {
  remaining?: number;
  requests?: { messages: { content: string }[] }[];
  error?: { message: string; code: string; param?: string };
  choices?: { message: { content: string } }[];
  [key: string]: unknown;
}

let child: ChildProcess;
let origin = "";
let baseUrl = "";
let proxyUrl = "";

beforeAll(async () => {
  child = spawn(
    process.execPath,
    await nodeEntry("src/emulator/cli.ts", ["--port", "0", "--api-key", KEY]),
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`CLI did not start: ${err}`)), 30_000);
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (/export STUDIO_API_KEY=.*\n/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`CLI exited (${code}): ${err}`)));
  });
  baseUrl = /export STUDIO_BASE_URL=(\S+)/.exec(out)![1]!;
  proxyUrl = /export STUDIO_PROXY_URL=(\S+)/.exec(out)![1]!;
  origin = new URL(baseUrl).origin;
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
});

/** A control call, as curl or any language's HTTP client makes it. */
async function control(
  path: string,
  body?: unknown,
  headers: Record<string, string> = { "x-service-key": KEY },
) {
  const response = await fetch(`${origin}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Reply };
}

async function chat(content: string, scope?: string) {
  const response = await fetch(`${proxyUrl}${PATHS.chatCompletions}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${KEY}`,
      ...(scope === undefined ? {} : { [SCOPE_HEADER]: scope }),
    },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }] }),
  });
  const body = (await response.json()) as Reply;
  return { status: response.status, text: body.choices?.[0]?.message?.content, body };
}

describe("a CLI emulator driven over HTTP", () => {
  it("script: set, answered in order, inspected, then used up; bad replies and keys refused", async () => {
    const set = await control(CONTROL_PATHS.script, {
      model: MODEL,
      replies: ["first", { text: "second" }],
    });
    expect(set).toEqual({
      status: 200,
      body: { model: MODEL, scope: null, remaining: 2, requests: [] },
    });
    expect((await chat("a")).text).toBe("first");
    expect((await chat("b")).text).toBe("second");
    const used = await chat("c");
    expect(used.status).toBe(400);
    expect(used.body.error?.code).toBe("script_exhausted");
    const state = await control(`${CONTROL_PATHS.script}?model=${encodeURIComponent(MODEL)}`);
    expect(state.body.remaining).toBe(0);
    expect(state.body.requests?.map((r) => r.messages[0]?.content)).toEqual(["a", "b", "c"]);

    const bad = await control(CONTROL_PATHS.script, { model: MODEL, replies: [{ toolcalls: [] }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain("replies[0].toolcalls is not a known field");
    const unknown = await control(CONTROL_PATHS.script, { model: "acme/none", replies: ["x"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain("no such model");
    expect((await control(CONTROL_PATHS.reset, {}, {})).status).toBe(401);
    expect((await control(CONTROL_PATHS.reset, {}, { "x-service-key": "wrong" })).status).toBe(401);
    // The inference room's header works too.
    expect(
      (await control(CONTROL_PATHS.reset, {}, { authorization: `Bearer ${KEY}` })).status,
    ).toBe(200);
  });

  it("reset: threads and scripts go; the emulator echoes again", async () => {
    const studio = { "content-type": "application/json", "x-service-key": KEY };
    await fetch(`${baseUrl}${PATHS.threads}`, { method: "POST", headers: studio, body: "{}" });
    await control(CONTROL_PATHS.script, { model: MODEL, replies: ["scripted"] });
    expect(await control(CONTROL_PATHS.reset, {})).toEqual({
      status: 200,
      body: { reset: "all", scope: null },
    });
    const threads = await fetch(`${baseUrl}${PATHS.threads}`, { headers: studio });
    expect(((await threads.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await chat("hi")).text).toBe("You said: hi");
  });

  it("faults: set over HTTP, never applied to the control routes, cleared with null", async () => {
    const set = await control(CONTROL_PATHS.faults, { faults: { rate503Before: 1 } });
    expect(set.body).toEqual({ faults: { rate503Before: 1 }, scope: null });
    expect((await chat("hi")).status).toBe(503);
    expect(
      (await control(CONTROL_PATHS.faults, { faults: "rate429=1,retryAfterSeconds=2" })).status,
    ).toBe(200);
    const limited = await fetch(`${proxyUrl}${PATHS.chatCompletions}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: KEY },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }] }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    const bad = await control(CONTROL_PATHS.faults, { faults: { rate42: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain('Unknown fault "rate42"');
    expect((await control(CONTROL_PATHS.faults, { faults: null })).status).toBe(200);
    expect((await chat("hi")).status).toBe(200);
  });

  it("scoped scripts: concurrent tests on one emulator each get their own replies, in order", async () => {
    const tests = Array.from({ length: 8 }, (_, i) => `test-${i}`);
    await Promise.all(
      tests.map((scope) =>
        control(
          CONTROL_PATHS.script,
          { model: MODEL, replies: [1, 2, 3].map((n) => `${scope} reply ${n}`) },
          { "x-service-key": KEY, [SCOPE_HEADER]: scope },
        ),
      ),
    );
    // An unscoped script beside them: scoped requests never take it, unscoped ones only it.
    await control(CONTROL_PATHS.script, { model: MODEL, replies: ["unscoped reply"] });
    const runs = await Promise.all([
      ...tests.map(async (scope) => {
        const got: (string | undefined)[] = [];
        for (let n = 0; n < 3; n++) got.push((await chat(`${scope} turn ${n}`, scope)).text);
        return got;
      }),
      chat("no scope").then((r) => [r.text]),
    ]);
    tests.forEach((scope, i) => {
      expect(runs[i]).toEqual([1, 2, 3].map((n) => `${scope} reply ${n}`));
    });
    expect(runs.at(-1)).toEqual(["unscoped reply"]);
    // A scope with no script of its own gets the echo, not another test's replies.
    expect((await chat("hello", "test-99")).text).toBe("You said: hello");
    // Each script recorded its own test's requests only.
    const state = await control(
      `${CONTROL_PATHS.script}?model=${encodeURIComponent(MODEL)}&scope=test-3`,
    );
    expect(state.body.requests?.map((r) => r.messages[0]?.content)).toEqual([
      "test-3 turn 0",
      "test-3 turn 1",
      "test-3 turn 2",
    ]);
    await control(CONTROL_PATHS.reset, {});
  });

  it("a scoped reset and scoped faults touch one test only", async () => {
    const as = (scope: string) => ({ "x-service-key": KEY, [SCOPE_HEADER]: scope });
    await control(CONTROL_PATHS.script, { model: MODEL, replies: ["a1", "a2"] }, as("a"));
    await control(CONTROL_PATHS.script, { model: MODEL, replies: ["b1", "b2"], scope: "b" });
    await control(CONTROL_PATHS.faults, { faults: { rate500Before: 1 } }, as("a"));
    expect((await chat("x", "a")).status).toBe(500);
    expect((await chat("x", "b")).text).toBe("b1");
    expect((await chat("x")).status).toBe(200);
    expect(await control(CONTROL_PATHS.reset, {}, as("a"))).toEqual({
      status: 200,
      body: { reset: "scope", scope: "a" },
    });
    // a's faults and script are gone; b's script goes on where it was.
    expect((await chat("x", "a")).text).toBe("You said: x");
    expect((await chat("x", "b")).text).toBe("b2");
    const clash = await control(CONTROL_PATHS.reset, { scope: "b" }, as("a"));
    expect(clash.status).toBe(400);
    expect(clash.body.error?.code).toBe("invalid_scope");
    const blank = await chat("x", " ");
    expect(blank.status).toBe(400);
    expect(blank.body.error?.param).toBe(SCOPE_HEADER);
    await control(CONTROL_PATHS.reset, {});
  });

  it("connectEmulator: the same routes from TypeScript, with the package's client in the scope", async () => {
    const control = connectEmulator({ url: baseUrl, apiKey: KEY, scope: "ts-test" });
    expect(control.headers).toEqual({ [SCOPE_HEADER]: "ts-test" });
    await control.script(MODEL, ["from connectEmulator"]);
    const client = new StudioClient({
      baseUrl,
      proxyUrl,
      apiKey: KEY,
      defaultHeaders: control.headers,
    });
    const reply = await client.chatCompletion({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(reply.choices[0]?.message.content).toBe("from connectEmulator");
    expect((await control.getScript(MODEL)).remaining).toBe(0);
    await control.setFaults({ rate503Before: 1 });
    await expect(
      client.chatCompletion(
        { model: MODEL, messages: [{ role: "user", content: "hi" }] },
        { maxRetries: 0 },
      ),
    ).rejects.toMatchObject({ status: 503 });
    await control.reset();
    await expect(control.getScript(MODEL)).rejects.toThrow("(404): No script");
    await expect(connectEmulator({ url: proxyUrl, apiKey: "wrong" }).reset()).rejects.toThrow(
      "(401): Invalid API key",
    );
  });
});

describe("EmulatorHandle with scopes", () => {
  it("script, setFaults and reset take a scope; requests carry it in x-emulator-scope", async () => {
    const emulator = await createInProcessEmulator();
    try {
      const send = (scope?: string) =>
        emulator
          .fetch(`${emulator.proxyUrl}${PATHS.chatCompletions}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: emulator.apiKey,
              ...(scope === undefined ? {} : { [SCOPE_HEADER]: scope }),
            },
            body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
          })
          .then(async (r) => ({ status: r.status, body: (await r.json()) as Reply }));
      const script = emulator.script(MODEL, ["for one"], { scope: "one" });
      expect(script.scope).toBe("one");
      emulator.setFaults({ rate429: 1 }, { scope: "two" });
      expect((await send("two")).status).toBe(429);
      expect((await send()).body.choices?.[0]?.message.content).toBe("You said: hi");
      expect((await send("one")).body.choices?.[0]?.message.content).toBe("for one");
      await emulator.reset({ scope: "two" });
      expect((await send("two")).status).toBe(200);
      expect(() => emulator.script(MODEL, ["x"], { scope: "" })).toThrow(
        "emulator: scope must be a non-blank string",
      );
    } finally {
      await emulator.close();
    }
  });
});
