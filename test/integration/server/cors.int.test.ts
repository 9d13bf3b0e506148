/**
 * The `cors` option: preflights from allowed and refused origins, the headers the SDK reads
 * exposed on real responses, and the SDK's `Client` run through a fetch that enforces CORS the
 * way a browser does (preflight, allow-origin check, only exposed headers readable).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioValidationError } from "../../../src/errors";
import type { AgentServerCors } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { type Handler, sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();
const PAGE = "https://chat.example.com";
const OTHER = "https://evil.example.net";

beforeEach(async () => {
  await emulator.handle.reset();
});

function preflight(path: string, origin: string, headers = "content-type, x-api-key"): Request {
  return new Request(`http://agent.test${path}`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": headers,
    },
  });
}

/** Headers a page may read on any cross-origin response (the CORS-safelisted ones). */
const SAFELISTED = [
  "cache-control",
  "content-language",
  "content-length",
  "content-type",
  "expires",
  "last-modified",
  "pragma",
];

function listed(value: string | null): string[] {
  return (value ?? "").split(",").map((part) => part.trim().toLowerCase());
}

/**
 * A fetch from a page on `origin`, as a browser runs it: a preflight for what is not a simple
 * request, the allow-origin checked on the answer, and the response's headers cut down to the
 * safelisted and exposed ones. A refusal is the browser's `TypeError: Failed to fetch`.
 */
function browserFetch(handler: Handler, origin: string) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const names = [...request.headers.keys()];
    const contentType = request.headers.get("content-type") ?? "";
    const simple =
      ["GET", "HEAD", "POST"].includes(request.method) &&
      names.every((name) => name === "content-type") &&
      (contentType === "" || contentType.startsWith("text/plain"));
    if (!simple) {
      const answer = await handler(
        new Request(request.url, {
          method: "OPTIONS",
          headers: {
            Origin: origin,
            "Access-Control-Request-Method": request.method,
            "Access-Control-Request-Headers": names.join(","),
          },
        }),
      );
      const methods = listed(answer.headers.get("Access-Control-Allow-Methods"));
      const allowed = listed(answer.headers.get("Access-Control-Allow-Headers"));
      if (
        answer.headers.get("Access-Control-Allow-Origin") !== origin ||
        !methods.includes(request.method.toLowerCase()) ||
        !names.every((name) => allowed.includes(name))
      ) {
        throw new TypeError("Failed to fetch (preflight refused)");
      }
    }
    const headers = new Headers(request.headers);
    headers.set("Origin", origin);
    const response = await handler(new Request(request, { headers }));
    if (response.headers.get("Access-Control-Allow-Origin") !== origin) {
      throw new TypeError("Failed to fetch (no Access-Control-Allow-Origin)");
    }
    const readable = [
      ...SAFELISTED,
      ...listed(response.headers.get("Access-Control-Expose-Headers")),
    ];
    const visible = new Headers();
    for (const [name, value] of response.headers) {
      if (readable.includes(name)) visible.set(name, value);
    }
    return new Response(response.body, { status: response.status, headers: visible });
  };
}

const cors: AgentServerCors = { origins: [PAGE], maxAge: 120 };

