/**
 * Who is calling, as the `auth` hook says. A hook is user code: one that throws or answers
 * something other than a string or null is a bug (or an expired key), told to `onError`; the
 * browser gets the same plain 401 as for nobody, so a failure reveals nothing.
 */
import { StudioValidationError } from "../errors";
import type { ServerContext } from "./context";
import type { AgentServerOptions } from "./options";

/**
 * The caller's user id: "" without `auth`, undefined (a 401) when the hook names nobody. A hook
 * that throws or answers something other than a string or null is a bug (or an expired key): it
 * is told to `onError`, and the browser gets the same plain 401. A blank id is nobody.
 */
export async function callerOf(
  auth: AgentServerOptions["auth"],
  request: Request,
  tell: ServerContext["report"],
): Promise<string | undefined> {
  if (!auth) return "";
  let user: unknown;
  try {
    user = await auth(request);
  } catch (error) {
    tell(error, request);
    return undefined;
  }
  if (user === null || user === undefined) return undefined;
  if (typeof user !== "string") {
    // Its type only: the value may hold a credential.
    const kind = typeof user;
    const got = `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
    tell(
      new StudioValidationError(
        "auth",
        `returned ${got}, not a user id (a string) or null; the request was refused (401)`,
      ),
      request,
    );
    return undefined;
  }
  return user.trim() === "" ? undefined : user;
}
