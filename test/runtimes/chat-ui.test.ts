/**
 * The chat UI in a real browser: the example's `useStream` page (bundled with esbuild) served
 * with the built `langchain-studio/server` over the emulator, driven in headless Chromium from
 * `@sparticuz/chromium` (launched as chromium.ts does). A user sends a message that calls a tool,
 * approves an email at an interrupt, edits the first message into a branch and goes back,
 * reloads the page to find the thread again, and reloads while an answer is on its way (the page
 * joins the run again). Every wait is bounded.
 */
import type { Server } from "node:http";
import { StudioClient } from "langchain-studio";
import { type EmulatorHandle, startEmulator } from "langchain-studio/emulator";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { createAgentServer } from "langchain-studio/server";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatAgent } from "../../examples/chat-ui/graph";
import { serveChat } from "../../examples/chat-ui/serve";
import { CHROMIUM_PLATFORM, chromiumShipped, launch, shutDown } from "./chromium";

const STEP_MS = 20_000;

/** The page's DOM as the functions run in it use it (the tests are type-checked without the DOM). */
interface PageDom {
  sessionStorage: { getItem(key: string): string | null };
  document: {
    querySelector(selector: string): { textContent: string | null } | null;
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  };
}

let emulator: EmulatorHandle | undefined;
let server: Server | undefined;
let url = "";
let browser: Browser | undefined;
/**
 * While set, a run's POST response is held back after the run has started (`started` resolves):
 * the page reloads before it learns the run's id, as it can on a loaded machine.
 */
let holdRunResponse: { started: () => void; release: Promise<void> } | undefined;
const output: string[] = [];

async function texts(page: Page): Promise<string[]> {
  return page.$$eval("#messages li .text", (nodes) => nodes.map((n) => n.textContent ?? ""));
}

/** Waits until the page shows a message containing `text` (and is not loading). */
async function waitForMessage(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (wanted) =>
      (globalThis as unknown as PageDom).document.querySelector("#status")?.textContent ===
        "ready" &&
      Array.from(
        (globalThis as unknown as PageDom).document.querySelectorAll("#messages li .text"),
      ).some((n) => (n.textContent ?? "").includes(wanted)),
    { timeout: STEP_MS },
    text,
  );
}

async function say(page: Page, text: string): Promise<void> {
  await page.type("#draft", text);
  await page.click("#send");
}

function details(): string {
  return ["--- page output ---", ...output].join("\n");
}

if (chromiumShipped()) {
  describe("chat UI in headless Chromium", () => {
    beforeAll(async () => {
      emulator = await startEmulator({ port: 0 });
      const client = new StudioClient({
        baseUrl: emulator.baseUrl,
        proxyUrl: emulator.proxyUrl,
        apiKey: emulator.apiKey,
      });
      const handler = createAgentServer({
        graphs: { agent: chatAgent(client, "studio/echo-small") },
        checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
        client,
        basePath: "/api",
      });
      ({ url, server } = await serveChat(async (request) => {
        const response = await handler(request);
        const hold = holdRunResponse;
        if (hold && request.method === "POST" && request.url.endsWith("/runs/stream")) {
          hold.started();
          await hold.release;
        }
        return response;
      }));
      browser = await launch(STEP_MS * 3);
    }, 120_000);

    afterAll(async () => {
      if (browser) await shutDown(browser);
      server?.closeAllConnections();
      server?.close();
      await emulator?.close();
    });

    it("submits, resumes an interrupt, edits into a branch and back, and restores on reload", async () => {
      const page = await browser!.newPage();
      page.on("console", (m) => output.push(`console.${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => output.push(`page error: ${String(e)}`));
      await page.goto(url);
      await page.waitForSelector("#draft", { timeout: STEP_MS });

      await say(page, 'get_weather {"city": "Oslo"}');
      await waitForMessage(page, "Tool said: Oslo: sunny");
      expect(new URL(page.url()).searchParams.get("thread"), details()).toBeTruthy();

      await say(page, 'send_email {"to": "ada@example.com"}');
      await page.waitForSelector("#approve", { timeout: STEP_MS });
      expect(await page.$eval("#interrupt pre", (n) => n.textContent), details()).toContain(
        "ada@example.com",
      );
      await page.click("#approve");
      await waitForMessage(page, "Email sent to ada@example.com.");
      expect(await page.$("#interrupt")).toBeNull();

      // Edit the first message: a new branch without the email exchange.
      await page.click("#messages li.human .edit");
      const input = await page.waitForSelector(".edit-input", { timeout: STEP_MS });
      await input!.click({ count: 3 });
      await input!.type('get_weather {"city": "Rome"}');
      await page.click(".save-edit");
      await waitForMessage(page, "Tool said: Rome: sunny");
      const branch = await texts(page);
      expect(branch.join("\n"), details()).not.toContain("Email sent");
      expect(branch.join("\n")).not.toContain("Oslo");

      // Back to the first branch.
      await (await page.waitForSelector(".prev-branch", { timeout: STEP_MS }))!.click();
      await waitForMessage(page, "Email sent to ada@example.com.");

      // Reload: the thread comes back from the server, at its newest checkpoint (the edit).
      const threadId = new URL(page.url()).searchParams.get("thread");
      await page.reload();
      await page.waitForFunction(
        () =>
          (globalThis as unknown as PageDom).document.querySelectorAll("#messages li").length > 0,
        {
          timeout: STEP_MS,
        },
      );
      await waitForMessage(page, "Tool said: Rome: sunny");
      expect(new URL(page.url()).searchParams.get("thread")).toBe(threadId);
      expect((await texts(page)).at(0), details()).toBe('get_weather {"city": "Rome"}');

      // A reload while the model is answering: the page joins the run again and sees the answer.
      emulator!.setFaults({ latencyMs: 1_500, match: "chat/completions" });
      try {
        await say(page, "still there?");
        // The page knows the run (its id is kept for the reload): `reconnectOnMount` joins it.
        await page.waitForFunction(
          (id) =>
            (globalThis as unknown as PageDom).sessionStorage.getItem(`lg:stream:${id}`) !== null,
          { timeout: STEP_MS },
          threadId,
        );
        await page.reload();
        await waitForMessage(page, "You said: still there?");

        // The page reloads before the run's id reached it (the POST's response held back): the
        // run goes on at the server, and the page finds it and joins it.
        let release = () => {};
        const started = new Promise<void>((resolve) => {
          holdRunResponse = {
            started: resolve,
            release: new Promise<void>((done) => {
              release = done;
            }),
          };
        });
        await say(page, "and now?");
        await Promise.race([
          started,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error("the run did not start")), STEP_MS),
          ),
        ]);
        await page.reload();
        holdRunResponse = undefined;
        release();
        await waitForMessage(page, "You said: and now?");
      } finally {
        holdRunResponse = undefined;
        emulator!.setFaults();
      }
    }, 150_000);
  });
} else {
  it.skip(`chat UI in headless chromium: NOT RUN on ${process.platform}-${process.arch}; @sparticuz/chromium ships ${CHROMIUM_PLATFORM} only`, () => {});
}
