/**
 * Issue 28, the emulator's part: one emulator per data file (in this process and across
 * processes, with stale locks taken over), tool-call and completion ids unique across every
 * emulator of a process, and a request log bounded in bytes as well as in count.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/api-types";
import {
  createInProcessEmulator,
  EmulatorDataFileError,
  type EmulatorHandle,
  startEmulator,
} from "../../../src/emulator";
import { readDataFile } from "../../../src/emulator/persistence";
import { nodeEntry } from "../../helpers/node-entry";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const MODEL = "studio/echo-small";
const running: EmulatorHandle[] = [];
const children: ChildProcess[] = [];
let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "studio-isolation-"));
  file = join(dir, "data.jsonl");
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
  await Promise.all(children.splice(0).map(stop));
  await rm(dir, { recursive: true, force: true });
});

async function track(started: Promise<EmulatorHandle>): Promise<EmulatorHandle> {
  const handle = await started;
  running.push(handle);
  return handle;
}

async function createThread(handle: EmulatorHandle, title: string): Promise<string> {
  const r = await handle.fetch(`${handle.baseUrl}${PATHS.threads}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": handle.apiKey },
    body: JSON.stringify({ title }),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

/** The CLI on `file` in a child process, resolved once it listens (or rejected with stderr). */
async function cli(args: string[]): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    await nodeEntry("src/emulator/cli.ts", ["--port", "0", ...args]),
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (out.includes("Press Ctrl+C")) resolve({ child, stderr: () => err });
    });
    // "close", not "exit": stderr is read to its end only by then.
    child.once("close", (code) => reject(Object.assign(new Error(err), { code })));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

describe("a data file is locked by the emulator that opened it", () => {
  it("a second emulator in the same process gets EmulatorDataFileError; after close it opens", async () => {
    const first = await track(startEmulator({ dataFile: file }));
    const kept = await createThread(first, "confirmed");
    const second = startEmulator({ dataFile: file });
    await expect(second).rejects.toBeInstanceOf(EmulatorDataFileError);
    await expect(second).rejects.toThrow(
      `another emulator in this process (pid ${process.pid}) has had it open since`,
    );
    // An in-process emulator is refused the same way.
    await expect(createInProcessEmulator({ dataFile: file })).rejects.toBeInstanceOf(
      EmulatorDataFileError,
    );
    expect(existsSync(`${file}.lock`)).toBe(true);
    await first.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    // The confirmed write survived: nothing else wrote the file meanwhile.
    const reopened = await track(createInProcessEmulator({ dataFile: file }));
    const listed = await reopened.fetch(`${reopened.baseUrl}${PATHS.thread(kept)}`, {
      headers: { "x-service-key": reopened.apiKey },
    });
    expect(listed.status).toBe(200);
  });

  it("across processes: a CLI holding the file refuses this process, and this process refuses a CLI", async () => {
    const { child } = await cli(["--data-file", file]);
    const lock = JSON.parse(await readFile(`${file}.lock`, "utf8")) as { pid: number };
    expect(lock.pid).toBe(child.pid);
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(
      `another emulator (pid ${child.pid} on ${hostname()})`,
    );
    await stop(child);
    expect(existsSync(`${file}.lock`)).toBe(false);

    const mine = await track(startEmulator({ dataFile: file }));
    const refused = await cli(["--data-file", file]).then(
      () => undefined,
      (error: Error & { code: number }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.message).toContain(`another emulator (pid ${process.pid}`);
    await mine.close();
  }, 60_000);

  it("a stale lock (its process is gone) is taken over; another host's lock is respected", async () => {
    const gone = spawn(process.execPath, ["-e", "0"]);
    await new Promise((resolve) => gone.once("exit", resolve));
    const stale = {
      pid: gone.pid,
      hostname: hostname(),
      startedAt: "2026-01-01T00:00:00.000Z",
      token: "stale",
    };
    await writeFile(`${file}.lock`, JSON.stringify(stale));
    const taken = await track(startEmulator({ dataFile: file }));
    const lock = JSON.parse(await readFile(`${file}.lock`, "utf8")) as { pid: number };
    expect(lock.pid).toBe(process.pid);
    const id = await createThread(taken, "kept");
    await taken.close();

    await writeFile(`${file}.lock`, JSON.stringify({ ...stale, hostname: "another-host" }));
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(
      `another emulator (pid ${gone.pid} on another-host)`,
    );
    await writeFile(`${file}.lock`, "not a lock");
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(
      `its lock file ${file}.lock is not an emulator's lock`,
    );
    // Refusing left the data file and the foreign lock as they were.
    expect(await readFile(`${file}.lock`, "utf8")).toBe("not a lock");
    expect((await readDataFile(file))?.threads.map((t) => t.id)).toEqual([id]);
  });
});

describe("ids are unique across the emulators of a process", () => {
  it("two emulators with one seed never repeat a tool-call or completion id", async () => {
    const one = await track(createInProcessEmulator({ seed: 3 }));
    const two = await track(startEmulator({ seed: 3 }));
    const ids = async (handle: EmulatorHandle) => {
      const out: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await handle.fetch(`${handle.proxyUrl}${PATHS.chatCompletions}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: handle.apiKey },
          body: JSON.stringify({
            model: MODEL,
            tools: [{ type: "function", function: { name: "lookup" } }],
            messages: [{ role: "user", content: "use the lookup tool" }],
          }),
        });
        const body = (await r.json()) as {
          id: string;
          choices: { message: { tool_calls: { id: string }[] } }[];
        };
        out.push(body.id, ...body.choices[0]!.message.tool_calls.map((c) => c.id));
        const text = await handle.fetch(`${handle.proxyUrl}${PATHS.textCompletions}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: handle.apiKey },
          body: JSON.stringify({ model: MODEL, prompt: "hi" }),
        });
        out.push(((await text.json()) as { id: string }).id);
      }
      return out;
    };
    const fromOne = await ids(one);
    const fromTwo = await ids(two);
    expect(fromOne).toHaveLength(9);
    expect(new Set([...fromOne, ...fromTwo]).size).toBe(18);
    expect(fromOne[0]).toMatch(/^chatcmpl-[0-9a-z]{24}$/);
    expect(fromOne[1]).toMatch(/^call_\d+$/);
    expect(fromOne[2]).toMatch(/^cmpl-[0-9a-z]{24}$/);
  });
});

