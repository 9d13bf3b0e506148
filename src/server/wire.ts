/**
 * Values as the SDK reads them: LangChain messages become `{ ...fields, type }` (their `toDict`
 * form), dates ISO strings; everything else as JSON would have it.
 */
interface DictMessage {
  toDict(): { type: string; data: Record<string, unknown> };
}

function isDictMessage(value: unknown): value is DictMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toDict?: unknown }).toDict === "function"
  );
}

export function toWire(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (isDictMessage(value)) {
    const { type, data } = value.toDict();
    return toWire({ ...data, type });
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toWire);
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return toWire((value as { toJSON(): unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[key] = toWire(item);
  }
  return out;
}

/** The JSON text of a value in its wire form. */
export function wireJson(value: unknown): string {
  return JSON.stringify(toWire(value) ?? null);
}

/**
 * `JSON.stringify`'s replacer for the wire form: `JSON.stringify(value, wireReplacer)` is
 * `wireJson(value)` without the copy `toWire` makes first (a protocol v2 event is written once,
 * and the copy was a fiftieth of a run's CPU). A message is read from its holder, before the
 * `toJSON` (LangChain's serialized form) that `JSON.stringify` applies.
 */
export function wireReplacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (!isDictMessage(original)) return value;
  const { type, data } = original.toDict();
  return { ...data, type };
}
