/**
 * Issue #20, item 6: `ChatStudio.stream(x, { signal })` aborted mid-stream left the 10-minute
 * `streamTimeout` timer referenced, so a script took 603 s to exit. Here a child process aborts
 * such a stream against a loopback server that never stops sending, and must exit on its own
 * within seconds, having freed the connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFixture } from "../../helpers/fixture-process";
import { type Loopback, startLoopback } from "./loopback";

let server: Loopback;
/** Responses the client closed before the server ended them. */
let closedByClient = 0;

beforeAll(async () => {
  server = await startLoopback((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let n = 0;
    const tick = setInterval(() => {
      const chunk = {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: "studio/echo-small",
        choices: [{ index: 0, delta: { content: `t${n++} ` }, finish_reason: null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }, 20);
    res.on("close", () => {
      clearInterval(tick);
      if (!res.writableEnded) closedByClient++;
    });
  });
});

afterAll(async () => {
  await server.close();
});

describe("an aborted stream", () => {
  it("lets its process exit on its own, with no chunk after the abort", async () => {
    // Before the fix the child ran for 10 minutes.
    // The fixture exits with code 3 and says what is open if anything holds it 2 s after its work.
    const { code, stdout, stderr } = await runFixture(
      new URL("./fixtures/aborted-stream.ts", import.meta.url),
      [server.origin],
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({ error: "AbortError", before: 3, after: 0 });
    expect(closedByClient).toBe(1);
  }, 40_000);
});
