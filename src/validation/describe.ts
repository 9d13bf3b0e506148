/** How an error message shows a rejected value: the three wordings the rooms' texts use. */

/** A rejected value as an error message shows it. */
export type Describe = (value: unknown) => string;

/** A short, safe description of a rejected value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/** `typeof`: what the history's older messages named ("got number"). */
export const typeName: Describe = (value) => typeof value;
/** `String(value)`: the number or value as written ("got 1.5"). */
export const asWritten: Describe = (value) => String(value);
/** A short, quoted description ("got \"abc\""), as the dataset room writes it. */
export const described: Describe = describeValue;
