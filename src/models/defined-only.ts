/**
 * An object without its undefined members: request bodies and options carry only what the caller
 * set. Its own module so that `params` and `requests` share it without importing each other.
 */
export function definedOnly<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
}
