/**
 * Keeping the API key out of everything an error carries. One module, used by every error path:
 * `StudioError` runs its message (and so its stack) through `redactText`, the error factories run
 * parsed bodies and header records through `redactDeep`, and causes go through `redactCause`.
 *
 * A server can echo the key in more forms than the raw one: JSON-escaped (`\u0073\u006b...`,
 * `\/`), percent-encoded (a `Location` header), as an HTML character reference, or cut short by
 * its own or our truncation. So the rule is not "the key is not there" but "no piece of the key of
 * `FRAGMENT` characters is there", checked on the text as given and on the text with those
 * encodings undone. Redacting pieces rather than the whole key is also what makes the order of
 * redaction and truncation harmless: a key cut anywhere still leaves a piece to find.
 */

export const REDACTED = "[REDACTED]";

/** Shortest piece of a key that is redacted (a shorter key is redacted only whole). */
const FRAGMENT = 12;
/** Keys shorter than this are not worth the false positives (a key that short is not a key). */
const MIN_SECRET = 4;
/** Nesting below this depth (in a body, or a chain of causes) is replaced, not walked. */
const MAX_DEPTH = 64;

/** Every `FRAGMENT`-long piece of every registered key (or the whole key, when shorter). */
const pieces = new Set<string>();
const pieceLengths = new Set<number>();

/** Registers a secret so that it is scrubbed from every error built afterwards. */
export function registerSecret(secret: string | undefined): void {
  if (typeof secret !== "string" || secret.length < MIN_SECRET) return;
  const size = Math.min(FRAGMENT, secret.length);
  pieceLengths.add(size);
  for (let i = 0; i + size <= secret.length; i++) pieces.add(secret.slice(i, i + size));
}

/**
 * The spans of `text` made of key pieces, merged. A span is a run of overlapping pieces, so the
 * whole echoed key (or any cut of it at least `FRAGMENT` long) is one span.
 */
function secretSpans(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const size of pieceLengths) {
    for (let i = 0; i + size <= text.length; i++) {
      if (pieces.has(text.slice(i, i + size))) found.push([i, i + size]);
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const spans: [number, number][] = [];
  for (const [start, end] of found) {
    const last = spans[spans.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end]);
  }
  return spans;
}

/** `text` with every span of key pieces replaced by the placeholder. */
function replaceSpans(text: string, spans: [number, number][]): string {
  let out = "";
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * One round of undoing the encodings a server may wrap an echoed key in: percent-encoding,
 * JSON string escapes and HTML numeric character references. Malformed sequences stay as they are.
 */
function decodeOnce(text: string): string {
  return text
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    })
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\([\\/"'])/g, "$1")
    .replace(/&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));/g, (whole, hex?: string, dec?: string) => {
      const code = hex ? Number.parseInt(hex, 16) : Number(dec);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

/** A string with every piece of a registered key, in any of the forms above, redacted. */
export function redactText(text: string): string {
  if (pieces.size === 0 || text.length === 0) return text;
  // Encodings can nest (a JSON string inside a percent-encoded URL); a few rounds undo them.
  let decoded = text;
  for (let round = 0; round < 3; round++) {
    const next = decodeOnce(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  if (decoded !== text) {
    // An encoded piece: the decoded text is shown, redacted (positions do not map back).
    const hidden = secretSpans(decoded);
    if (hidden.length > 0) return replaceSpans(decoded, hidden);
  }
  const spans = secretSpans(text);
  return spans.length === 0 ? text : replaceSpans(text, spans);
}

/**
 * A copy of `value` with every string in it (object keys included) redacted, or `value` itself
 * when nothing in it shows a key piece. Walks parsed JSON (error bodies), header records, and
 * errors (message, stack, own fields such as `code` or AggregateError's `errors`, and `cause`).
 * Any object graph is safe: shared objects are looked at once, cycles are cut, depth is bounded.
 */
export function redactDeep(value: unknown): unknown {
  if (pieces.size === 0 || !holds(value, new Set(), 0)) return value;
  return copyRedacted(value, new Map(), 0);
}

/** The same, for an error's `cause`: kept as it is (callers may match on it) unless it leaks. */
export function redactCause(cause: unknown): unknown {
  return redactDeep(cause);
}

/**
 * An error's message, stack and every own property (`cause`, `code`, AggregateError's `errors`).
 */
function errorParts(error: Error): [string, unknown][] {
  const parts: [string, unknown][] = [
    ["message", String(error.message)],
    ["stack", error.stack],
  ];
  for (const key of Object.getOwnPropertyNames(error)) {
    if (key !== "message" && key !== "stack") {
      parts.push([key, (error as unknown as Record<string, unknown>)[key]]);
    }
  }
  return parts;
}

function entriesOf(value: object): [string, unknown][] {
  return value instanceof Error ? errorParts(value) : Object.entries(value);
}

/** Does any string in `value` show a key piece? Too deep to look counts as yes. */
function holds(value: unknown, seen: Set<object>, depth: number): boolean {
  if (typeof value === "string") return redactText(value) !== value;
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  if (depth >= MAX_DEPTH) return true;
  seen.add(value);
  return entriesOf(value).some(
    ([key, item]) => redactText(key) !== key || holds(item, seen, depth + 1),
  );
}

/** A full copy with every string redacted; errors stay errors (name, fields and cause kept). */
function copyRedacted(value: unknown, done: Map<object, unknown>, depth: number): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value !== "object" || value === null) return value;
  if (done.has(value)) return done.get(value) ?? "[circular]";
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  done.set(value, undefined);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = value.map((item) => copyRedacted(item, done, depth + 1));
  } else if (value instanceof Error) {
    const error = new Error(redactText(String(value.message)));
    Object.defineProperty(error, "name", { value: value.name, writable: true, configurable: true });
    error.stack = typeof value.stack === "string" ? redactText(value.stack) : error.message;
    for (const [key, item] of errorParts(value).slice(2)) {
      Object.defineProperty(error, key, {
        value: copyRedacted(item, done, depth + 1),
        writable: true,
        configurable: true,
        enumerable: Object.prototype.propertyIsEnumerable.call(value, key),
      });
    }
    copy = error;
  } else {
    // fromEntries defines keys, so a `__proto__` key stays a key instead of becoming a prototype.
    copy = Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        redactText(key),
        copyRedacted(item, done, depth + 1),
      ]),
    );
  }
  done.set(value, copy);
  return copy;
}
