/**
 * Which store namespaces a user may reach through the store routes (the `storeNamespaces`
 * option). By default each user's namespaces start with their own user id (`["ada", "notes"]`
 * is Ada's), the namespace a graph builds from `config.configurable.langgraph_auth_user_id`, so
 * the page reads what the user's runs wrote and nobody else's. Without `auth` there is one user
 * and every namespace is theirs.
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { HttpProblem } from "./http";

useEnglishMessages();

/**
 * `"user"` (default): a user's namespaces start with their user id. `"shared"`: every user
 * reaches every namespace. A function: whether the user may reach the namespace (read or write);
 * search and namespace lists show only the namespaces it allows.
 */
export type AgentServerStoreNamespaces =
  | "user"
  | "shared"
  | ((userId: string, namespace: readonly string[]) => boolean);

export const storeNamespacesSchema = z.custom<AgentServerStoreNamespaces>(
  (value) => value === "user" || value === "shared" || typeof value === "function",
  { error: 'must be "user", "shared" or a function (userId, namespace) => boolean' },
);

/** The rule of one server: checks a namespace, scopes a search prefix, filters results. */
export interface StoreAccess {
  /** Refuses (403) a namespace the user may not reach. */
  check(owner: string, namespace: readonly string[], field: string): void;
  /** The prefix a search or namespace list runs under (an empty one is the user's own). */
  scope(owner: string, prefix: readonly string[], field: string): string[];
  /** Whether a namespace found by a search or list is shown to the user. */
  shows(owner: string, namespace: readonly string[]): boolean;
}

function outside(owner: string, namespace: readonly string[], field: string): HttpProblem {
  return new HttpProblem(
    403,
    "Forbidden",
    `${field}: ${JSON.stringify(namespace)} is not yours: each user's store namespaces start ` +
      `with their user id; use ${JSON.stringify([owner, ...namespace.slice(1)])}`,
  );
}

export function storeAccess(
  option: AgentServerStoreNamespaces | undefined,
  auth: boolean,
): StoreAccess {
  if (!auth || option === "shared") {
    return { check: () => {}, scope: (_o, prefix) => [...prefix], shows: () => true };
  }
  if (typeof option === "function") {
    return {
      check(owner, namespace, field) {
        if (option(owner, namespace) === true) return;
        throw new HttpProblem(
          403,
          "Forbidden",
          `${field}: ${JSON.stringify(namespace)} is not open to you (the server's ` +
            "storeNamespaces rule)",
        );
      },
      scope: (_o, prefix) => [...prefix],
      shows: (owner, namespace) => option(owner, namespace) === true,
    };
  }
  return {
    check(owner, namespace, field) {
      if (namespace[0] !== owner) throw outside(owner, namespace, field);
    },
    scope(owner, prefix, field) {
      if (prefix.length === 0) return [owner];
      if (prefix[0] !== owner) throw outside(owner, prefix, field);
      return [...prefix];
    },
    shows: (owner, namespace) => namespace[0] === owner,
  };
}
