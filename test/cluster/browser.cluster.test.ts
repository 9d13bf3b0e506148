/**
 * The chat pages in a real browser, against three instances coordinated on Redis behind the
 * round-robin proxy (#35): the legacy `useStream` page (examples/chat-ui) and the protocol v2
 * page (`@langchain/react`, examples/chat-ui-v2), bundled with esbuild and served by a page
 * origin that forwards `/api` to the proxy (page-origin.ts), driven in headless Chromium from
 * `@sparticuz/chromium` (launched as the runtimes tests do; `launch` unpacks it when the runtimes
 * project's global setup did not run). A user sends a message that calls a tool while the page's
 * requests go round the instances, reloads while a run waits at a gate and sees it end once
 * through another instance, and sends a second message that another instance runs; the legacy
 * page also reloads before it learnt a run's id and finds the run through another instance's run
 * list. Every wait is bounded.
 */
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundlePage } from "../../examples/chat-ui/bundle";
import { CHROMIUM_PLATFORM, chromiumShipped, launch, shutDown } from "../runtimes/chromium";
import { gateName, stepsReplies } from "./graphs";
import { useCluster } from "./harness";
import { type Forwarded, type PageOrigin, servePageOrigin } from "./page-origin";

const STEP_MS = 20_000;
const V2_PAGE = join(import.meta.dirname, "../../examples/chat-ui-v2/page.tsx");

/** The page's DOM as the functions run in it use it (the tests are type-checked without the DOM). */
interface PageDom {
  sessionStorage: { getItem(key: string): string | null };
  document: {
    querySelector(selector: string): { textContent: string | null } | null;
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  };
}

const cluster = useCluster({ redis: true });
let browser: Browser | undefined;
let legacy: PageOrigin | undefined;
let v2: PageOrigin | undefined;
const output: string[] = [];

function details(origin: PageOrigin | undefined): string {
  const requests = (origin?.forwarded ?? []).map(
    (r) => `${r.method} ${r.path} -> ${r.status} from instance ${r.instance ?? "-"}`,
  );
  return ["--- requests ---", ...requests, "--- page output ---", ...output].join("\n");
}

async function open(url: string): Promise<Page> {
  const page = await browser!.newPage();
  page.on("console", (m) => output.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => output.push(`page error: ${String(e)}`));
  await page.goto(url);
  await page.waitForSelector("#draft", { timeout: STEP_MS });
  return page;
}

async function texts(page: Page): Promise<string[]> {
  return page.$$eval("#messages li .text", (nodes) => nodes.map((n) => n.textContent ?? ""));
}

/** Waits until the page shows a message containing `text` and is not loading. */
async function waitForMessage(page: Page, origin: PageOrigin, text: string): Promise<void> {
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
        `"${text}" not shown: ${String(error)}\nshown: ${JSON.stringify(shown)}\n` +
          details(origin),
      );
    });
}

async function say(page: Page, text: string): Promise<void> {
  await page.type("#draft", text);
  await page.click("#send");
}

/** Waits until sessionStorage holds `key` (the page kept what a reload needs). */
async function waitForKept(page: Page, key: string): Promise<string> {
  const handle = await page.waitForFunction(
    (wanted) => (globalThis as unknown as PageDom).sessionStorage.getItem(wanted),
    { timeout: STEP_MS },
    key,
  );
  return String(await handle.jsonValue());
}