describe("the request log is bounded in bytes", () => {
  /** A chat request of about `bytes` bytes, refused for its size (over the model's window). */
  async function large(handle: EmulatorHandle, bytes: number, tag: string): Promise<number> {
    const r = await handle.fetch(`${handle.proxyUrl}${PATHS.chatCompletions}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: handle.apiKey },
      body: JSON.stringify({
        model: MODEL,
        metadata: { tag },
        messages: [{ role: "user", content: "x".repeat(bytes) }],
      }),
    });
    await r.text();
    return r.status;
  }
  const kept = (handle: EmulatorHandle) => handle.requests.reduce((sum, r) => sum + r.bodyBytes, 0);
  const tags = (handle: EmulatorHandle) =>
    handle.requests.map(
      (r) => (r.body as { metadata?: { tag: string } } | undefined)?.metadata?.tag,
    );

  it("refused 15 MiB requests: the default keeps at most 16 MiB of them, the newest whole", async () => {
    const handle = await track(createInProcessEmulator());
    for (let i = 0; i < 4; i++) {
      expect(await large(handle, 15 * 1024 * 1024, `big-${i}`)).toBe(400);
    }
    expect(handle.requests).toHaveLength(1);
    expect(tags(handle)).toEqual(["big-3"]);
    expect(kept(handle)).toBeGreaterThan(15 * 1024 * 1024);
    expect(kept(handle)).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  it("recordRequestBytes sets the bound; a body over it alone is logged without its body", async () => {
    const handle = await track(createInProcessEmulator({ recordRequestBytes: 4_000 }));
    for (let i = 0; i < 5; i++) await large(handle, 1_500, `mid-${i}`);
    expect(tags(handle)).toEqual(["mid-3", "mid-4"]);
    await large(handle, 10_000, "huge");
    const last = handle.requests.at(-1)!;
    expect(last).toMatchObject({ path: "/inference/chat/completions", bodyOmitted: true });
    expect(last.body).toBeUndefined();
    expect(last.bodyBytes).toBeGreaterThan(10_000);
    // The count bound still holds beside the byte bound.
    const few = await track(createInProcessEmulator({ recordRequests: 2 }));
    for (let i = 0; i < 4; i++) await large(few, 10, `s-${i}`);
    expect(tags(few)).toEqual(["s-2", "s-3"]);
    await expect(createInProcessEmulator({ recordRequestBytes: -1 })).rejects.toThrow(
      "recordRequestBytes must be a whole number of bytes >= 0 or Infinity (got -1)",
    );
  });
});
