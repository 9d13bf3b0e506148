/**
 * client/options.ts: the one schema of the client options, and what is derived from it (the type,
 * the list every class picks options with, the per-call checks). The compile tests type-check
 * options.ts with an option added to its schema: the derivation holds only if that is an error
 * until the new option is handled, and config.ts with one added: `ResolvedConfig` must hold it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { resolveConfig } from "../../../src/client/config";
import {
  CLIENT_OPTION_NAMES,
  checkRequestOptions,
  pickClientOptions,
  SERIALIZABLE_CLIENT_OPTION_NAMES,
  type StudioClientOptions,
} from "../../../src/client/options";
import { field } from "./helpers";

/** One value for every option: a new option fails to compile here until it is given one. */
const EVERY_OPTION: Required<StudioClientOptions> = {
  apiKey: "sk-options-test",
  orgId: "org",
  serviceKeyHeader: "X-Api-Key",
  rpcPathPrefix: "/api/",
  baseUrl: "https://studio.test",
  proxyUrl: "https://proxy.test",
  timeout: 1000,
  streamIdleTimeout: 500,
  streamTimeout: 5000,
  maxRetries: 1,
  defaultHeaders: { "x-team": "a" },
  connections: 2,
  dispatcher: { dispatch: () => true } as unknown as Required<StudioClientOptions>["dispatcher"],
  fetch: async () => new Response(""),
  maxResponseBytes: 1024,
};

describe("the list of client options", () => {
  it("names every option, and pickClientOptions keeps each set one and nothing else", () => {
    expect([...CLIENT_OPTION_NAMES].sort()).toEqual(Object.keys(EVERY_OPTION).sort());
    const fields = { ...EVERY_OPTION, client: undefined, model: "o/m", temperature: 1 };
    expect(pickClientOptions(fields)).toEqual(EVERY_OPTION);
    expect(pickClientOptions({ timeout: 5, maxRetries: undefined })).toEqual({ timeout: 5 });
  });

  it("a model serializes the plain settings, never the key, the headers or the live objects", () => {
    expect([...SERIALIZABLE_CLIENT_OPTION_NAMES].sort()).toEqual(
      [
        "baseUrl",
        "connections",
        "maxResponseBytes",
        "maxRetries",
        "orgId",
        "proxyUrl",
        "rpcPathPrefix",
        "serviceKeyHeader",
        "streamIdleTimeout",
        "streamTimeout",
        "timeout",
      ].sort(),
    );
  });

  it("every option given at once builds a client", () => {
    expect(new StudioClient(EVERY_OPTION)).toBeInstanceOf(StudioClient);
  });
});

describe("one rule for an option and its per-call override", () => {
  const VALUES: [string, unknown, boolean][] = [
    ["timeout", 1.5, true],
    ["timeout", 1, true],
    ["timeout", 2 ** 31 - 1, true],
    ["timeout", 0, false],
    ["timeout", -1, false],
    ["timeout", 2 ** 31, false],
    ["timeout", Number.NaN, false],
    ["timeout", "10", false],
    ["maxRetries", 0, true],
    ["maxRetries", 1.5, false],
    ["maxRetries", -1, false],
    ["headers", { "x-a": "b" }, true],
    ["headers", { "x-a": "b\nc" }, false],
    ["headers", { Authorization: "k" }, false],
    ["headers", "x-a: b", false],
  ];

  it.each(VALUES)("%s = %o: accepted %s, by the client and per call alike", (name, value, ok) => {
    const clientOption = name === "headers" ? "defaultHeaders" : name;
    const expected = (option: string) => (ok ? undefined : option);
    expect(field(() => new StudioClient({ [clientOption]: value }))).toBe(expected(clientOption));
    expect(field(() => checkRequestOptions({ [name]: value }))).toBe(expected(name));
  });
});

const OPTIONS_FILE = fileURLToPath(new URL("../../../src/client/options.ts", import.meta.url));
const SCHEMA_START = "const clientOptionsSchema = z.object({";
const DECISIONS_START = "const SERIALIZED: Record<ClientOptionName, boolean> = {";
const DESCRIPTIONS_START = 'describeFields("client", clientOptionsSchema, {';

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts"],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: ["node"],
};
/** The other files, parsed once for every compile below (the libraries are most of the work). */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** The type errors of options.ts once `edit` has changed its text (a program over the real files). */
function typeErrors(edit: (source: string) => string): string[] {
  return typeErrorsIn(OPTIONS_FILE, { [OPTIONS_FILE]: edit });
}

