/** The store routes' namespace rule (`storeNamespaces`), with no store and no I/O. */
import { describe, expect, it } from "vitest";
import { HttpProblem } from "../../../src/server/http";
import { storeAccess } from "../../../src/server/store-access";

function refused(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    const { status, message } = error as HttpProblem;
    return { status, message };
  }
  throw new Error("not refused");
}

describe("storeAccess", () => {
  it('"user" (the default): a user reaches the namespaces under their own id', () => {
    const rule = storeAccess(undefined, true);
    expect(() => rule.check("ada", ["ada", "notes"], "namespace")).not.toThrow();
    expect(refused(() => rule.check("bob", ["ada", "notes"], "namespace"))).toEqual({
      status: 403,
      message:
        'namespace: ["ada","notes"] is not yours: each user\'s store namespaces start with ' +
        'their user id; use ["bob","notes"]',
    });
    expect(rule.scope("ada", [], "prefix")).toEqual(["ada"]);
    expect(rule.scope("ada", ["ada", "x"], "prefix")).toEqual(["ada", "x"]);
    expect(refused(() => rule.scope("ada", ["bob"], "prefix")).status).toBe(403);
    expect(rule.shows("ada", ["ada"])).toBe(true);
    expect(rule.shows("ada", ["adam"])).toBe(false);
  });

  it('"shared", or no auth: every namespace, the prefix as given', () => {
    for (const rule of [storeAccess("shared", true), storeAccess(undefined, false)]) {
      expect(() => rule.check("bob", ["ada"], "namespace")).not.toThrow();
      expect(rule.scope("bob", [], "prefix")).toEqual([]);
      expect(rule.shows("bob", ["ada"])).toBe(true);
    }
  });

  it("a function decides each namespace and filters what searches show", () => {
    const rule = storeAccess(
      (user, namespace) => namespace[0] === "team" || namespace[1] === user,
      true,
    );
    expect(() => rule.check("ada", ["team"], "namespace")).not.toThrow();
    expect(() => rule.check("ada", ["users", "ada"], "namespace")).not.toThrow();
    expect(refused(() => rule.check("ada", ["users", "bob"], "namespace"))).toEqual({
      status: 403,
      message: 'namespace: ["users","bob"] is not open to you (the server\'s storeNamespaces rule)',
    });
    expect(rule.scope("ada", [], "prefix")).toEqual([]);
    expect(rule.shows("ada", ["users", "bob"])).toBe(false);
  });
});
