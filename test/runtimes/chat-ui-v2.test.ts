/**
 * The protocol v2 chat page in a real browser: `@langchain/react`'s `useStream` (examples/
 * chat-ui-v2, bundled with esbuild) against `createAgentServer` from the built package over the
 * emulator, driven in headless Chromium (launched as chromium.ts does). A user sends a first
 * message on a thread the hook mints, watches the answer arrive token by token after a tool call,
 * approves an email at an interrupt, edits the first message into a fork, reloads while an answer
 * is on its way (the page resumes the event stream from the last `seq` it saw), and sends two
 * messages while an answer is on its way (they wait in the submission queue, then go in order).
 * The same page served from another loopback origin reaches the server through its `cors` option
 * (Chromium runs with the same-origin policy on: chromium.ts drops `--disable-web-security`).
 * Every wait is bounded.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { StudioClient } from "langchain-studio";
import { type EmulatorHandle, startEmulator } from "langchain-studio/emulator";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { createAgentServer, toNodeListener } from "langchain-studio/server";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatAgent } from "../../examples/chat-ui/graph";
import { serveChat } from "../../examples/chat-ui/serve";
import { CHROMIUM_PLATFORM, chromiumShipped, launch, shutDown } from "./chromium";

const STEP_MS = 20_000;
const PAGE = join(import.meta.dirname, "../../examples/chat-ui-v2/page.tsx");

/** The page's DOM as the functions run in it use it (the tests are type-checked without the DOM). */
interface PageDom {
  sessionStorage: { getItem(key: string): string | null };
  document: {
    querySelector(selector: string): { textContent: string | null } | null;
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  };
}

/** One request the server answered: what the page asked for. */
interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

let emulator: EmulatorHandle | undefined;
let client: StudioClient | undefined;
let server: Server | undefined;
const otherServers: Server[] = [];
let url = "";
let browser: Browser | undefined;
const seen: Seen[] = [];
/** The `seq` of each event the server sent on a stream opened with `since`. */
const resumedStreams: { since: number; seqs: number[] }[] = [];
const output: string[] = [];

async function texts(page: Page): Promise<string[]> {
  return page.$$eval("#messages li .text", (nodes) => nodes.map((n) => n.textContent ?? ""));
}

/** Waits until the page shows a message containing `text` and is not loading. */
async function waitForMessage(page: Page, text: string): Promise<void> {
  await page
    .waitForFunction(
      (wanted) => {
        const d = (globalThis as unknown as PageDom).document;
        return (
          d.querySelector("#status")?.textContent === "ready" &&
          Array.from(d.querySelectorAll("#messages li .text")).some((n) =>
            (n.textContent ?? "").includes(wanted),
          )
        );
      },
      { timeout: STEP_MS },
      text,
    )
    .catch(async (error: unknown) => {
      const shown = await texts(page).catch(() => []);
      throw new Error(
        `"${text}" not shown: ${String(error)}\nshown: ${JSON.stringify(shown)}\n${details()}`,
      );
    });
}

async function say(page: Page, text: string): Promise<void> {
  await page.type("#draft", text);
  await page.click("#send");
}

function details(): string {
  return [
    "--- requests ---",
    ...seen.map((s) => `${s.method} ${s.path} ${s.body ? JSON.stringify(s.body) : ""}`),
    "--- page output ---",
    ...output,
  ].join("\n");
}

/** Keeps what each request asked for (a copy of the body; the handler reads the original). */
async function record(request: Request): Promise<void> {
  const path = new URL(request.url).pathname;
  let body: Record<string, unknown> | undefined;
  if (request.method === "POST") {
    try {
      body = (await request.clone().json()) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
  }
  seen.push({ method: request.method, path, body });
}

/** Reads the `seq` of every event of an SSE body into `seqs` (until the stream ends). */
async function readSeqs(body: ReadableStream<Uint8Array>, seqs: number[]): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const bytes of body) {
      buffer += decoder.decode(bytes, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        const seq = /^data: .*"seq":(\d+)/.exec(line)?.[1];
        if (seq !== undefined) seqs.push(Number(seq));
      }
    }
  } catch {
    // The page went away: what was read is kept.
  }
}

