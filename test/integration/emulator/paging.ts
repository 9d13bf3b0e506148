import { expect } from "vitest";
import type { ListResponse } from "../../../src/api-types";
import type { Reply } from "./http";

type Lister = (query: string) => Promise<Reply<ListResponse<{ id: string }>>>;

/**
 * Walks a `/v1` list in both orders, forward with `after = lastId` and back with
 * `before = firstId`, and checks every page against `ids` (all ids, oldest first).
 */
export async function checkCursorPaging(list: Lister, ids: string[], limit: number): Promise<void> {
  for (const order of ["asc", "desc"] as const) {
    const expected = order === "asc" ? ids : [...ids].reverse();
    const pages: string[][] = [];
    let after: string | null | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const reply = await list(`limit=${limit}&order=${order}${after ? `&after=${after}` : ""}`);
      expect(reply.status).toBe(200);
      const { data, firstId, lastId, hasMore, object } = reply.body;
      expect(object).toBe("list");
      expect(data.length).toBeLessThanOrEqual(limit);
      expect(firstId).toBe(data[0]?.id ?? null);
      expect(lastId).toBe(data.at(-1)?.id ?? null);
      pages.push(data.map((d) => d.id));
      if (!hasMore) break;
      after = lastId;
    }
    expect(pages.flat()).toEqual(expected);
    expect(pages).toHaveLength(Math.max(1, Math.ceil(ids.length / limit)));

    // Back from the last page with `before`: the same pages, in the same order within each page.
    const back: string[][] = [pages.at(-1)!];
    let before = back[0]![0];
    for (let guard = 0; guard < 100 && before; guard++) {
      const reply = await list(`limit=${limit}&order=${order}&before=${before}`);
      const { data, hasMore } = reply.body;
      if (data.length === 0) break;
      back.unshift(data.map((d) => d.id));
      before = data[0]!.id;
      if (!hasMore) break;
    }
    expect(back.flat()).toEqual(expected);
  }

  // `after` and `before` together bound a window.
  if (ids.length >= 4) {
    const reply = await list(`limit=100&order=asc&after=${ids[0]}&before=${ids[3]}`);
    expect(reply.body.data.map((d) => d.id)).toEqual([ids[1], ids[2]]);
  }
}
