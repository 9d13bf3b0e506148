/**
 * Unknown option names refused, with the name the caller probably meant: a misspelt option is
 * otherwise dropped without a word, and a setting the user believes is on is off.
 */
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../errors";
import { useEnglishMessages } from "../zod-locale";
import { fieldPath } from "./parse";

useEnglishMessages();

/** What an object of options accepts, and how a refusal names it. */
export interface KnownKeys {
  /** Whose options they are, as the message says it: `is not a ${owner} option`. */
  owner: string;
  /** Every accepted key. */
  known: Iterable<string>;
  /** The names listed when no known name is close (default: every known one). */
  listed?: readonly string[];
  /** Known mistakes and what to say about each (e.g. another library's spelling). */
  hints?: Readonly<Record<string, string>>;
}

/** Optimal string alignment distance (a swap of two neighbours counts as one edit). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to `name`, ignoring case, when it is close: a few edits for its length
 * (one per three letters, at most three), or one name the start of the other (`maxAge` and
 * `maxAgeMs`, `modelName` and `model`), the shorter of at least four letters.
 */
export function closestName(
  name: string,
  known: Iterable<string>,
  options: { prefixes?: boolean } = {},
): string | undefined {
  const lower = name.toLowerCase();
  const allowed = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const [short, long] = lower.length <= other.length ? [lower, other] : [other, lower];
    const prefix = options.prefixes !== false && short.length >= 4 && long.startsWith(short);
    const distance = editDistance(lower, other);
    if (distance > allowed && !prefix) continue;
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Why `key` is refused, with the close known name or the list of known ones. */
export function unknownKeyMessage(key: string, spec: KnownKeys): string {
  const refused = `is not ${article(spec.owner)} ${spec.owner} option`;
  const hint = Object.hasOwn(spec.hints ?? {}, key) ? spec.hints![key] : undefined;
  if (hint !== undefined) return `${refused}; ${hint}`;
  const close = closestName(key, spec.known);
  if (close !== undefined) return `${refused}; did you mean "${close}"?`;
  const listed = spec.listed ?? [...spec.known];
  return `${refused} (known: ${listed.join(", ")})`;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** The first own key of `input` that `spec` does not know, if any. */
export function unknownKey(input: unknown, spec: KnownKeys): string | undefined {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return undefined;
  const known = new Set(spec.known);
  return Object.keys(input).find((key) => !known.has(key));
}

/** Throws the `StudioValidationError` naming the first unknown key of `input` (under `prefix`). */
export function refuseUnknownKeys(input: unknown, spec: KnownKeys, prefix = ""): void {
  const key = unknownKey(input, spec);
  if (key === undefined) return;
  throw new StudioValidationError(fieldPath([key], prefix), unknownKeyMessage(key, spec));
}

/**
 * `schema`, after a check that `input` holds only keys `spec` knows (the first unknown one is the
 * issue, at its own path, before any value is checked). For nested options (`ttl`).
 */
export function knownKeysOnly<T extends z.ZodMiniType>(schema: T, spec: KnownKeys) {
  const check = z.unknown().check((ctx) => {
    const key = unknownKey(ctx.value, spec);
    if (key === undefined) return;
    ctx.issues.push({
      code: "custom",
      input: (ctx.value as Record<string, unknown>)[key],
      path: [key],
      message: unknownKeyMessage(key, spec),
    });
  });
  return z.pipe(check, schema);
}
