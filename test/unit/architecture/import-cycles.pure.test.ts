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

describe("import graph of src/", () => {
  const { graph, unresolved } = importGraph();

  it("resolves every relative import to a file in src/ (else a cycle could hide)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(unresolved).toEqual([]);
  });

  it("has no import cycle", () => {
    expect(findCycles(graph)).toEqual([]);
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
