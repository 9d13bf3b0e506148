export * from "./api-types";
export type { FetchLike, RequestOptions, StudioClientOptions } from "./client/types";
export * from "./errors";
