/** The in-flight tracker both writers use: what `settled` waits for, and the bound on memory. */
import { describe, expect, it } from "vitest";
import { InFlight, RecentKeys } from "../../../src/threads/in-flight";
import { deferred, isSettled } from "../../helpers/gate";

describe("InFlight", () => {
  it("settled waits for every promise of the key, and only of that key", async () => {
    const tracker = new InFlight();
    const first = deferred();
    const other = deferred();
    tracker.track("a", first.promise);
    tracker.track("b", other.promise);
    const settled = tracker.settled("a");
    expect(await isSettled(settled)).toBe(false);
    first.resolve();
    expect(await isSettled(settled)).toBe(true);
    expect(tracker.has("a")).toBe(false);
    expect(tracker.has("b")).toBe(true);
  });

  it("settled also waits for a promise tracked while it waits (a late write)", async () => {
    const tracker = new InFlight();
    const early = deferred();
    const late = deferred();
    tracker.track("t", early.promise);
    const settled = tracker.settled("t");
    tracker.track("t", late.promise);
    early.resolve();
    expect(await isSettled(settled)).toBe(false);
    late.resolve();
    expect(await isSettled(settled)).toBe(true);
  });

  it("counts a rejected promise as settled, never rejects, and hands the promise back", async () => {
    const tracker = new InFlight();
    const failing = deferred();
    const returned = tracker.track("t", failing.promise);
    expect(returned).toBe(failing.promise);
    returned.catch(() => undefined);
    const settled = tracker.settled("t");
    failing.reject(new Error("write failed"));
    await expect(settled).resolves.toBeUndefined();
    expect(tracker.has("t")).toBe(false);
  });

  it("settles at once for a key with nothing in flight", async () => {
    expect(await isSettled(new InFlight().settled("none"))).toBe(true);
  });
});

describe("RecentKeys", () => {
  it("keeps at most its limit, forgetting the key set longest ago", () => {
    const keys = new RecentKeys<number>(3);
    for (const [i, key] of ["a", "b", "c", "d"].entries()) keys.set(key, i);
    expect(keys.size).toBe(3);
    expect(keys.has("a")).toBe(false);
    expect(keys.get("d")).toBe(3);
  });

  it("counts a key set again as the newest", () => {
    const keys = new RecentKeys<boolean>(2);
    keys.set("a", true);
    keys.set("b", true);
    keys.set("a", true);
    keys.set("c", true);
    expect([keys.has("a"), keys.has("b"), keys.has("c")]).toEqual([true, false, true]);
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => new RecentKeys(0)).toThrow(/limit must be a positive integer/);
  });
});