/** The type errors of `root` once each file in `edits` has been changed by its edit. */
function typeErrorsIn(root: string, edits: Record<string, (source: string) => string>): string[] {
  const sources = new Map(
    Object.entries(edits).map(([name, edit]) => [name, edit(readFileSync(name, "utf8"))]),
  );
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const edited = sources.get(name);
    if (edited !== undefined) return ts.createSourceFile(name, edited, language);
    if (!parsed.has(name)) parsed.set(name, getSourceFile(name, language, ...rest));
    return parsed.get(name);
  };
  host.readFile = (name) => sources.get(name) ?? ts.sys.readFile(name);
  const program = ts.createProgram([root], COMPILER_OPTIONS, host);
  const file = program.getSourceFile(root);
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
    (d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  );
}

function addOption(source: string): string {
  expect(source).toContain(SCHEMA_START);
  return source.replace(SCHEMA_START, `${SCHEMA_START}\n  extraOption: z.optional(z.number()),`);
}

function decideOption(source: string): string {
  expect(source).toContain(DECISIONS_START);
  return source.replace(DECISIONS_START, `${DECISIONS_START}\n  extraOption: true,`);
}

/** The option's line in the docs' options table (src/field-docs.ts), which it also needs. */
function describeOption(source: string): string {
  expect(source).toContain(DESCRIPTIONS_START);
  return source.replace(
    DESCRIPTIONS_START,
    `${DESCRIPTIONS_START}\n  extraOption: "An extra option",`,
  );
}

describe("an option added to the schema", () => {
  it("fails to compile until serialized or not and described, then compiles", () => {
    expect(typeErrors((source) => source)).toEqual([]);
    const errors = typeErrors(addOption);
    expect(errors.join("\n")).toMatch(/Property 'extraOption' is missing/);
    const undescribed = typeErrors((source) => decideOption(addOption(source)));
    expect(undescribed.join("\n")).toMatch(/Property 'extraOption' is missing/);
    const undecided = typeErrors((source) => describeOption(addOption(source)));
    expect(undecided.join("\n")).toMatch(/Property 'extraOption' is missing/);
    expect(typeErrors((source) => describeOption(decideOption(addOption(source))))).toEqual([]);
  }, 60_000);

  it("is in the type and the list, with no edit anywhere else", () => {
    const probe = (source: string) =>
      `${source}\nconst probe: StudioClientOptions = { extraOption: 1 };\n` +
      `const listed: "extraOption" extends (typeof CLIENT_OPTION_NAMES)[number] ? true : false = true;\n` +
      "void probe;\nvoid listed;\n";
    expect(typeErrors((source) => probe(describeOption(decideOption(addOption(source)))))).toEqual(
      [],
    );
    expect(typeErrors((source) => probe(source)).length).toBeGreaterThan(0);
  }, 60_000);
});

const CONFIG_FILE = fileURLToPath(new URL("../../../src/client/config.ts", import.meta.url));

describe("the resolved config, derived from the schema and its defaults", () => {
  it("holds every option (the addresses split), each set one as given, the others defaulted", () => {
    const config = resolveConfig(EVERY_OPTION);
    const expected = CLIENT_OPTION_NAMES.filter((n) => n !== "baseUrl" && n !== "proxyUrl");
    expect(Object.keys(config).sort()).toEqual([...expected, "studio", "proxy"].sort());
    expect(config).toMatchObject({
      timeout: 1000,
      streamIdleTimeout: 500,
      streamTimeout: 5000,
      maxRetries: 1,
      serviceKeyHeader: "x-api-key",
      studio: { origin: "https://studio.test", prefix: "" },
    });
    const defaults = resolveConfig({ apiKey: "sk-options-test" });
    expect(Object.keys(defaults).sort()).toEqual(Object.keys(config).sort());
    expect(defaults).toMatchObject({
      timeout: 60_000,
      streamIdleTimeout: undefined,
      streamTimeout: 600_000,
      maxRetries: 2,
      maxResponseBytes: 32 * 1024 * 1024,
      connections: 64,
      rpcPathPrefix: "/",
      serviceKeyHeader: "x-service-key",
      defaultHeaders: {},
      dispatcher: undefined,
      fetch: undefined,
    });
  });

  it("an option added to the schema is in ResolvedConfig with no edit to config.ts", () => {
    const probe = (source: string) =>
      `${source}\nconst probe: ResolvedConfig["extraOption"] = 1;\n` +
      `const required: Record<string, never> extends Pick<ResolvedConfig, "extraOption"> ? false : true = true;\n` +
      "void probe;\nvoid required;\n";
    const added = (source: string) => decideOption(addOption(source));
    expect(typeErrorsIn(CONFIG_FILE, { [OPTIONS_FILE]: added, [CONFIG_FILE]: probe })).toEqual([]);
    expect(typeErrorsIn(CONFIG_FILE, { [CONFIG_FILE]: probe }).length).toBeGreaterThan(0);
  }, 60_000);
});
