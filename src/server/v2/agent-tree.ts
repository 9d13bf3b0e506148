/**
 * The agent tree of a thread's current run (`agent.getTree`): the root graph and every subgraph
 * namespace its events named, each with its latest lifecycle status. Fed by the thread's event
 * log; a new run (the root's "running") starts a new tree.
 */
import type { AgentStatus, AgentTreeNode } from "@langchain/protocol";

interface Node {
  namespace: string[];
  status: AgentStatus;
  graphName: string;
}

/** A namespace segment's graph: the part before the task id (`"draft:<task id>"`). */
function graphNameOf(namespace: readonly string[], rootName: string): string {
  const last = namespace.at(-1);
  if (last === undefined) return rootName;
  const colon = last.indexOf(":");
  return colon === -1 ? last : last.slice(0, colon);
}

const keyOf = (namespace: readonly string[]) => namespace.join("\u0000");

export class AgentTree {
  #nodes = new Map<string, Node>();
  #rootName = "root";

  /** Notes one event of the run (`method`, its namespace and data). */
  note(method: string, namespace: string[], data: unknown): void {
    if (method === "lifecycle") {
      const { event, graph_name } = (data ?? {}) as { event?: AgentStatus; graph_name?: string };
      if (namespace.length === 0 && event === "running") {
        this.#nodes = new Map();
        this.#rootName = graph_name ?? "root";
      }
      const existing = this.#nodes.get(keyOf(namespace));
      this.#nodes.set(keyOf(namespace), {
        namespace,
        status: event ?? existing?.status ?? "started",
        graphName: graph_name ?? existing?.graphName ?? graphNameOf(namespace, this.#rootName),
      });
      return;
    }
    if (method === "messages") return;
    for (let length = 1; length <= namespace.length; length++) {
      const partial = namespace.slice(0, length);
      if (this.#nodes.has(keyOf(partial))) continue;
      this.#nodes.set(keyOf(partial), {
        namespace: partial,
        status: "started",
        graphName: graphNameOf(partial, this.#rootName),
      });
    }
  }

  /** The tree from `namespace` down (the root by default). */
  tree(namespace: string[] = []): AgentTreeNode {
    const node = this.#nodes.get(keyOf(namespace)) ?? {
      namespace,
      status: "started" as const,
      graphName: graphNameOf(namespace, this.#rootName),
    };
    const children = [...this.#nodes.values()]
      .filter(
        (child) =>
          child.namespace.length === namespace.length + 1 &&
          namespace.every((segment, i) => child.namespace[i] === segment),
      )
      .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
      .map((child) => this.tree(child.namespace));
    return {
      namespace: node.namespace,
      status: node.status,
      graph_name: node.graphName,
      ...(children.length > 0 ? { children } : {}),
    };
  }
}