describe("createAgentServer's cors option", () => {
  it("answers an allowed origin's preflight with the SDK's methods and headers, before auth", async () => {
    const { handler } = studioServer(emulator.handle, { cors, auth: () => null });
    const answer = await handler(preflight("/threads/search", PAGE, "content-type, x-api-key"));
    expect(answer.status).toBe(204);
    expect(answer.headers.get("Access-Control-Allow-Origin")).toBe(PAGE);
    expect(listed(answer.headers.get("Access-Control-Allow-Methods"))).toEqual(
      expect.arrayContaining(["get", "post", "put", "patch", "delete"]),
    );
    expect(listed(answer.headers.get("Access-Control-Allow-Headers"))).toEqual(
      expect.arrayContaining(["content-type", "x-api-key", "authorization", "last-event-id"]),
    );
    expect(answer.headers.get("Access-Control-Max-Age")).toBe("120");
    expect(answer.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    expect(answer.headers.get("Vary")).toMatch(/Origin/);
  });

  it("gives a refused origin no allow header, on a preflight or a request", async () => {
    const { handler } = studioServer(emulator.handle, { cors });
    const answer = await handler(preflight("/threads/search", OTHER));
    expect(answer.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(answer.headers.get("Access-Control-Allow-Methods")).toBeNull();
    const plain = await handler(
      new Request("http://agent.test/ok", { headers: { Origin: OTHER } }),
    );
    expect(plain.status).toBe(200);
    expect(plain.headers.get("Access-Control-Allow-Origin")).toBeNull();
    await expect(
      sdkClient(browserFetch(handler, OTHER) as Handler).threads.search(),
    ).rejects.toThrow(/Failed to fetch/);
  });

  it("sends no CORS header and answers no preflight without the option", async () => {
    const { handler } = studioServer(emulator.handle);
    const answer = await handler(preflight("/threads/search", PAGE));
    expect(answer.status).toBe(404);
    expect(answer.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const plain = await handler(new Request("http://agent.test/ok", { headers: { Origin: PAGE } }));
    expect(plain.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("exposes Content-Location on a run's stream and the thread list's page total", async () => {
    const { handler } = studioServer(emulator.handle, { cors });
    const thread = await sdkClient(handler).threads.create();
    const response = await handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/stream`, {
        method: "POST",
        headers: { Origin: PAGE, "Content-Type": "application/json" },
        body: JSON.stringify({ assistant_id: "echo", input: say("hi") }),
      }),
    );
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(PAGE);
    expect(response.headers.get("Content-Location")).toMatch(/\/runs\//);
    expect(listed(response.headers.get("Access-Control-Expose-Headers"))).toEqual(
      expect.arrayContaining(["content-location", "location", "x-pagination-total"]),
    );
    await response.text();
  });

  it("runs the SDK's Client from another origin through a browser's fetch", async () => {
    const { handler } = studioServer(emulator.handle, {
      cors: { origins: (origin) => origin.endsWith(".example.com"), credentials: true },
      auth: (request) => (request.headers.get("Authorization") === "Bearer ada" ? "ada" : null),
    });
    const client = sdkClient(browserFetch(handler, PAGE) as Handler, {
      Authorization: "Bearer ada",
    });
    const thread = await client.threads.create();
    const created: string[] = [];
    const events = await collect(
      client.runs.stream(thread.thread_id, "echo", {
        input: say("from the page"),
        streamMode: "values",
        onRunCreated: ({ run_id }) => created.push(run_id),
      }),
    );
    // The run id comes from Content-Location: readable only because it is exposed.
    expect(created).toHaveLength(1);
    expect(texts(events.at(-1)?.data)).toEqual(["from the page", "You said: from the page"]);
    const listedRuns = await client.runs.list(thread.thread_id);
    expect(listedRuns.map((run) => run.run_id)).toEqual(created);
  });

  it("refuses a bad cors option, naming the field", () => {
    const base = studioServer.bind(null, emulator.handle);
    const bad: [unknown, RegExp][] = [
      [{ origins: ["https://ok.example", "https://chat.example.com/"] }, /cors\.origins\[1\]/],
      [{ origins: [] }, /cors\.origins: must list at least one origin/],
      [{ origins: "https://chat.example.com" }, /cors\.origins: must be a list of origins/],
      [{ origins: ["*"], credentials: true }, /cors\.origins: cannot be "\*" with credentials/],
      [{ origins: [PAGE], maxAge: -1 }, /cors\.maxAge/],
      [{ origin: [PAGE] }, /cors\.origin: .*did you mean "origins"/],
    ];
    for (const [option, message] of bad) {
      const attempt = () => base({ cors: option as AgentServerCors });
      expect(attempt).toThrow(StudioValidationError);
      expect(attempt).toThrow(message);
    }
  });
});
