/**
 * A scripted service behind the client's `fetch` option: every request is kept (method, path,
 * parsed body) and answered by the test's `answer` function, so tests count calls and check
 * exact request bodies without a network.
 */
import type { Thread } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";

export interface FakeRequest {
  method: string;
  path: string;
  body: unknown;
}

export const BASE_URL = "http://studio.test";
export const API_KEY = "sk-datasets-unit-key";

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** A thread as a service answers a create. */
export function threadAnswer(id: string, body: unknown): Response {
  const { metadata } = (body ?? {}) as { metadata?: Record<string, string> };
  const thread: Thread = {
    id,
    object: "thread",
    createdAt: 1_700_000_000,
    metadata: metadata ?? {},
  };
  return jsonResponse(200, thread);
}

export function fakeService(answer: (request: FakeRequest) => Response | Promise<Response>): {
  client: StudioClient;
  requests: FakeRequest[];
} {
  const requests: FakeRequest[] = [];
  const client = new StudioClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    maxRetries: 0,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
      const request = { method: init?.method ?? "GET", path: url.pathname + url.search, body };
      requests.push(request);
      return answer(request);
    },
  });
  return { client, requests };
}
