/**
 * The HTTP transport: reads a Node request into the pipeline and writes the outcome back (JSON, an
 * event stream, a piped upstream answer, or a dropped socket). Handlers never touch the response;
 * that is what lets an "after" fault discard a committed result and fail instead.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline as pipe } from "node:stream/promises";
import { HttpError } from "./http-error";
import { bodyTooLarge, MAX_BODY_BYTES, type Outcome, type RequestPipeline } from "./pipeline";
import { createSseOut, nodeSseSink } from "./sse";

export function nodeRequestHandler(
  pipeline: RequestPipeline,
  chunkDelayMs: number,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(pipeline, chunkDelayMs, req, res).catch((error: unknown) => {
      // Only a bug in the emulator lands here; the socket must not hang.
      if (!res.headersSent) {
        sendError(
          res,
          new HttpError(500, `Internal emulator error: ${(error as Error)?.message ?? error}`),
        );
      } else {
        res.destroy();
      }
    });
  };
}

async function serve(
  pipeline: RequestPipeline,
  chunkDelayMs: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = pipeline.nextRequestId();
  res.setHeader("x-request-id", requestId);
  let raw: Buffer;
  try {
    raw = await readBody(req);
  } catch (error) {
    if (error instanceof HttpError) sendError(res, error);
    else res.destroy();
    return;
  }
  let closed = false;
  let onClosed = () => {
    closed = true;
  };
  res.once("close", () => onClosed());
  const processed = await pipeline.process(
    { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, raw },
    requestId,
  );
  onClosed = () => processed.finished(res.writableFinished ? res.statusCode : "reset");
  if (closed) onClosed();
  await write(res, processed.outcome, chunkDelayMs);
}

async function write(res: ServerResponse, outcome: Outcome, chunkDelayMs: number): Promise<void> {
  if (outcome.kind === "drop") {
    res.socket?.destroy();
    return;
  }
  if (outcome.kind === "error") {
    sendError(res, outcome.error);
    return;
  }
  const { result, cutAfter } = outcome;
  switch (result.kind) {
    case "json":
      sendJson(res, result.status ?? 200, result.body);
      return;
    case "sse":
      await result.produce(createSseOut(nodeSseSink(res), { cutAfter, chunkDelayMs }));
      return;
    case "proxy":
      res.writeHead(result.status, result.headers);
      await pipe(result.body, res).catch(() => {
        // The client or the upstream went away mid-stream; both ends are already closed.
      });
      return;
  }
}

/**
 * The body, or a 413 once it has ended past `MAX_BODY_BYTES`. The rest of an oversized body is
 * read and dropped rather than the answer sent mid-upload: a client still writing when the answer
 * lands may meet a reset instead (its write fails, or its library tears the socket down), which it
 * cannot tell from a lost connection and would report as retryable. Read to the end, the 413 is
 * the one thing it can see, and the connection stays usable for its next call.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.once("end", () => {
      if (size > MAX_BODY_BYTES) reject(bodyTooLarge());
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.once("error", reject);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, error.toBody(), error.headers);
}