/** `origin.next(matches)`, bounded. */
async function nextRequest(
  origin: PageOrigin,
  what: string,
  matches: (request: Forwarded) => boolean,
): Promise<Forwarded> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the page did not send ${what}\n${details(origin)}`)),
      STEP_MS,
    );
  });
  try {
    return await Promise.race([origin.next(matches), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The instance a gate was reached from ("instance-2" → 2). */
function runner(gate: string): number {
  const by = cluster.get().gates.reachedBy(gate);
  expect(by).toHaveLength(1);
  return Number(by[0]?.replace("instance-", ""));
}

/** The messages a user sees after `turns` of the steps graph on top of `before`, each once. */
function conversation(before: string[], ...turns: string[]): string[] {
  return [...before, ...turns.flatMap((text) => [text, ...stepsReplies(text)])];
}

if (chromiumShipped()) {
  describe("the chat pages in Chromium, three instances on Redis behind a round-robin proxy", () => {
    beforeAll(async () => {
      const { proxy } = cluster.get();
      const [legacyBundle, v2Bundle] = await Promise.all([bundlePage(), bundlePage(V2_PAGE)]);
      legacy = await servePageOrigin(legacyBundle, proxy.url);
      v2 = await servePageOrigin(v2Bundle, proxy.url);
      browser = await launch(STEP_MS * 3);
    }, 120_000);

    afterAll(async () => {
      if (browser) await shutDown(browser);
      await Promise.all([legacy?.close(), v2?.close()]);
    });

    it("legacy useStream: a tool call round-robin, a reload joining elsewhere, a turn elsewhere", async () => {
      const origin = legacy!;
      const { gates, size } = cluster.get();
      const page = await open(origin.url);

      await say(page, 'get_weather {"city": "Oslo"}');
      await waitForMessage(page, origin, "Tool said: Oslo: sunny");
      const first = [
        'get_weather {"city": "Oslo"}',
        "", // the model's tool call: no text
        "Oslo: sunny",
        "Tool said: Oslo: sunny",
      ];
      expect(await texts(page), details(origin)).toEqual(first);
      const threadId = new URL(page.url()).searchParams.get("thread");
      expect(threadId, details(origin)).toBeTruthy();
      // The page's requests went round the three instances.
      const served = new Set(origin.forwarded.map((r) => r.instance));
      expect([...served].sort(), details(origin)).toEqual([0, 1, 2]);
      // The thread list (a search, through whichever instance) shows the thread.
      await page.waitForSelector(`#threads li[data-id="${threadId}"]`, { timeout: STEP_MS });

      // A run that waits at a gate between two checkpoints; the page reloads meanwhile, and its
      // join of the run goes to an instance that is not running it.
      const held = "wait for it";
      gates.hold(gateName(held, "two"));
      await page.goto(`${origin.url}?assistant=steps&thread=${threadId}`);
      await waitForMessage(page, origin, "Tool said: Oslo: sunny");
      await say(page, held);
      await gates.arrived(gateName(held, "two"));
      const running = runner(gateName(held, "two"));
      const elsewhere = (running + 1) % size;
      await waitForKept(page, `lg:stream:${threadId}`);
      const isJoin = (method: string, path: string) =>
        method === "GET" && new RegExp(`^/threads/${threadId}/runs/[^/]+/stream$`).test(path);
      origin.steer = (method, path) => (isJoin(method, path) ? elsewhere : undefined);
      const joined = nextRequest(origin, "a join of the run", (r) => isJoin(r.method, r.path));
      await page.reload();
      const join = await joined;
      expect(join.status, details(origin)).toBe(200);
      expect(join.instance).toBe(elsewhere);
      gates.open(gateName(held, "two"));
      await waitForMessage(page, origin, `three: ${held}`);
      expect(await texts(page), details(origin)).toEqual(conversation(first, held));

      // A second message in the same thread, run by the instance the run above was not on.
      const next = "and again";
      const another = (running + 2) % size;
      origin.steer = (method, path) =>
        method === "POST" && path === `/threads/${threadId}/runs/stream` ? another : undefined;
      await say(page, next);
      await waitForMessage(page, origin, `three: ${next}`);
      expect(gates.reachedBy(gateName(next, "one"))).toEqual([`instance-${another}`]);
      expect(await texts(page), details(origin)).toEqual(conversation(first, held, next));

      // A reload before the page learnt the run's id (the run's response held back): the page
      // asks an instance not running the run for the thread's running run, and another one
      // serves its join.
      const late = "no id yet";
      gates.hold(gateName(late, "two"));
      let release = () => {};
      const withheld = new Promise<void>((resolve) => {
        release = resolve;
      });
      const isStart = (method: string, path: string) =>
        method === "POST" && path === `/threads/${threadId}/runs/stream`;
      origin.delay = (method, path) => (isStart(method, path) ? withheld : undefined);
      const started = nextRequest(origin, "the run", (r) => isStart(r.method, r.path));
      await say(page, late);
      await started;
      await gates.arrived(gateName(late, "two"));
      const lateRunner = runner(gateName(late, "two"));
      const isList = (method: string, path: string) =>
        method === "GET" && path === `/threads/${threadId}/runs`;
      origin.steer = (method, path) => {
        if (isList(method, path)) return (lateRunner + 1) % size;
        return isJoin(method, path) ? (lateRunner + 2) % size : undefined;
      };
      const listed = nextRequest(origin, "the run list", (r) => isList(r.method, r.path));
      const lateJoin = nextRequest(origin, "a join of the run", (r) => isJoin(r.method, r.path));
      await page.reload();
      release();
      origin.delay = undefined;
      expect((await listed).status, details(origin)).toBe(200);
      expect((await lateJoin).status, details(origin)).toBe(200);
      gates.open(gateName(late, "two"));
      await waitForMessage(page, origin, `three: ${late}`);
      expect(await texts(page), details(origin)).toEqual(conversation(first, held, next, late));
      origin.steer = undefined;

      // A fresh load through the rotation reads the same thread and lists it.
      await page.reload();
      await waitForMessage(page, origin, `three: ${late}`);
      expect(await texts(page), details(origin)).toEqual(conversation(first, held, next, late));
      await page.waitForSelector(`#threads li[data-id="${threadId}"]`, { timeout: STEP_MS });
      await page.close();
    }, 120_000);

    it("v2 useStream: tokens and a tool call, a reload resuming from since, turns elsewhere, a queue", async () => {
      const origin = v2!;
      const { gates, size } = cluster.get();
      const page = await open(origin.url);

      await say(page, 'get_weather {"city": "Lima"}');
      await waitForMessage(page, origin, "Tool said: Lima: sunny");
      const first = await texts(page);
      expect(first, details(origin)).toEqual([
        'get_weather {"city": "Lima"}',
        "", // the model's tool call: no text
        "Lima: sunny",
        "Tool said: Lima: sunny",
      ]);
      expect(
        await page.$$eval("#tools li", (n) => n.map((e) => e.getAttribute("data-name"))),
      ).toContain("get_weather");
      // The answer came as token deltas ("Tool said: Lima: sunny" is several tokens).
      expect(
        Number(await page.$eval("#deltas", (n) => n.textContent)),
        details(origin),
      ).toBeGreaterThan(3);
      const threadId = new URL(page.url()).searchParams.get("thread");
      expect(threadId, details(origin)).toBeTruthy();
      // The page's requests went round the three instances.
      const served = new Set(origin.forwarded.map((r) => r.instance));
      expect([...served].sort(), details(origin)).toEqual([0, 1, 2]);

      // A reload while a run waits at a gate: the page resumes the thread's event stream after
      // the last seq it saw, through an instance that is not running the run. A thread of its own:
      // the hook reattaches only to a thread whose state has steps to run, and the server reads
      // a thread's state with the graph of its last finished run (its graph_id is saved when a
      // run ends), so a steps run on the agent's thread would look idle to it.
      await page.goto(`${origin.url}?assistant=steps`);
      await page.waitForSelector("#draft", { timeout: STEP_MS });
      const held = "hold on";
      gates.hold(gateName(held, "two"));
      await say(page, held);
      await gates.arrived(gateName(held, "two"));
      const steps = new URL(page.url()).searchParams.get("thread");
      expect(steps, details(origin)).toBeTruthy();
      expect(steps).not.toBe(threadId);
      const running = runner(gateName(held, "two"));
      const elsewhere = (running + 1) % size;
      const kept = Number(await waitForKept(page, `v2:seq:${steps}`));
      const isResume = (r: Forwarded) =>
        r.method === "POST" &&
        r.path === `/threads/${steps}/stream/events` &&
        typeof r.body?.since === "number";
      origin.steer = (method, path) =>
        method === "POST" && path === `/threads/${steps}/stream/events` ? elsewhere : undefined;
      const resumed = nextRequest(origin, "a resumed event stream", isResume);
      await page.reload();
      const resume = await resumed;
      expect(resume.status, details(origin)).toBe(200);
      expect(resume.body?.since, details(origin)).toBeGreaterThanOrEqual(kept);
      expect(resume.instance).toBe(elsewhere);
      gates.open(gateName(held, "two"));
      await waitForMessage(page, origin, `three: ${held}`);
      expect(await texts(page), details(origin)).toEqual(conversation([], held));
      // The instance not running the run sent the events after `since` only, each once.
      expect(resume.seqs.length, details(origin)).toBeGreaterThan(0);
      expect(resume.seqs.filter((seq) => seq <= Number(resume.body?.since))).toEqual([]);
      expect(new Set(resume.seqs).size).toBe(resume.seqs.length);

      // A second message in the same thread, run by the instance the run above was not on.
      const next = "once more";
      const another = (running + 2) % size;
      origin.steer = (method, path) =>
        method === "POST" && path === `/threads/${steps}/commands` ? another : undefined;
      await say(page, next);
      await waitForMessage(page, origin, `three: ${next}`);
      expect(gates.reachedBy(gateName(next, "one"))).toEqual([`instance-${another}`]);
      expect(await texts(page), details(origin)).toEqual(conversation([], held, next));
      origin.steer = undefined;

      // Two messages sent while a run waits at a gate wait in the page's queue, then go in order
      // through whichever instances the proxy picks.
      gates.hold(gateName("first", "two"));
      await say(page, "first");
      await gates.arrived(gateName("first", "two"));
      await say(page, "second");
      await say(page, "third");
      await page.waitForFunction(
        () =>
          (globalThis as unknown as PageDom).document.querySelectorAll("#queue li").length === 2,
        { timeout: STEP_MS },
      );
      gates.open(gateName("first", "two"));
      await waitForMessage(page, origin, "three: third");
      await page.waitForFunction(
        () =>
          (globalThis as unknown as PageDom).document.querySelectorAll("#queue li").length === 0,
        { timeout: STEP_MS },
      );
      expect(await texts(page), details(origin)).toEqual(
        conversation([], held, next, "first", "second", "third"),
      );
      await page.close();
    }, 120_000);
  });
} else {
  it.skip(`chat pages on three instances: NOT RUN on ${process.platform}-${process.arch}; @sparticuz/chromium ships ${CHROMIUM_PLATFORM} only`, () => {});
}
