/**
 * No file in src/ imports one that imports it back (issue #27, STYLE.md "Data flows one way").
 * A cycle makes load order decide whether a binding is defined yet, and it is the first sign that
 * two rooms share a piece that belongs in a module below both.
 *
 * Type-only imports count too. They vanish at runtime, so they cannot leave a binding undefined,
 * but a module cycle is a design fault whichever kind of import closes it: both cycles #27 named
 * (`models/params` → `settings` → `requests` → `params`, `langgraph/channel-values` ↔ `records`)
 * were closed by type imports, and a check of runtime imports alone would have passed them. A
 * cycle closed only by type imports is labelled "(type-only)", so a report says which kind it is.
 *
 * The imports are read with TypeScript's own parser (already a dev dependency), so comments,
 * strings and multi-line import lists cannot fool it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../../src");

interface Edge {
  to: string;
  /** True when the import is erased at runtime (`import type`, or only `type` names). */
  typeOnly: boolean;
}

type Graph = Map<string, Edge[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `./x` → `x.ts`, `./dir` → `dir/index.ts`, `./x.js` → `x.ts` (bundler resolution, as tsconfig). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier);
  const candidates = [
    base,
    `${base}.ts`,
    join(base, "index.ts"),
    base.replace(/\.[cm]?js$/, ".ts"),
  ];
  return candidates.find((path) => path.endsWith(".ts") && isFile(path));
}

/** Every relative module a file names: import and export declarations and `import("...")`. */
function relativeImports(file: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter(({ specifier }) => specifier.startsWith("."));
}

function importGraph(): { graph: Graph; unresolved: string[] } {
  const graph: Graph = new Map();
  const unresolved: string[] = [];
  const name = (path: string) => relative(SRC, path).replaceAll("\\", "/");
  for (const file of sourceFiles(SRC)) {
    const edges = new Map<string, Edge>();
    for (const { specifier, typeOnly } of relativeImports(file)) {
      const target = resolveRelative(file, specifier);
      if (target === undefined) {
        unresolved.push(`${name(file)}: "${specifier}"`);
        continue;
      }
      const to = name(target);
      // A module imported both ways is a runtime edge.
      const seen = edges.get(to);
      edges.set(to, { to, typeOnly: (seen?.typeOnly ?? true) && typeOnly });
    }
    graph.set(name(file), [...edges.values()]);
  }
  return { graph, unresolved };
}

/**
 * Every elementary cycle, each listed once from its alphabetically first file
 * (`a.ts → b.ts → a.ts`), with " (type-only)" when only type imports close it. The search starts
 * a walk at each file and only visits files after it in order, so each cycle is found once; src/
 * is small and nearly acyclic, so the walk stays small (and stops at `limit` cycles anyway).
 */
function findCycles(graph: Graph, limit = 100): string[] {
  const files = [...graph.keys()].sort();
  const cycles: string[] = [];
  for (const start of files) {
    const path: string[] = [start];
    const typeOnlyEdges: boolean[] = [];
    const onPath = new Set([start]);
    const walk = (file: string): void => {
      for (const { to, typeOnly } of graph.get(file) ?? []) {
        if (cycles.length >= limit) return;
        if (to === start) {
          const kind = [...typeOnlyEdges, typeOnly].some(Boolean) ? " (type-only)" : "";
          cycles.push(`${[...path, start].join(" → ")}${kind}`);
        } else if (to > start && !onPath.has(to)) {
          path.push(to);
          typeOnlyEdges.push(typeOnly);
          onPath.add(to);
          walk(to);
          onPath.delete(to);
          typeOnlyEdges.pop();
          path.pop();
        }
      }
    };
    walk(start);
  }
  return cycles;
}

/**
 * The rooms of src/ (a folder, or a top-level file such as `validation.ts`) and which other rooms
 * each may import, with the reason (STYLE.md: "No room imports a sibling"; code two rooms use gets
 * a room below both). An import between rooms that is not listed here fails the test below: add
 * the edge with its reason, or move the shared piece into a room below both. A room not named
 * here may import nothing from another room. Delete an entry when its last import goes.
 */
