import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Collection, makeId, pageOf } from "../../../src/emulator/collection";

function items(n: number) {
  return Array.from({ length: n }, (_, i) => ({ id: makeId("thread", i + 1, "abc") }));
}

describe("makeId", () => {
  it("sorts in creation order as strings", () => {
    const ids = [1, 9, 10, 35, 36, 1000, 123456].map((s) => makeId("msg", s, "zzzz"));
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("pageOf", () => {
  it("walking forward with after, or back with before, visits every item once in order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 10 }),
        fc.boolean(),
        (n, limit, desc) => {
          const all = items(n);
          const order = desc ? "desc" : "asc";
          const expected = (desc ? [...all].reverse() : all).map((x) => x.id);
          const forward: string[] = [];
          let after: string | undefined;
          for (let guard = 0; guard <= n + 1; guard++) {
            const page = pageOf(all, { limit, order, after });
            forward.push(...page.data.map((x) => x.id));
            if (!page.hasMore) break;
            after = page.lastId ?? undefined;
          }
          expect(forward).toEqual(expected);

          const backward: string[] = [];
          let before: string | undefined;
          for (let guard = 0; guard <= n + 1; guard++) {
            const page = before
              ? pageOf(all, { limit, order, before })
              : pageOf(all, { limit: 100, order }); // the last page, from a full listing
            const data = before ? page.data : page.data.slice(-limit);
            backward.unshift(...data.map((x) => x.id));
            if (data.length === 0 || (before && !page.hasMore)) break;
            before = data[0]!.id;
          }
          expect(backward).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reports firstId/lastId as null on an empty page", () => {
    expect(pageOf([], { limit: 5, order: "asc" })).toEqual({
      object: "list",
      data: [],
      firstId: null,
      lastId: null,
      hasMore: false,
    });
  });
});

describe("Collection", () => {
  it("keeps id order when items arrive unsorted, and removes by id", () => {
    const c = new Collection<{ id: string }>("thread");
    const [a, b, d] = items(3);
    c.add(d!);
    c.add(a!);
    c.add(b!);
    expect(c.all().map((x) => x.id)).toEqual([a!.id, b!.id, d!.id]);
    expect(c.remove(b!.id)).toBe(b);
    expect(c.remove(b!.id)).toBeUndefined();
    expect(c.all()).toEqual([a, d]);
    expect(c.get(d!.id)).toBe(d);
  });

  it("rejects cursors that are not ids of this collection", () => {
    const c = new Collection<{ id: string }>("thread");
    expect(() => c.list({ limit: 1, order: "asc", after: "msg_00000000010" })).toThrow(
      /after must be an id/,
    );
    expect(() => c.list({ limit: 1, order: "asc", before: "thread_1" })).toThrow(
      /before must be an id/,
    );
  });
});
