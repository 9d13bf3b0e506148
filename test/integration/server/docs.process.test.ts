/**
 * The chat-UI page's snippets, run as written against the emulator (STUDIO_* variables) with the
 * built package, and driven with the SDK's `Client`: the session-cookie helper and the Next.js
 * route that uses it (imported, its exported handlers called as Next calls them), and the Node
 * server with its JWT check (in a Node process of its own, test/helpers/node-entry.ts, reached
 * over loopback, its identity provider's key set served on loopback by the test). Each lets a
 * signed-in user reach their threads and refuses a forged credential with a 401; the Node server
 * answers a request it cannot parse with a 400 and goes on serving. Needs `npm run build` first
 * (npm test builds before vitest runs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { nodeEntry } from "../../helpers/node-entry";
import { openRaw } from "../../helpers/raw-http";
import { envWithoutService, REPO_ROOT } from "../../helpers/run-command";

const PAGE = join(REPO_ROOT, "docs", "chat-ui.md");
const emulator = useEmulator();
let dir = "";

/** The first ```ts block after the heading line `heading` (`## Node's \`http\``). */
async function snippet(heading: string): Promise<string> {
  const text = await readFile(PAGE, "utf8");
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`no "${heading}" in ${PAGE}`);
  const match = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (!match?.[1]) throw new Error(`no ts block under "${heading}"`);
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

/** The status of a thread search sent with `headers` and nothing else. */
type Search = (headers: Record<string, string>) => Promise<number>;

/** Every credential a caller could forge or misuse is a 401. */
async function expectRefused(search: Search, forged: Record<string, Record<string, string>>) {
  const statuses = Object.fromEntries(
    await Promise.all(
      Object.entries(forged).map(async ([name, headers]) => [name, await search(headers)]),
    ),
  );
  expect(statuses).toEqual(Object.fromEntries(Object.keys(forged).map((name) => [name, 401])));
}

