/**
 * Store routes, as the SDK's `client.store` calls them, over the server's `store` option (the
 * user's view of it with `keyRing`): put, get and delete an item, search items, list namespaces.
 * Which namespaces a user reaches is `store-access.ts`'s rule.
 */
import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../../errors";
import { useEnglishMessages } from "../../zod-locale";
import { readBody, type ServerContext } from "../context";
import { HttpProblem, json, noContent } from "../http";
import { parseBody, parseQuery } from "../requests";
import { type RouteEntry, route } from "../router";
import type { StoreAccess } from "../store-access";

useEnglishMessages();

const LABEL_RULE = 'must be a non-empty string without "."';

const label = z
  .string({ error: LABEL_RULE })
  .check(z.refine((text) => text !== "" && !text.includes("."), { error: LABEL_RULE }));
const namespace = z.array(label, { error: 'must be a list of labels such as ["ada", "notes"]' });
const key = z.string({ error: "must be a string" }).check(z.minLength(1, "must not be empty"));
const count = (min: number, max: number) =>
  z.nullish(z.number().check(z.int(), z.gte(min), z.lte(max)));

const PutSchema = z.looseObject({
  namespace: namespace.check(z.minLength(1, "must hold at least one label")),
  key,
  value: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
  index: z.nullish(z.union([z.literal(false), z.array(z.string())])),
  ttl: z.nullish(z.number().check(z.gt(0))),
});

const ItemSchema = z.looseObject({ namespace, key });

const GetQuerySchema = z.looseObject({
  namespace: z.optional(z.string()),
  key,
});

const SearchSchema = z.looseObject({
  namespace_prefix: z.nullish(namespace),
  filter: z.nullish(z.record(z.string(), z.unknown())),
  limit: count(1, 1000),
  offset: count(0, Number.MAX_SAFE_INTEGER),
  query: z.nullish(z.string()),
});

const NamespacesSchema = z.looseObject({
  prefix: z.nullish(namespace),
  suffix: z.nullish(namespace),
  max_depth: count(1, 1000),
  limit: count(1, 1000),
  offset: count(0, Number.MAX_SAFE_INTEGER),
});

/** An item as the SDK reads it (`created_at`, `updated_at`; `score` from a search). */
function wireItem(item: Item & { score?: number | undefined }): Record<string, unknown> {
  const { createdAt, updatedAt, ...rest } = item;
  return { ...rest, created_at: createdAt, updated_at: updatedAt };
}

/** The user's store, or a 501 saying how to configure one. */
async function storeOf(ctx: ServerContext, owner: string): Promise<BaseStore> {
  const { store } = await ctx.userGraphs(owner);
  if (store) return store;
  throw new HttpProblem(
    501,
    "Not Implemented",
    "the server has no store: pass createAgentServer({ store }), e.g. new StudioStore({ client })",
  );
}

/** The store's own check of a value (a StudioStore's TTL, index or size rules) as a 422. */
async function checked<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof StudioValidationError) {
      throw new HttpProblem(422, "Unprocessable Entity", error.message);
    }
    throw error;
  }
}

export function storeRoutes(ctx: ServerContext, access: StoreAccess): RouteEntry[] {
  return [
    route("PUT", "/store/items", async (request, owner) => {
      const body = parseBody(PutSchema, await readBody(ctx, request));
      access.check(owner, body.namespace, "namespace");
      const store = await storeOf(ctx, owner);
      const options = typeof body.ttl === "number" ? [{ ttl: body.ttl }] : [];
      // A StudioStore takes the TTL (minutes) as a fifth argument; other stores ignore it.
      const put = store.put as (...args: unknown[]) => Promise<void>;
      await checked(
        put.call(store, body.namespace, body.key, body.value, body.index ?? undefined, ...options),
      );
      return noContent();
    }),
    route("GET", "/store/items", async (_r, owner, _p, url) => {
      const query = parseQuery(GetQuerySchema, url);
      const path = query.namespace ? query.namespace.split(".") : [];
      const labels = parseBody(namespace, path);
      access.check(owner, labels, "namespace");
      const item = await checked((await storeOf(ctx, owner)).get(labels, query.key));
      return json(item ? wireItem(item) : null);
    }),
    route("DELETE", "/store/items", async (request, owner) => {
      const body = parseBody(ItemSchema, await readBody(ctx, request));
      access.check(owner, body.namespace, "namespace");
      await checked((await storeOf(ctx, owner)).delete(body.namespace, body.key));
      return noContent();
    }),
    route("POST", "/store/items/search", async (request, owner) => {
      const body = parseBody(SearchSchema, await readBody(ctx, request));
      const prefix = access.scope(owner, body.namespace_prefix ?? [], "namespace_prefix");
      const found = await checked(
        (await storeOf(ctx, owner)).search(prefix, {
          ...(body.filter ? { filter: body.filter } : {}),
          limit: body.limit ?? 10,
          offset: body.offset ?? 0,
          ...(body.query ? { query: body.query } : {}),
        }),
      );
      const items = found.filter((item) => access.shows(owner, item.namespace));
      return json({ items: items.map(wireItem) });
    }),
    route("POST", "/store/namespaces", async (request, owner) => {
      const body = parseBody(NamespacesSchema, await readBody(ctx, request));
      const prefix = access.scope(owner, body.prefix ?? [], "prefix");
      const found = await checked(
        (await storeOf(ctx, owner)).listNamespaces({
          ...(prefix.length > 0 ? { prefix } : {}),
          ...(body.suffix ? { suffix: body.suffix } : {}),
          ...(body.max_depth ? { maxDepth: body.max_depth } : {}),
          limit: body.limit ?? 100,
          offset: body.offset ?? 0,
        }),
      );
      return json({ namespaces: found.filter((labels) => access.shows(owner, labels)) });
    }),
  ];
}