const ROOM_EDGES: Record<string, Record<string, string>> = {
  "api-types": {
    "zod-locale": "the wire schemas are zod mini, which needs English messages set",
  },
  "zod-locale": {},
  errors: {},
  validation: {
    "api-types": "metadata limits are the spec's (METADATA_LIMITS)",
    errors: "a failed check is a StudioValidationError",
    "zod-locale": "the field schemas are zod mini",
  },
  records: {
    "api-types": "records are read from and built as thread messages, the wire shapes",
    errors: "an unreadable or newer record is a typed error",
    validation: "record fields are checked with the one field-check kit",
    "zod-locale": "one zod mini schema per kind and format",
  },
  client: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "requests and responses are the wire shapes",
    errors: "failed calls become typed errors (fromResponse)",
    validation: "options are parsed with parseOrThrow; model URIs share one pattern",
    "zod-locale": "the options schema is zod mini",
  },
  converters: {
    "api-types": "they convert to and from the wire shapes",
    errors: "an unconvertible value is a typed error",
    records: "thread metadata is stored through the record layer's envelope",
  },
  models: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "the settings table names wire fields",
    client: "ChatStudio and StudioLLM call through the client; serialization lists its options",
    errors: "bad settings are typed errors",
    validation: "sampling ranges and model URIs are checked once, in the kit",
    "zod-locale": "the settings schemas are zod mini",
  },
  chat_models: {
    "api-types": "chat completions are wire shapes",
    client: "the model calls the service through the client",
    converters: "messages, tools and usage are converted, not built here",
    errors: "typed errors",
    models: "the settings and request body ChatStudio shares with StudioLLM",
  },
  llms: {
    "api-types": "completions are wire shapes",
    client: "the LLM calls the service through the client",
    converters: "usage and completions are converted, not built here",
    errors: "typed errors",
    models: "the settings and request body StudioLLM shares with ChatStudio",
  },
  crypto: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    validation: "fields are checked with the one field-check kit",
    converters: "keys and envelopes are base64, converted in one place",
    errors: "a wrong key or a tampered envelope is a typed error",
    threads: "the key ring's fields are parsed with the storage rooms' field helpers",
    "zod-locale": "the key ring schema is zod mini",
  },
  threads: {
    "api-types": "threads and messages are wire shapes",
    client: "thread storage calls the service through the client",
    converters: "stored messages are encoded by the thread-message converters",
    errors: "typed errors",
    records: "what threads store goes through the record layer",
    validation: "metadata rules and value descriptions come from the kit",
    "zod-locale": "the field schemas are zod mini",
  },
  chat_history: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    validation: "fields are checked with the one field-check kit",
    "api-types": "thread messages are wire shapes",
    client: "the history is built over a client",
    converters: "messages are stored in their encoded form",
    errors: "typed errors",
    records: "history messages are records of the record layer",
    threads: "session lookup, confirmed writes and backoff are shared with the checkpointer",
    "zod-locale": "the fields schema is zod mini",
  },
  langgraph: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "threads and messages are wire shapes",
    client: "the saver is built over a client",
    converters: "checkpoint values are base64 in stored records",
    crypto: "records are sealed when the serde encrypts",
    errors: "typed errors",
    records: "checkpoint records are records of the record layer",
    store: "the ./langgraph subpath re-exports StudioStore beside the saver (index.ts only)",
    threads: "session lookup, confirmed writes, serial queue and backoff are shared",
    validation: "saver fields are checked with the kit",
    "zod-locale": "the fields schema is zod mini",
  },
  store: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    validation: "fields are checked with the one field-check kit",
    "api-types": "namespace threads are wire shapes",
    client: "the store is built over a client",
    converters: "values are base64 and codec keys are the thread-metadata converter's",
    crypto: "payloads are sealed when the serde encrypts",
    errors: "typed errors",
    records: "store records are records of the record layer",
    threads: "confirmed writes, serial queue and backoff are shared with the other memories",
    "zod-locale": "the fields schema is zod mini",
  },
  datasets: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "datasets and thread messages are wire shapes",
    client: "the recorder and the export call the service through the client",
    converters: "recorded messages are encoded as the history encodes them",
    errors: "typed errors",
    models: "token estimates for the fine-tuning record checks",
    threads: "the recorder writes threads as the history does (batches, backoff, call ids)",
    validation: "record fields are checked with the kit",
    "zod-locale": "the record schemas are zod mini",
  },
  assistants: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "assistants are wire shapes",
    client: "assistants are created and read through the client",
    converters: "assistant tools are converted from LangChain tools",
    errors: "typed errors",
    validation: "assistant fields and sampling ranges are checked with the kit",
    "zod-locale": "the fields schema is zod mini",
  },
  agents: {
    "field-docs": "fields are described beside their schema, for the docs' options tables",
    "api-types": "assistants and their tools are wire shapes",
    assistants: "an agent is loaded from an assistant on the service",
    chat_models: "the agent's model is a ChatStudio",
    client: "the agent loads its assistant through the client",
    converters: "assistant tools are matched to LangChain tools",
    errors: "typed errors",
    models: "model references resolve against the service's model list",
    validation: "agent parameters are checked with the kit",
    "zod-locale": "the parameter schemas are zod mini",
  },
  server: {
    assistants: "a service assistant created through the API gets the assistants room's checks",
    converters: "a service assistant's tools are named as the assistant-tool converter names them",
    validation: "fields are checked with the one field-check kit",
    "api-types": "the chat-UI handler reads service threads",
    client: "the handler is built over a client",
    errors: "service errors become HTTP answers",
    records: "thread snapshots are records of the record layer",
    threads: "thread metadata keys and the service identity are shared with the memories",
    crypto: "each user's checkpoints and store values are sealed with their key ring (keyRing)",
    "zod-locale": "the request schemas are zod mini",
    "field-docs": "fields are described beside their schema, for the docs' options tables",
  },
  emulator: {
    "api-types": "the emulator imports only the wire types, never the client or the models",
  },
  index: {
    "api-types": "the public surface re-exports the wire types",
    assistants: "re-exports the assistant helpers",
    chat_history: "re-exports StudioChatMessageHistory",
    chat_models: "re-exports ChatStudio",
    client: "re-exports StudioClient and its option types",
    datasets: "re-exports the dataset helpers",
    errors: "re-exports the error classes",
    llms: "re-exports StudioLLM",
    threads: "re-exports StudioWriteNotConfirmedError",
  },
};

