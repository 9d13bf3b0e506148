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
import { StudioValidationError } from "../errors";

/** A put as StudioStore takes it: LangGraph's, with a TTL in minutes (`null`: never expires). */
export type StudioPutOperation = PutOperation & { ttl?: number | null | undefined };

export type Classified =
  | { kind: "get"; op: GetOperation }
  | { kind: "put"; op: StudioPutOperation }
  | { kind: "search"; op: SearchOperation }
  | { kind: "list"; op: ListNamespacesOperation };

/** The batch's operations, each checked and classified. */
export function classifyAll(operations: unknown): Classified[] {
  if (!Array.isArray(operations)) {
    throw new StudioValidationError("operations", "must be an array of store operations");
  }
  return operations.map(classify);
}

/** Which operation `op` is, once checked as InMemoryStore checks it (and a little more). */
export function classify(op: Operation, i: number): Classified {
  if (typeof op !== "object" || op === null) {
    throw new StudioValidationError(`operations[${i}]`, "must be a store operation object");
  }
  if ("namespacePrefix" in op) {
    if (!Array.isArray(op.namespacePrefix)) {
      throw new StudioValidationError(`operations[${i}].namespacePrefix`, "must be an array");
    }
    if (op.namespacePrefix.length > 0) {
      validateNamespace(op.namespacePrefix, { allowReservedRoot: true });
    }
    checkInteger(`operations[${i}].limit`, op.limit, 0);
    checkInteger(`operations[${i}].offset`, op.offset, 0);
    if (op.query !== undefined && op.query !== null && typeof op.query !== "string") {
      throw new StudioValidationError(`operations[${i}].query`, "must be a string");
    }
    return { kind: "search", op };
  }
  if ("namespace" in op) {
    validateNamespace(op.namespace, { allowReservedRoot: true });
    if (typeof op.key !== "string") {
      throw new StudioValidationError(`operations[${i}].key`, "must be a string");
    }
    if (!("value" in op)) return { kind: "get", op };
    const { value, ttl } = op as StudioPutOperation;
    if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
      throw new StudioValidationError(
        `operations[${i}].value`,
        "must be an object (or null to delete the item)",
      );
    }
    if (ttl !== undefined && ttl !== null && !(typeof ttl === "number" && ttl > 0)) {
      throw new StudioValidationError(
        `operations[${i}].ttl`,
        "must be a number of minutes above 0 (or null: never expires)",
      );
    }
    return { kind: "put", op };
  }
  if ("matchConditions" in op || "maxDepth" in op || "limit" in op) {
    checkInteger(`operations[${i}].maxDepth`, op.maxDepth, 1);
    checkInteger(`operations[${i}].limit`, op.limit, 0);
    checkInteger(`operations[${i}].offset`, op.offset, 0);
    return { kind: "list", op };
  }
  throw new StudioValidationError(
    `operations[${i}]`,
    "is not a get, put, search or listNamespaces operation",
  );
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || (value as number) < min) {
    throw new StudioValidationError(
      field,
      `must be an integer of at least ${min} (got ${String(value)})`,
    );
  }
}
