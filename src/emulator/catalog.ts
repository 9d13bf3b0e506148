/** The remote-call style calls: list public models (spec call 1) and dataset messages (call 7). */
import type { Model } from "../api-types";
import { invalid } from "./http-error";
import { pageSlice, readPage } from "./page-token";
import type { Route } from "./router";
import type { Store } from "./store";
import { describe, requireBodyObject, requiredString } from "./validate";

export function catalogRoutes(
  store: Store,
  models: () => readonly Model[],
  prefix: string,
): Route[] {
  return [
    {
      method: "POST",
      path: `${prefix}/svc.Studio/ListPublicModels`,
      auth: "none",
      handler: (ctx) => {
        const request = readPage(requireBodyObject(ctx.body), true);
        const { items, page } = pageSlice(
          models().filter((m) => m.public),
          request,
        );
        return { kind: "json", body: { models: items, page } };
      },
    },
    {
      method: "POST",
      path: `${prefix}/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages`,
      auth: "studio",
      handler: (ctx) => {
        const body = requireBodyObject(ctx.body);
        const datasetId = requiredString(body, "datasetId");
        const request = readPage(body, false);
        const descending = readDatasetOrder(body.order);
        const threads = [...store.datasetThreads(datasetId).all()];
        if (descending) threads.reverse();
        const { items, page } = pageSlice(threads, request);
        const threadsMessages = items.map((thread) => ({
          threadId: thread.id,
          messages: [...(store.messages(thread.id)?.all() ?? [])],
          createdAt: thread.createdAt,
        }));
        return { kind: "json", body: { threadsMessages, page } };
      },
    },
  ];
}

/** The spec says only "default is created_at ascending"; both spellings of the order are read. */
function readDatasetOrder(order: unknown): boolean {
  if (order === undefined || order === null || order === "") return false;
  if (typeof order === "string") {
    const normalized = order
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, " ");
    if (normalized === "asc" || normalized === "created at asc") return false;
    if (normalized === "desc" || normalized === "created at desc") return true;
  }
  throw invalid(
    "order",
    `must be "asc", "desc", "created_at asc" or "created_at desc" (got ${describe(order)})`,
  );
}
