/**
 * The operations a `batch` takes, checked as InMemoryStore checks them (and a little more) before
 * anything is sent, and sorted by kind.
 */
import {
  type GetOperation,
  type ListNamespacesOperation,
  type Operation,
  type PutOperation,
  type SearchOperation,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../errors";
import { checkField, integerAtLeast, refuseUnknownKeys } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

/** A put as StudioStore takes it: LangGraph's, with a TTL in minutes (`null`: never expires). */
export type StudioPutOperation = PutOperation & { ttl?: number | null | undefined };

export type Classified =
  | { kind: "get"; op: GetOperation }
  | { kind: "put"; op: StudioPutOperation }
  | { kind: "search"; op: SearchOperation }
  | { kind: "list"; op: ListNamespacesOperation };

/** A count or position: an integer of at least `min`, or unset (null reads as unset). */
const countFrom = (min: number) => z.optional(z.nullable(integerAtLeast(min)));

const operationsSchema = z.array(z.unknown(), { error: "must be an array of store operations" });

const operationSchema = z.custom<object>((op) => typeof op === "object" && op !== null, {
  error: "must be a store operation object",
});

const searchSchema = z.looseObject({
  namespacePrefix: z.array(z.unknown(), { error: "must be an array" }),
  limit: countFrom(0),
  offset: countFrom(0),
  query: z.optional(z.nullable(z.string({ error: "must be a string" }))),
});

const keySchema = z.looseObject({ key: z.string({ error: "must be a string" }) });

const putSchema = z.looseObject({
  value: z.custom<Record<string, unknown> | null>(
    (value) => value === null || (typeof value === "object" && !Array.isArray(value)),
    { error: "must be an object (or null to delete the item)" },
  ),
  ttl: z.optional(
    z.nullable(
      z.custom<number>((ttl) => typeof ttl === "number" && ttl > 0, {
        error: "must be a number of minutes above 0 (or null: never expires)",
      }),
    ),
  ),
});

const listSchema = z.looseObject({
  maxDepth: countFrom(1),
  limit: countFrom(0),
  offset: countFrom(0),
});

/** The batch's operations, each checked and classified. */
export function classifyAll(operations: unknown): Classified[] {
  return checkField("operations", operationsSchema, operations).map((op, i) =>
    classify(op as Operation, i),
  );
}

/** Which operation `op` is, once checked as InMemoryStore checks it (and a little more). */
export function classify(op: Operation, i: number): Classified {
  const field = `operations[${i}]`;
  checkField(field, operationSchema, op);
  if ("namespacePrefix" in op) {
    checkField(field, searchSchema, op);
    if (op.namespacePrefix.length > 0) {
      validateNamespace(op.namespacePrefix, { allowReservedRoot: true });
    }
    return { kind: "search", op };
  }
  if ("namespace" in op) {
    validateNamespace(op.namespace, { allowReservedRoot: true });
    checkField(field, keySchema, op);
    if (!("value" in op)) return { kind: "get", op };
    checkField(field, putSchema, op);
    return { kind: "put", op };
  }
  if ("matchConditions" in op || "maxDepth" in op || "limit" in op) {
    checkField(field, listSchema, op);
    return { kind: "list", op };
  }
  throw new StudioValidationError(field, "is not a get, put, search or listNamespaces operation");
}

/** The options each of the store's calls takes (as LangGraph's `BaseStore` declares them). */
const CALL_OPTIONS = {
  put: ["ttl"],
  search: ["filter", "limit", "offset", "query"],
  listNamespaces: ["prefix", "suffix", "maxDepth", "limit", "offset"],
} as const;

/** Refuses an option `call` does not take, naming the closest it does. */
export function checkCallOptions(call: keyof typeof CALL_OPTIONS, options: unknown): void {
  refuseUnknownKeys(options, { owner: `StudioStore.${call}`, known: CALL_OPTIONS[call] });
}
