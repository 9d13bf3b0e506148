/**
 * Forwarding of completions to an OpenAI-compatible server (a local model server, say), so users
 * get real answers through the emulator. The body goes as is; streamed answers are piped through.
 */
import type { Readable } from "node:stream";
import { Agent, request } from "undici";
import { HttpError } from "./http-error";

export interface ProxyResult {
  kind: "proxy";
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

const PASSED_HEADERS = ["content-type", "cache-control", "x-request-id", "retry-after"];

export class Upstream {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });
  private readonly base: string;

  constructor(
    base: string,
    private readonly apiKey?: string,
  ) {
    this.base = base.replace(/\/+$/, "");
  }

  async forward(path: string, raw: Buffer): Promise<ProxyResult> {
    const url = `${this.base}${path}`;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    // The emulator's own key never leaves loopback; the upstream gets its own key, if any.
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    try {
      const response = await request(url, {
        method: "POST",
        headers,
        body: raw,
        dispatcher: this.agent,
      });
      const passed: Record<string, string> = {};
      for (const name of PASSED_HEADERS) {
        const value = response.headers[name];
        if (typeof value === "string") passed[name] = value;
      }
      return { kind: "proxy", status: response.statusCode, headers: passed, body: response.body };
    } catch (error) {
      const detail =
        error instanceof Error
          ? hasCode(error)
            ? `${error.code}: ${error.message}`
            : error.message
          : String(error);
      throw new HttpError(
        502,
        `Upstream ${url} did not answer (${detail}). Start the upstream server or remove the ` +
          "upstream option.",
        { code: "upstream_unreachable" },
      );
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function hasCode(error: Error): error is Error & { code: string } {
  return typeof (error as { code?: unknown }).code === "string";
}
