/**
 * The two auth rules of the spec: completions carry the key in `Authorization` (raw, or `Bearer`
 * for OpenAI-style clients), studio calls in `X-Service-Key`. Listing public models needs none.
 * An organization may come as `X-Org-Id` on completions (the spec) and on studio calls (the
 * notes); the emulator has one organization, so any non-blank id is accepted.
 */
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "./http-error";
import type { RouteAuth } from "./router";

export const SECRET_HEADERS = new Set([
  "authorization",
  "x-service-key",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
]);

export function checkAuth(kind: RouteAuth, headers: IncomingHttpHeaders, apiKey: string): void {
  if (kind === "none") return;
  if (kind === "control") {
    // Either room's header: a test holds one client or the other, or only curl.
    if (headers["x-service-key"] === undefined && headers.authorization === undefined) {
      throw unauthorized(
        "Missing API key: emulator control calls take the key as `X-Service-Key: <key>` or " +
          "`Authorization: Bearer <key>`.",
        "missing_api_key",
      );
    }
    checkAuth(headers["x-service-key"] !== undefined ? "studio" : "inference", headers, apiKey);
    return;
  }
  checkOrgId(headers);
  if (kind === "inference") {
    const value = headers.authorization;
    if (!value) {
      throw unauthorized(
        "Missing Authorization header: completions take the API key as `Authorization: <key>` " +
          "(or `Bearer <key>`).",
        "missing_api_key",
      );
    }
    const key = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, "") : value;
    if (key.trim() !== apiKey) {
      throw unauthorized("Invalid API key in the Authorization header.", "invalid_api_key");
    }
    return;
  }
  const value = headers["x-service-key"];
  if (value === undefined || value === "") {
    const hint = headers.authorization
      ? " Studio calls take the key in X-Service-Key, not in Authorization."
      : "";
    throw unauthorized(
      "Missing X-Service-Key header: thread, assistant and dataset calls take the API key as " +
        `\`X-Service-Key: <key>\`.${hint}`,
      "missing_api_key",
    );
  }
  if (value !== apiKey)
    throw unauthorized("Invalid API key in the X-Service-Key header.", "invalid_api_key");
}

function unauthorized(message: string, code: string): HttpError {
  return new HttpError(401, message, { code });
}

function checkOrgId(headers: IncomingHttpHeaders): void {
  const value = headers["x-org-id"];
  if (value === undefined) return;
  if (typeof value !== "string" || value.trim() === "") {
    throw new HttpError(
      400,
      "X-Org-Id must be an organization id (a non-blank string); leave the header out to use " +
        "the default organization.",
      { code: "invalid_org_id", param: "X-Org-Id" },
    );
  }
}