/** The room of a file under src/: its top folder, or the file's name for a top-level file. */
function roomOf(file: string): string {
  const [first = "", ...rest] = file.split("/");
  return rest.length > 0 ? first : first.replace(/\.ts$/, "");
}

/** Imports between rooms that ROOM_EDGES does not allow, as `a → b (file imports target)`. */
function forbiddenRoomEdges(
  graph: Graph,
  allowed: Record<string, Record<string, string>>,
): string[] {
  const found = new Map<string, string>();
  for (const [file, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const from = roomOf(file);
    for (const { to } of edges) {
      const target = roomOf(to);
      const edge = `${from} → ${target}`;
      if (target === from || allowed[from]?.[target] !== undefined || found.has(edge)) continue;
      found.set(edge, `${edge} (${file} imports ${to})`);
    }
  }
  return [...found.values()];
}

describe("import graph of src/", () => {
  const { graph, unresolved } = importGraph();

  it("resolves every relative import to a file in src/ (else a cycle could hide)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(unresolved).toEqual([]);
  });

  it("has no import cycle", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("imports between rooms only along the edges of ROOM_EDGES", () => {
    expect(forbiddenRoomEdges(graph, ROOM_EDGES)).toEqual([]);
  });

  it("the room check reports an edge not in the table, once, with a file that makes it", () => {
    const sample: Graph = new Map([
      [
        "store/a.ts",
        [
          { to: "threads/x.ts", typeOnly: false },
          { to: "store/b.ts", typeOnly: false },
        ],
      ],
      ["store/b.ts", [{ to: "chat_history/y.ts", typeOnly: true }]],
      ["store/c.ts", [{ to: "chat_history/z.ts", typeOnly: false }]],
      ["validation.ts", [{ to: "errors/index.ts", typeOnly: false }]],
    ]);
    expect(forbiddenRoomEdges(sample, { store: { threads: "shared" } })).toEqual([
      "store → chat_history (store/b.ts imports chat_history/y.ts)",
      "validation → errors (validation.ts imports errors/index.ts)",
    ]);
  });

  it("the cycle search reports a cycle as the file path that closes it", () => {
    const edge = (to: string, typeOnly = false): Edge => ({ to, typeOnly });
    const sample: Graph = new Map([
      ["a.ts", [edge("b.ts")]],
      ["b.ts", [edge("c.ts"), edge("d.ts")]],
      ["c.ts", [edge("a.ts")]],
      ["d.ts", [edge("b.ts", true)]],
      ["e.ts", [edge("a.ts")]],
    ]);
    expect(findCycles(sample)).toEqual([
      "a.ts → b.ts → c.ts → a.ts",
      "b.ts → d.ts → b.ts (type-only)",
    ]);
  });
});
