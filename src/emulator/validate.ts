/**
 * Request checks of the emulator. Each failure is a 400 whose message starts with the field's
 * dotted path, so callers (and our client's tests) see exactly what to fix. Hand-written rather
 * than zod: these run on every completion, the hot path of the benchmark.
 */
import { METADATA_LIMITS } from "../api-types";
import { invalid } from "./http-error";

export type Json = Record<string, unknown>;

export const MODEL_URI = /^[^\s/]+\/[^\s]+$/;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireBodyObject(body: unknown): Json {
  if (body === undefined) return {};
  if (!isObject(body)) throw invalid("request body", "must be a JSON object", "invalid_body");
  return body;
}

export function describe(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

export function requiredString(obj: Json, key: string, path = key): string {
  const value = obj[key];
  if (value === undefined || value === null) throw invalid(path, "is required", "missing_field");
  if (typeof value !== "string") throw invalid(path, `must be a string (got ${describe(value)})`);
  return value;
}

export function optionalString(obj: Json, key: string, path = key): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalid(path, `must be a string (got ${describe(value)})`);
  return value;
}

export function optionalBoolean(obj: Json, key: string, path = key): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalid(path, `must be a boolean (got ${describe(value)})`);
  return value;
}

/** A finite number within [min, max] (`minExclusive` turns the lower bound into `>`). */
export function optionalNumber(
  obj: Json,
  key: string,
  range: { min?: number; max?: number; minExclusive?: boolean; text?: string } = {},
  path = key,
): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  const text = range.text ?? rangeText(range);
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw invalid(path, `must be a number${text ? ` ${text}` : ""} (got ${describe(value)})`);
  }
  const { min, max, minExclusive } = range;
  const low = min === undefined ? false : minExclusive ? value <= min : value < min;
  const high = max === undefined ? false : value > max;
  if (low || high) throw invalid(path, `must be ${text} (got ${value})`);
  return value;
}

export function optionalInteger(
  obj: Json,
  key: string,
  range: { min?: number; max?: number } = {},
  path = key,
): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  const { min, max } = range;
  const text =
    min !== undefined && max !== undefined
      ? `an integer between ${min} and ${max}`
      : min !== undefined
        ? `an integer >= ${min}`
        : "an integer";
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw invalid(path, `must be ${text} (got ${describe(value)})`);
  }
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    throw invalid(path, `must be ${text} (got ${value})`);
  }
  return value;
}

function rangeText(range: { min?: number; max?: number; minExclusive?: boolean }): string {
  const { min, max, minExclusive } = range;
  if (min !== undefined && max !== undefined) {
    return minExclusive ? `in (${min}, ${max}]` : `between ${min} and ${max}`;
  }
  if (min !== undefined) return minExclusive ? `> ${min}` : `>= ${min}`;
  if (max !== undefined) return `<= ${max}`;
  return "";
}

/** The notes' metadata limits: string values, <= 16 keys, keys <= 64, values <= 512 chars. */
export function optionalMetadata(obj: Json, key: string, path = key): Record<string, string> {
  const value = obj[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid(path, "must be an object of string values");
  const entries = Object.entries(value);
  if (entries.length > METADATA_LIMITS.maxKeys) {
    throw invalid(
      path,
      `has ${entries.length} keys; at most ${METADATA_LIMITS.maxKeys} are allowed`,
      "too_many_keys",
    );
  }
  for (const [k, v] of entries) {
    if (k.length > METADATA_LIMITS.maxKeyLength) {
      throw invalid(
        `${path}.${k.slice(0, 20)}...`,
        `key is ${k.length} characters; at most ${METADATA_LIMITS.maxKeyLength} are allowed`,
        "key_too_long",
      );
    }
    if (typeof v !== "string")
      throw invalid(`${path}.${k}`, `must be a string (got ${describe(v)})`);
    if (v.length > METADATA_LIMITS.maxValueLength) {
      throw invalid(
        `${path}.${k}`,
        `value is ${v.length} characters; at most ${METADATA_LIMITS.maxValueLength} are allowed`,
        "value_too_long",
      );
    }
  }
  // fromEntries keeps every key an own property: `out[k] = v` would turn `__proto__` into the
  // prototype and lose it.
  return Object.fromEntries(entries) as Record<string, string>;
}

export function optionalObject(obj: Json, key: string, path = key): Json | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid(path, `must be an object (got ${describe(value)})`);
  return value;
}

export function optionalArray(obj: Json, key: string, path = key): unknown[] | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid(path, `must be an array (got ${describe(value)})`);
  return value;
}
