/**
 * One line of user-facing text per field of each options schema, registered beside the schema.
 * The docs pages' options tables are rendered from these and the schemas themselves (types,
 * defaults), and a test fails when a page's table differs (scripts/docs-options.ts rewrites
 * them). The descriptions are typed by the schema's keys, so a field added to a schema does not
 * compile until it is described.
 *
 * Kept apart from the schemas' zod metadata on purpose: some field schemas are shared instances
 * (a store's two TTL minute fields), and a description registered on one would name the other.
 */

/** A field's description, by its name: `timeout`, or a nested field as `ttl.defaultTTL`. */
export type FieldDescriptions<K extends string> = { readonly [Name in K]: string } & {
  readonly [nested: `${string}.${string}`]: string;
};

/** The described field names of a zod object (its shape's keys) or of a plain table's keys. */
export type FieldName<T> = T extends { shape: infer S } ? keyof S & string : keyof T & string;

export interface DescribedFields {
  /** The schema (or settings table) the descriptions belong to. */
  readonly target: object;
  readonly descriptions: Readonly<Record<string, string>>;
}

const registered = new Map<string, DescribedFields>();

/**
 * Registers `descriptions` of `target`'s fields under `id` (the docs' marker name: `client`
 * renders between `<!-- options:client:start -->` and `<!-- options:client:end -->`).
 */
export function describeFields<T extends object>(
  id: string,
  target: T,
  descriptions: FieldDescriptions<FieldName<T>>,
): void {
  registered.set(id, { target, descriptions });
}

/**
 * Like `describeFields`, for a schema whose fields sit inside a pipe (no `shape` to type them by):
 * `K` names them.
 */
export function describePipedFields<K extends string>(
  id: string,
  target: object,
  descriptions: FieldDescriptions<K>,
): void {
  registered.set(id, { target, descriptions });
}

/** What was registered under `id`, if anything. */
export function describedFields(id: string): DescribedFields | undefined {
  return registered.get(id);
}

/** Every id descriptions are registered under, in registration order. */
export function describedIds(): string[] {
  return [...registered.keys()];
}