beforeAll(async () => {
  // Inside the repository (not under node_modules), so "langchain-studio" resolves to the built
  // package by self-reference, as ES modules, and "jose" to the repository's.
  dir = await mkdtemp(join(REPO_ROOT, ".chat-ui-docs-"));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("docs/chat-ui.md: the session cookie and the Next.js route", () => {
  it("serves the signed-in user's threads and refuses a forged or expired cookie and a forged header", async () => {
    // Where a Next app keeps them: the route imports ../../../lib/session.
    const routeDir = join(dir, "app", "api", "[..._path]");
    await mkdir(routeDir, { recursive: true });
    await mkdir(join(dir, "lib"));
    await writeFile(join(dir, "lib", "session.ts"), await snippet("### A signed session cookie"));
    await writeFile(join(routeDir, "route.ts"), await snippet("## Next.js (App Router)"));
    const saved = { ...process.env };
    const secret = "a test secret of at least thirty-two characters";
    Object.assign(process.env, studioEnv(), { SESSION_SECRET: secret });
    try {
      const session = (await import(join(dir, "lib", "session.ts"))) as {
        sessionCookie(userId: string, maxAge?: number): Promise<string>;
      };
      const route = (await import(join(routeDir, "route.ts"))) as Record<
        string,
        (request: Request) => Promise<Response>
      >;
      // What Next does: the exported function named by the method answers.
      const next = (request: Request) => {
        const handler = route[request.method];
        if (!handler) throw new Error(`no ${request.method} export`);
        return handler(request);
      };
      const clientWith = (headers: Record<string, string>) =>
        new Client({
          apiUrl: "http://localhost:3000/api",
          defaultHeaders: headers,
          callerOptions: {
            maxRetries: 0,
            fetch: (input: string | URL | Request, init?: RequestInit) =>
              next(new Request(input, init)),
          },
        });
      // The cookie as the browser sends it back: `session=<payload>.<signature>`.
      const cookie = async (userId: string, maxAge?: number) =>
        (await session.sessionCookie(userId, maxAge)).split(";")[0]!;

      await converse(clientWith({ cookie: await cookie("ada") }));
      const bob = clientWith({ cookie: await cookie("bob") });
      expect(await bob.threads.search({ metadata: { from: "docs" } })).toEqual([]);

      const [payload, signature] = (await cookie("ada")).slice("session=".length).split(".");
      const bobsPayload = (await cookie("bob")).slice("session=".length).split(".")[0];
      process.env.SESSION_SECRET = "another secret, also thirty-two characters long";
      const otherSecret = await cookie("ada");
      process.env.SESSION_SECRET = secret;
      await expectRefused(
        async (headers) => {
          const request = new Request("http://localhost:3000/api/threads/search", {
            method: "POST",
            headers,
            body: "{}",
          });
          return (await next(request)).status;
        },
        {
          "no credential": {},
          "a forged x-user-id header": { "x-user-id": "ada" },
          "an unsigned cookie": { cookie: `session=${payload}` },
          "another user's payload under ada's signature": {
            cookie: `session=${bobsPayload}.${signature}`,
          },
          "a cookie signed with another secret": { cookie: otherSecret },
          "an expired cookie": { cookie: await cookie("ada", -60) },
        },
      );
    } finally {
      process.env = saved;
    }
  });
});

describe("docs/chat-ui.md: the Node server with a bearer JWT", () => {
  const issuer = "https://id.example.test/";
  const audience = "chat-ui-docs";
  let keySet: Server | undefined;
  let child: ChildProcess | undefined;

  afterAll(async () => {
    child?.kill("SIGTERM");
    keySet?.closeAllConnections();
    await new Promise((resolve) => keySet?.close(resolve));
  });

  it("serves a valid token's user, refuses forged, expired and misdirected tokens and a forged header, and answers a bad Host with a 400", async () => {
    const signing = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(signing.publicKey)), kid: "docs-key", alg: "ES256" };
    keySet = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => keySet?.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(keySet.address() as AddressInfo).port}/jwks.json`;

    const sign = (claims: JWTPayload, key = signing.privateKey) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "docs-key" })
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(key);
    const valid = (sub: string) => sign({ sub, iss: issuer, aud: audience });

    const file = join(dir, "node-server.ts");
    await writeFile(file, await snippet("## Node's `http`"));
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    child = spawn(process.execPath, await nodeEntry(file), {
      cwd: REPO_ROOT,
      env: envWithoutService({
        ...studioEnv(),
        PORT: String(port),
        AUTH_JWKS_URL: jwksUrl,
        AUTH_ISSUER: issuer,
        AUTH_AUDIENCE: audience,
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const started = child;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no start line in 30 s:\n${output}`)),
        30_000,
      );
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        // Loopback, since no HOST was given.
        if (output.includes(`Agent Server on http://127.0.0.1:${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout?.on("data", read);
      started.stderr?.on("data", read);
      started.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    const clientWith = (token: string) =>
      new Client({
        apiUrl: url,
        defaultHeaders: { authorization: `Bearer ${token}` },
        callerOptions: { maxRetries: 0 },
      });

    // Users of their own: the emulator (one account) also holds the Next.js test's threads.
    await converse(clientWith(await valid("grace")));
    const heidi = clientWith(await valid("heidi"));
    expect(await heidi.threads.search({ metadata: { from: "docs" } })).toEqual([]);

    const other = await generateKeyPair("ES256");
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    await expectRefused(
      async (headers) =>
        (await fetch(`${url}/threads/search`, { method: "POST", headers, body: "{}" })).status,
      {
        "no credential": {},
        "a forged x-user-id header": { "x-user-id": "grace" },
        "an unsigned token": bearer(
          new UnsecuredJWT({ sub: "grace", iss: issuer, aud: audience })
            .setIssuedAt()
            .setExpirationTime("5m")
            .encode(),
        ),
        "a token signed with another key": bearer(
          await sign({ sub: "grace", iss: issuer, aud: audience }, other.privateKey),
        ),
        "an expired token": bearer(
          await new SignJWT({ sub: "grace", iss: issuer, aud: audience })
            .setProtectedHeader({ alg: "ES256", kid: "docs-key" })
            .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
            .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
            .sign(signing.privateKey),
        ),
        "a token for another audience": bearer(
          await sign({ sub: "grace", iss: issuer, aud: "another-app" }),
        ),
        "a token from another issuer": bearer(
          await sign({ sub: "grace", iss: "https://elsewhere.test/", aud: audience }),
        ),
      },
    );

    // A Host Node's parser accepts but a URL cannot hold: a 400, and the server lives on.
    const raw = await openRaw(url);
    await raw.write("GET /threads HTTP/1.1\r\nHost: bad host:1\r\n\r\n");
    const refused = await raw.response();
    raw.close();
    expect(refused.status).toBe(400);
    const after = await fetch(`${url}/threads/search`, {
      method: "POST",
      headers: bearer(await valid("grace")),
      body: JSON.stringify({ metadata: { from: "docs" } }),
    });
    expect(after.status).toBe(200);
    expect(await after.json()).toHaveLength(1);
    expect(started.exitCode).toBeNull();
  });
});