/** The handler's response, with the events of a stream opened with `since` read on the side. */
function watchResumed(request: Seen, response: Response): Response {
  const since = request.body?.since;
  if (!request.path.endsWith("/stream/events") || typeof since !== "number" || !response.body) {
    return response;
  }
  const [toPage, toTest] = response.body.tee();
  const watched = { since, seqs: [] as number[] };
  resumedStreams.push(watched);
  void readSeqs(toTest, watched.seqs);
  return new Response(toPage, response);
}

if (chromiumShipped()) {
  describe("protocol v2 chat UI (@langchain/react useStream) in headless Chromium", () => {
    beforeAll(async () => {
      emulator = await startEmulator({ port: 0 });
      client = new StudioClient({
        baseUrl: emulator.baseUrl,
        proxyUrl: emulator.proxyUrl,
        apiKey: emulator.apiKey,
      });
      const handler = createAgentServer({
        graphs: { agent: chatAgent(client, "studio/echo-small") },
        checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server-v2" }),
        client,
        basePath: "/api",
      });
      ({ url, server } = await serveChat(
        async (request) => {
          await record(request);
          const asked = seen.at(-1)!;
          return watchResumed(asked, await handler(request));
        },
        0,
        PAGE,
      ));
      browser = await launch(STEP_MS * 3);
    }, 120_000);

    afterAll(async () => {
      if (browser) await shutDown(browser);
      for (const open of [server, ...otherServers]) {
        open?.closeAllConnections();
        open?.close();
      }
      await emulator?.close();
    });

    it("streams a tool call, answers an interrupt, forks, resumes from since, and queues", async () => {
      const page = await browser!.newPage();
      page.on("console", (m) => output.push(`console.${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => output.push(`page error: ${String(e)}`));
      await page.goto(url);
      await page.waitForSelector("#draft", { timeout: STEP_MS });

      // The first message: the hook mints the thread id, and run.start creates the thread.
      await say(page, 'get_weather {"city": "Oslo"}');
      await waitForMessage(page, "Tool said: Oslo: sunny");
      const threadId = new URL(page.url()).searchParams.get("thread");
      expect(threadId, details()).toMatch(/^[0-9a-f-]{36}$/);
      const start = seen.find((s) => s.path === `/api/threads/${threadId}/commands`);
      expect(start?.body?.method, details()).toBe("run.start");
      expect(seen.filter((s) => s.method === "POST" && s.path === "/api/threads")).toEqual([]);
      expect(
        await page.$$eval("#tools li", (n) => n.map((e) => e.getAttribute("data-name"))),
      ).toContain("get_weather");
      // The answer came as token deltas ("Tool said: Oslo: sunny, 24°C" is several tokens).
      expect(Number(await page.$eval("#deltas", (n) => n.textContent)), details()).toBeGreaterThan(
        3,
      );

      // An interrupt: the tool asks before it sends; Approve answers it (input.respond).
      await say(page, 'send_email {"to": "ada@example.com"}');
      await page.waitForSelector("#approve", { timeout: STEP_MS });
      expect(await page.$eval("#interrupt pre", (n) => n.textContent), details()).toContain(
        "ada@example.com",
      );
      await page.click("#approve");
      await waitForMessage(page, "Email sent to ada@example.com.");
      expect(await page.$("#interrupt")).toBeNull();

      // A fork: edit the first message; the new branch has neither Oslo nor the email.
      await page.click("#messages li.human .edit");
      const input = await page.waitForSelector(".edit-input", { timeout: STEP_MS });
      await input!.click({ count: 3 });
      await input!.type('get_weather {"city": "Rome"}');
      await page.click(".save-edit");
      await waitForMessage(page, "Tool said: Rome: sunny");
      await page
        .waitForFunction(
          () =>
            !Array.from(
              (globalThis as unknown as PageDom).document.querySelectorAll("#messages li .text"),
            ).some((n) => (n.textContent ?? "").includes("Oslo")),
          { timeout: STEP_MS },
        )
        .catch(() => undefined);
      const fork = (await texts(page)).join("\n");
      expect(fork, details()).not.toContain("Email sent");
      expect(fork).not.toContain("Oslo");

      // A reload while the model answers: the page resumes the stream after the last seq it saw.
      emulator!.setFaults({ latencyMs: 1_500, match: "chat/completions" });
      try {
        await say(page, "still there?");
        await page.waitForFunction(
          () =>
            (globalThis as unknown as PageDom).document.querySelector("#status")?.textContent ===
            "thinking",
          { timeout: STEP_MS },
        );
        const kept = await page.evaluate(
          (id) => (globalThis as unknown as PageDom).sessionStorage.getItem(`v2:seq:${id}`),
          threadId,
        );
        expect(kept, details()).not.toBeNull();
        const before = seen.length;
        await page.reload();
        await waitForMessage(page, "You said: still there?");
        const resumed = seen
          .slice(before)
          .filter((s) => s.path === `/api/threads/${threadId}/stream/events`);
        expect(resumed.length, details()).toBeGreaterThan(0);
        for (const stream of resumed) {
          expect(stream.body?.since, details()).toBeGreaterThanOrEqual(Number(kept));
        }
        expect((await texts(page)).filter((t) => t === "still there?")).toHaveLength(1);
        // The server sent only events after `since`, and the run's later events did come.
        const sent = resumedStreams.flatMap((s) => s.seqs.map((seq) => ({ seq, since: s.since })));
        expect(sent.length, details()).toBeGreaterThan(0);
        expect(sent.filter(({ seq, since }) => seq <= since)).toEqual([]);

        // Two messages sent during an answer wait in the queue, then go in order.
        await say(page, "first");
        await page.waitForFunction(
          () =>
            (globalThis as unknown as PageDom).document.querySelector("#status")?.textContent ===
            "thinking",
          { timeout: STEP_MS },
        );
        await say(page, "second");
        await say(page, "third");
        await page.waitForFunction(
          () =>
            (globalThis as unknown as PageDom).document.querySelectorAll("#queue li").length === 2,
          { timeout: STEP_MS },
        );
        await waitForMessage(page, "You said: third");
        await page.waitForFunction(
          () =>
            (globalThis as unknown as PageDom).document.querySelectorAll("#queue li").length === 0,
          { timeout: STEP_MS },
        );
      } finally {
        emulator!.setFaults();
      }
      const tail = (await texts(page)).slice(-6);
      expect(tail, details()).toEqual([
        "first",
        "You said: first",
        "second",
        "You said: second",
        "third",
        "You said: third",
      ]);
    }, 180_000);

    it("works from a page on another origin through the cors option", async () => {
      // The page's origin serves only the page; the API listens on another port of loopback.
      const page = await serveChat(async () => new Response(null, { status: 404 }), 0, PAGE);
      otherServers.push(page.server);
      const pageOrigin = new URL(page.url).origin;
      const handler = createAgentServer({
        graphs: { agent: chatAgent(client!, "studio/echo-small") },
        checkpointer: new StudioCheckpointSaver({ client: client!, datasetId: "chat-server-cors" }),
        client: client!,
        cors: { origins: [pageOrigin] },
      });
      const methods: string[] = [];
      const api = createServer((req, res) => {
        methods.push(`${req.method} ${req.url} from ${req.headers.origin ?? "-"}`);
        toNodeListener(handler)(req, res);
      });
      otherServers.push(api);
      await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
      const apiOrigin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      expect(apiOrigin).not.toBe(pageOrigin);

      const tab = await browser!.newPage();
      tab.on("console", (m) => output.push(`console.${m.type()}: ${m.text()}`));
      tab.on("pageerror", (e) => output.push(`page error: ${String(e)}`));
      await tab.goto(`${page.url}?api=${encodeURIComponent(apiOrigin)}`);
      await tab.waitForSelector("#draft", { timeout: STEP_MS });
      await say(tab, 'get_weather {"city": "Lima"}');
      await waitForMessage(tab, "Tool said: Lima: sunny");
      const crossOrigin = `\n${methods.join("\n")}`;
      expect(
        methods.some((m) => m.startsWith("OPTIONS ")),
        crossOrigin,
      ).toBe(true);
      expect(
        methods.every((m) => m.endsWith(`from ${pageOrigin}`)),
        crossOrigin,
      ).toBe(true);
      await tab.close();
    }, 120_000);
  });
} else {
  it.skip(`v2 chat UI in headless chromium: NOT RUN on ${process.platform}-${process.arch}; @sparticuz/chromium ships ${CHROMIUM_PLATFORM} only`, () => {});
}
