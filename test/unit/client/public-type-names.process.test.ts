/**
 * Issue #29: the public wire types show as their names (`Thread`, `ListResponse<ThreadMessage>`),
 * not as expanded zod shapes, wherever TypeScript writes a type a user did not: an editor's hover
 * and a declaration file both print an inferred type the same way. A probe that infers the result
 * of each client call is compiled with declaration output, in memory, over the real sources.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const PROBE = fileURLToPath(new URL("../../../src/__type-names-probe.ts", import.meta.url));

const PROBE_SOURCE = `
import { StudioClient } from "./client/index";
const client = new StudioClient({});
export const thread = client.getThread("t");
export const threads = client.listThreads();
export const message = client.createMessage("t", { role: "user", content: "hi" });
export const messages = client.listMessages("t");
export const assistant = client.getAssistant("a");
export const assistants = client.listAssistants();
export async function firstThread() {
  for await (const each of client.iterateThreads()) return each;
  return undefined;
}
`;

/** The declaration TypeScript writes for the probe, and any type error in it. */
function probeDeclaration(): { declaration: string; errors: string[] } {
  const options: ts.CompilerOptions = {
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === PROBE
      ? ts.createSourceFile(name, PROBE_SOURCE, language)
      : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === PROBE || fileExists(name);
  let declaration = "";
  host.writeFile = (name, text) => {
    if (name.endsWith("__type-names-probe.d.ts")) declaration = text;
  };
  const program = ts.createProgram([PROBE], options, host);
  const probe = program.getSourceFile(PROBE);
  program.emit(probe);
  const errors = ts
    .getPreEmitDiagnostics(program, probe)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  return { declaration, errors };
}

describe("public wire types keep their names", () => {
  it("Thread, ThreadMessage, Assistant and ListResponse<...> are written as names", () => {
    const { declaration, errors } = probeDeclaration();
    expect(errors).toEqual([]);
    const typeOf = (name: string) =>
      declaration.match(
        new RegExp(`declare (?:const ${name}|function ${name}\\(\\)): ([^;]+);`),
      )?.[1];
    expect(typeOf("thread")).toMatch(/^Promise<import\(".*api-types"\)\.Thread>$/);
    expect(typeOf("threads")).toMatch(/ListResponse<import\(".*api-types"\)\.Thread>>$/);
    expect(typeOf("message")).toMatch(/\.ThreadMessage>$/);
    expect(typeOf("messages")).toMatch(/ListResponse<import\(".*api-types"\)\.ThreadMessage>>$/);
    expect(typeOf("assistant")).toMatch(/\.Assistant>$/);
    expect(typeOf("assistants")).toMatch(/ListResponse<import\(".*api-types"\)\.Assistant>>$/);
    expect(typeOf("firstThread")).toMatch(/\.Thread \| undefined>$/);
    // No zod shape spelled out field by field anywhere.
    expect(declaration).not.toContain("[x: string]: unknown");
    expect(declaration).not.toContain("id: string");
  }, 120_000);
});
