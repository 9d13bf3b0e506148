/**
 * `langchain-studio/server` loads Web APIs only: bundled for the browser platform (what Workers,
 * Deno and edge runtimes accept), with the LangChain peers left external, it builds with no error
 * and imports no Node built-in, and its only outside imports are the peers.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/run-command";

describe("langchain-studio/server is portable", () => {
  it("bundles for the browser platform with only the LangChain peers external", async () => {
    const result = await build({
      entryPoints: [join(REPO_ROOT, "src", "server", "index.ts")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
      external: ["@langchain/*"],
    });
    expect(result.errors).toEqual([]);
    const imports = Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.map((i) => i.path),
    );
    const outside = [
      ...new Set(
        imports.filter(
          (path) =>
            !path.startsWith(".") &&
            !path.startsWith("/") &&
            !path.includes("node_modules") &&
            !path.startsWith("src/"),
        ),
      ),
    ];
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(outside.filter((path) => builtins.has(path))).toEqual([]);
    // The checkpoint package comes with the encrypting serializer (`keyRing`), core's tool
    // converter with the service's assistants (`assistants`: a tool's schema as the service
    // stores it); all are peers (core is LangGraph's own peer, so always installed beside it).
    expect(outside.sort()).toEqual([
      "@langchain/core/utils/function_calling",
      "@langchain/langgraph-checkpoint",
      "@langchain/langgraph/web",
    ]);
  });
});
