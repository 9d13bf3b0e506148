/**
 * The control routes: what `EmulatorHandle.script()`, `.reset()` and `.setFaults()` do in process,
 * over HTTP, so a running emulator (`npx studio-emulator`, a compose service) serves a suite in
 * any language as a test server. They take the emulator's key (`X-Service-Key` or
 * `Authorization`), are never faulted, and never show in `requests`. Each takes a scope from the
 * `x-emulator-scope` header or a `scope` field of its body.
 *
 * - `POST /_emulator/script`  `{model, replies, scope?}` → `{model, scope, remaining, requests}`
 * - `GET  /_emulator/script?model=<uri>` → the same, for the script in the request's scope
 * - `POST /_emulator/reset`   `{scope?}` → with a scope, drops its scripts and faults; without,
 *   resets the whole emulator as `handle.reset()` does
 * - `POST /_emulator/faults`  `{faults, scope?}` (a spec object, the CLI's string, or null
 *   to clear)
 */

import type { FaultBook } from "./faults";
import { HttpError, invalid } from "./http-error";
import type { RequestContext, Route } from "./router";
import { checkScope } from "./scope";
import type { ModelScript, ScriptBook } from "./script";
import type { FaultSpec } from "./types";
import { describe, isObject, type Json } from "./validate";

export const CONTROL_PATHS = {
  script: "/_emulator/script",
  reset: "/_emulator/reset",
  faults: "/_emulator/faults",
} as const;

export interface ControlDeps {
  /** Sets a script, as `handle.script()` (which throws for an emulator with an upstream). */
  script(model: string, replies: unknown, scope: string | undefined): ModelScript;
  scripts: ScriptBook;
  faults: FaultBook;
  reset(scope: string | undefined): Promise<void>;
}

export function controlRoutes(deps: ControlDeps): Route[] {
  return [
    {
      method: "POST",
      path: CONTROL_PATHS.script,
      auth: "control",
      handler: (ctx) => {
        const body = controlBody(ctx);
        const model = body.model;
        if (typeof model !== "string" || model === "")
          throw invalid("model", `is required and must be a model uri (got ${describe(model)})`);
        const scope = scopeOf(ctx, body);
        let script: ModelScript;
        try {
          script = deps.script(model, body.replies, scope);
        } catch (error) {
          // script() names the field (`replies[1].toolCalls[0].name`), the model, or the upstream.
          throw new HttpError(400, (error as Error).message, { code: "invalid_script" });
        }
        return { kind: "json", body: describeScript(script) };
      },
    },
    {
      method: "GET",
      path: CONTROL_PATHS.script,
      auth: "control",
      handler: (ctx) => {
        const model = ctx.query.model;
        if (!model) throw invalid("model", "is required as a query parameter", "missing_field");
        const scope =
          ctx.query.scope === undefined ? ctx.scope : checkScope(ctx.query.scope, "scope");
        const script = deps.scripts.get(model, scope);
        if (!script) {
          const where = scope === undefined ? "unscoped" : `in scope ${JSON.stringify(scope)}`;
          throw new HttpError(404, `No script for ${JSON.stringify(model)} ${where}.`, {
            code: "script_not_found",
          });
        }
        return { kind: "json", body: describeScript(script) };
      },
    },
    {
      method: "POST",
      path: CONTROL_PATHS.reset,
      auth: "control",
      handler: async (ctx) => {
        const scope = scopeOf(ctx, controlBody(ctx));
        await deps.reset(scope);
        return {
          kind: "json",
          body: { reset: scope === undefined ? "all" : "scope", scope: scope ?? null },
        };
      },
    },
    {
      method: "POST",
      path: CONTROL_PATHS.faults,
      auth: "control",
      handler: (ctx) => {
        const body = controlBody(ctx);
        if (!("faults" in body)) {
          throw invalid(
            "faults",
            'is required: a spec object ({"rate429": 0.5}), the CLI\'s string ("rate429=0.5"), ' +
              "or null to clear",
            "missing_field",
          );
        }
        const faults = body.faults;
        if (faults !== null && typeof faults !== "string" && !isObject(faults))
          throw invalid("faults", `must be an object, a string or null (got ${describe(faults)})`);
        const scope = scopeOf(ctx, body);
        try {
          deps.faults.set(faults === null ? undefined : (faults as FaultSpec | string), scope);
        } catch (error) {
          throw new HttpError(400, (error as Error).message, { param: "faults" });
        }
        return { kind: "json", body: { faults, scope: scope ?? null } };
      },
    },
  ];
}

function controlBody(ctx: RequestContext): Json {
  if (ctx.body === undefined) return {};
  if (!isObject(ctx.body))
    throw new HttpError(400, `The body must be a JSON object (got ${describe(ctx.body)}).`);
  return ctx.body;
}

/** The body's `scope` when given, else the header's; both the same when both are given. */
function scopeOf(ctx: RequestContext, body: Json): string | undefined {
  if (body.scope === undefined || body.scope === null) return ctx.scope;
  const scope = checkScope(body.scope, "scope");
  if (ctx.scope !== undefined && ctx.scope !== scope) {
    throw new HttpError(
      400,
      `The body's scope ${JSON.stringify(scope)} and the x-emulator-scope header ` +
        `${JSON.stringify(ctx.scope)} differ; give one.`,
      { param: "scope", code: "invalid_scope" },
    );
  }
  return scope;
}

function describeScript(script: ModelScript) {
  return {
    model: script.model,
    scope: script.scope ?? null,
    remaining: script.remaining,
    requests: script.requests,
  };
}
