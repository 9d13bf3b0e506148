/**
 * What `search` and `listNamespaces` answer, as InMemoryStore answers it: filters, namespace match
 * conditions, the order and pages of namespaces, the texts that are embedded and the ranking by
 * similarity. Pure functions over values already read; README says where they differ from it.
 */
import type { ListNamespacesOperation, MatchCondition } from "@langchain/langgraph-checkpoint";
import { StudioValidationError } from "../errors";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

function isOperators(filter: unknown): filter is Record<string, unknown> {
  return (
    typeof filter === "object" &&
    filter !== null &&
    !Array.isArray(filter) &&
    Object.keys(filter).every((key) => OPERATORS.has(key))
  );
}

/**
 * Equal as JSON values. InMemoryStore compares with `===`, so an object or array in a filter never
 * matches there; here it matches an equal value, as the database stores' JSON comparison does.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (key) =>
        Object.hasOwn(b, key) &&
        sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

function matchesOne(actual: unknown, filter: unknown): boolean {
  if (!isOperators(filter)) return sameJson(actual, filter);
  return Object.entries(filter).every(([operator, operand]) => {
    switch (operator) {
      case "$eq":
        return sameJson(actual, operand);
      case "$ne":
        return !sameJson(actual, operand);
      case "$gt":
        return Number(actual) > Number(operand);
      case "$gte":
        return Number(actual) >= Number(operand);
      case "$lt":
        return Number(actual) < Number(operand);
      case "$lte":
        return Number(actual) <= Number(operand);
      case "$in":
        return Array.isArray(operand) && operand.some((option) => sameJson(actual, option));
      default: // $nin
        return !Array.isArray(operand) || !operand.some((option) => sameJson(actual, option));
    }
  });
}

/** Whether an item's value passes a search filter (top-level fields, `$eq`...`$nin`). */
export function matchesFilter(
  value: Record<string, unknown>,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (filter === undefined || filter === null) return true;
  return Object.entries(filter).every(([field, expected]) => matchesOne(value[field], expected));
}

/** Whether a namespace meets a `listNamespaces` condition ("*" matches any one label). */
export function matchesCondition(namespace: readonly string[], condition: MatchCondition): boolean {
  const { matchType, path } = condition;
  if (matchType !== "prefix" && matchType !== "suffix") {
    throw new StudioValidationError(
      "matchConditions.matchType",
      `must be "prefix" or "suffix" (got ${JSON.stringify(matchType)})`,
    );
  }
  if (path.length > namespace.length) return false;
  const start = matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === "*" || label === namespace[start + i]);
}

/** The labels of a prefix condition before its first wildcard: where a listing can start. */
export function fixedPrefix(conditions: readonly MatchCondition[] | undefined): string[] {
  const prefix = conditions?.find((condition) => condition.matchType === "prefix")?.path ?? [];
  const wildcard = prefix.indexOf("*");
  return prefix.slice(0, wildcard === -1 ? prefix.length : wildcard);
}

/**
 * The page of namespaces a `listNamespaces` answers: those meeting every condition, cut to
 * `maxDepth` labels (duplicates then merged), sorted by their labels joined with ":" as
 * InMemoryStore sorts them (`localeCompare`), from `offset`, at most `limit`.
 */
export function pickNamespaces(
  namespaces: readonly (readonly string[])[],
  op: ListNamespacesOperation,
): string[][] {
  let picked = namespaces.filter((namespace) =>
    (op.matchConditions ?? []).every((condition) => matchesCondition(namespace, condition)),
  );
  if (op.maxDepth !== undefined) {
    const byJson = new Map<string, readonly string[]>();
    for (const namespace of picked) {
      const cut = namespace.slice(0, op.maxDepth);
      byJson.set(JSON.stringify(cut), cut);
    }
    picked = [...byJson.values()];
  }
  const sorted = picked.map((namespace) => [...namespace]);
  sorted.sort((a, b) => a.join(":").localeCompare(b.join(":")));
  const offset = op.offset ?? 0;
  return sorted.slice(offset, offset + (op.limit ?? sorted.length));
}

/**
 * Splits a field path into tokens: `a.b[0].{c,d}` gives `a`, `b`, `[0]`, `{c,d}`. Brackets and
 * braces nest, so a token never ends inside one.
 */
