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
/** Nesting below this depth in an error body is replaced, not walked (bounds the recursion). */
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
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
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
 * A copy of a parsed JSON value (an error body, a header record) with every string, keys
 * included, redacted. Returns the value itself when it holds nothing to redact. Shared objects
 * are walked once and cycles are cut, so any object graph is safe to pass.
 */
export function redactDeep(value: unknown): unknown {
  if (pieces.size === 0) return value;
  return redactValue(value, 0, new Map());
}

const IN_PROGRESS = Symbol("in progress");

function redactValue(value: unknown, depth: number, done: Map<object, unknown>): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value !== "object" || value === null) return value;
  const known = done.get(value);
  if (known === IN_PROGRESS) return "[circular]";
  if (known !== undefined) return known;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  done.set(value, IN_PROGRESS);
  let result: unknown = value;
  if (Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, depth + 1, done));
    if (items.some((item, i) => item !== value[i])) result = items;
  } else {
    let changed = false;
    // fromEntries defines keys, so a `__proto__` key stays a key instead of becoming a prototype.
    const copy = Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const safeKey = redactText(key);
        const safeItem = redactValue(item, depth + 1, done);
        if (safeKey !== key || safeItem !== item) changed = true;
        return [safeKey, safeItem];
      }),
    );
    if (changed) result = copy;
  }
  done.set(value, result);
  return result;
}

/** Causes are walked (and copied) this deep; a longer chain is cut there. */
const MAX_CAUSES = 8;

/** Own properties of an error other than the three every error has. */
function extraFields(error: Error): string[] {
  return Object.getOwnPropertyNames(error).filter(
    (key) => key !== "message" && key !== "stack" && key !== "cause",
  );
}

/** Does anything in this error or value show a key piece? Walks causes; too deep counts as yes. */
function holdsSecret(value: unknown, depth: number): boolean {
  if (depth >= MAX_CAUSES) return true;
  if (!(value instanceof Error)) return redactDeep(value) !== value;
  if (redactText(String(value.message)) !== String(value.message)) return true;
  if (typeof value.stack === "string" && redactText(value.stack) !== value.stack) return true;
  const fields = value as unknown as Record<string, unknown>;
  if (extraFields(value).some((key) => redactDeep(fields[key]) !== fields[key])) return true;
  return value.cause !== undefined && holdsSecret(value.cause, depth + 1);
}

/**
 * The cause to keep on an error: the cause itself when nothing in its chain shows a key piece
 * (so callers can still match on it), else a plain copy of the chain with everything redacted.
 */
export function redactCause(cause: unknown, depth = 0): unknown {
  if (pieces.size === 0 || !holdsSecret(cause, depth)) return cause;
  if (depth >= MAX_CAUSES) return "[cause chain cut]";
  if (!(cause instanceof Error)) return redactDeep(cause);
  const copy = new Error(redactText(String(cause.message)));
  const fields = cause as unknown as Record<string, unknown>;
  for (const key of extraFields(cause)) {
    Object.defineProperty(copy, key, {
      value: redactDeep(fields[key]),
      writable: true,
      configurable: true,
      enumerable: Object.prototype.propertyIsEnumerable.call(cause, key),
    });
  }
  if (!Object.hasOwn(cause, "name")) {
    Object.defineProperty(copy, "name", { value: cause.name, writable: true, configurable: true });
  }
  copy.stack = typeof cause.stack === "string" ? redactText(cause.stack) : String(copy.message);
  if (cause.cause !== undefined) copy.cause = redactCause(cause.cause, depth + 1);
  return copy;
}
