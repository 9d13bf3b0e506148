/**
 * The chat-UI page's snippets, run as written against the emulator (STUDIO_* variables) with the
 * built package: the Next.js route module is imported and its exported handlers called as Next
 * calls them; the Node snippet is started with `tsx` and reached over loopback. Both are driven
 * with the SDK's `Client`. Needs `npm run build` first (npm test builds before vitest runs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { envWithoutService, REPO_ROOT } from "../../helpers/run-command";

const PAGE = join(REPO_ROOT, "docs", "chat-ui.md");
const emulator = useEmulator();
let dir = "";

/** The first ```ts block after the heading `## <title>`. */
async function snippet(title: string): Promise<string> {
  const text = await readFile(PAGE, "utf8");
  const at = text.indexOf(`\n## ${title}\n`);
  if (at < 0) throw new Error(`no "## ${title}" in ${PAGE}`);
  const match = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (!match?.[1]) throw new Error(`no ts block under "## ${title}"`);
  return match[1];
}

function studioEnv(): Record<string, string> {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return { STUDIO_API_KEY: apiKey, STUDIO_BASE_URL: baseUrl, STUDIO_PROXY_URL: proxyUrl };
}

/** A user's conversation: create, one message, the thread listed with its title. */
async function converse(client: Client): Promise<void> {
  const thread = await client.threads.create({ metadata: { from: "docs" } });
  let last: unknown;
  for await (const part of client.runs.stream(thread.thread_id, "agent", {
    input: { messages: [{ type: "human", content: "hello docs" }] },
    streamMode: "values",
  })) {
    if (part.event === "values") last = part.data;
  }
  const messages = (last as { messages: { content: unknown }[] }).messages;
  expect(messages.at(-1)?.content).toBe("You said: hello docs");
  const [listed] = await client.threads.search({ metadata: { from: "docs" } });
  expect(listed).toMatchObject({
    thread_id: thread.thread_id,
    title: "hello docs",
    status: "idle",
  });
}

beforeAll(async () => {
  // Inside the repository (not under node_modules), so "langchain-studio" resolves to the built
  // package by self-reference, as ES modules.
  dir = await mkdtemp(join(REPO_ROOT, ".chat-ui-docs-"));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("docs/chat-ui.md snippets", () => {
  it("the Next.js route handler serves useStream's calls", async () => {
    const file = join(dir, "route.ts");
    await writeFile(file, await snippet("Next.js (App Router)"));
    const saved = { ...process.env };
    Object.assign(process.env, studioEnv());
    try {
      const route = (await import(file)) as Record<string, (request: Request) => Promise<Response>>;
      const client = new Client({
        apiUrl: "http://localhost:3000/api",
        defaultHeaders: { "x-user-id": "ada" },
        callerOptions: {
          maxRetries: 0,
          // What Next does: the exported function named by the method answers.
          fetch: (input: string | URL | Request, init?: RequestInit) => {
            const request = new Request(input, init);
            const handler = route[request.method];
            if (!handler) throw new Error(`no ${request.method} export`);
            return handler(request);
          },
        },
      });
      await converse(client);
      const anonymous = await route.POST!(
        new Request("http://localhost:3000/api/threads/search", { method: "POST", body: "{}" }),
      );
      expect(anonymous.status).toBe(401);
    } finally {
      process.env = saved;
    }
  });

  it("the Node http snippet serves over loopback", async () => {
    const file = join(dir, "node-server.ts");
    await writeFile(file, await snippet("Node's `http`"));
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, ["--import", "tsx", file], {
        cwd: REPO_ROOT,
        env: envWithoutService({ ...studioEnv(), PORT: String(port) }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no start line in 30 s:\n${output}`)),
          30_000,
        );
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes(`Agent Server on http://localhost:${port}`)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child?.stdout?.on("data", read);
        child?.stderr?.on("data", read);
        child?.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
      });
      await converse(
        new Client({
          apiUrl: `http://127.0.0.1:${port}`,
          defaultHeaders: { "x-user-id": "ada" },
          callerOptions: { maxRetries: 0 },
        }),
      );
    } finally {
      child?.kill("SIGTERM");
    }
  });
});