export function tokenizeFieldPath(path: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of path) {
    if (depth === 0 && (char === "[" || char === "{") && current !== "") {
      tokens.push(current);
      current = "";
    }
    if (char === "[" || char === "{") depth += 1;
    if (char === "]" || char === "}") depth -= 1;
    if (depth === 0 && char === ".") {
      if (current !== "") tokens.push(current);
      current = "";
      continue;
    }
    current += char;
    if (depth === 0 && (char === "]" || char === "}")) {
      tokens.push(current);
      current = "";
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

/** A value as the text embedded for it: scalars as strings, objects and arrays as JSON. */
function asText(value: unknown): string[] {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return [String(value)];
  }
  if (typeof value === "object" && value !== null) return [JSON.stringify(value, null, 2)];
  return [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * The texts at a field path of a value, as InMemoryStore embeds them: `$` is the whole value,
 * `a.b` a nested field, `[2]`, `[-1]` and `[*]` array items, `*` every field, `{a,b.c}` several
 * fields.
 */
export function textsAtPath(value: unknown, path: string): string[] {
  if (path === "" || path === "$") return [JSON.stringify(value, null, 2)];
  const tokens = tokenizeFieldPath(path);
  const walk = (node: unknown, at: number): string[] => {
    if (at === tokens.length) return asText(node);
    const token = tokens[at]!;
    if (token.startsWith("[") && token.endsWith("]")) {
      if (!Array.isArray(node)) return [];
      const index = token.slice(1, -1);
      if (index === "*") return node.flatMap((item) => walk(item, at + 1));
      const n = Number.parseInt(index, 10);
      const position = n < 0 ? node.length + n : n;
      return Number.isInteger(position) && position >= 0 && position < node.length
        ? walk(node[position], at + 1)
        : [];
    }
    if (token.startsWith("{") && token.endsWith("}")) {
      if (!isRecord(node)) return [];
      return token
        .slice(1, -1)
        .split(",")
        .flatMap((field) => {
          let found: unknown = node;
          for (const part of tokenizeFieldPath(field.trim())) {
            found = isRecord(found) && part in found ? found[part] : undefined;
            if (found === undefined) return [];
          }
          return asText(found);
        });
    }
    if (token === "*") {
      const items = Array.isArray(node) ? node : isRecord(node) ? Object.values(node) : [];
      return items.flatMap((item) => walk(item, at + 1));
    }
    return isRecord(node) && token in node ? walk(node[token], at + 1) : [];
  };
  return walk(value, 0);
}

/** Cosine similarity; 0 when either vector is all zeros. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < b.length; i++) dot += b[i]! * (a[i] ?? 0);
  const magnitudeA = Math.sqrt(a.reduce((sum, x) => sum + x * x, 0));
  const magnitudeB = Math.sqrt(b.reduce((sum, x) => sum + x * x, 0));
  return magnitudeA === 0 || magnitudeB === 0 ? 0 : dot / (magnitudeA * magnitudeB);
}

export interface Scored<T> {
  item: T;
  score: number | undefined;
}

/**
 * A page of `candidates` ranked by their best vector's similarity to `query`, as InMemoryStore
 * ranks them: best first (ties keep the candidates' order), `offset` and `limit` counted over
 * distinct items; when the page is short, candidates without vectors fill it, unscored.
 */
export function rankBySimilarity<T>(
  candidates: readonly { item: T; vectors: readonly (readonly number[])[] }[],
  query: readonly number[],
  offset: number,
  limit: number,
): Scored<T>[] {
  const scored: { index: number; score: number }[] = [];
  const unscored: number[] = [];
  candidates.forEach(({ vectors }, index) => {
    if (vectors.length === 0) unscored.push(index);
    for (const vector of vectors) scored.push({ index, score: cosineSimilarity(query, vector) });
  });
  scored.sort((a, b) => b.score - a.score);
  const seen = new Set<number>();
  const page: { index: number; score: number | undefined }[] = [];
  for (const { index, score } of scored) {
    if (seen.has(index)) continue;
    if (seen.size >= offset + limit) break;
    if (seen.size >= offset) page.push({ index, score });
    seen.add(index);
  }
  for (const index of unscored.slice(0, Math.max(0, limit - page.length))) {
    page.push({ index, score: undefined });
  }
  return page.map(({ index, score }) => ({ item: candidates[index]!.item, score }));
}
