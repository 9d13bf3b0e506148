/**
 * The options tables of the docs pages, rendered from the schemas that check the options (their
 * fields, types and defaults) and the descriptions registered beside them (src/field-docs.ts).
 * Each table sits between `<!-- options:<id>:start -->` and `<!-- options:<id>:end -->` on its
 * page; `npx tsx scripts/docs-options.ts` rewrites them, and
 * test/unit/docs/options-tables.test.ts fails when a page's table differs from this rendering.
 *
 * What a schema cannot say is given here, per table: the type of a field checked by a custom
 * function, a default applied after parsing (read from the source's own constant where there is
 * one), and the fields another check owns (`metadata`, `client`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_MAX_ITERATIONS } from "../../src/agents/params";
import "../../src/assistants/fields";
import "../../src/chat_history/fields";
import {
  DEFAULT_CONNECTIONS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RPC_PATH_PREFIX,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
} from "../../src/client/config";
import { DEFAULT_SERVICE_KEY_HEADER } from "../../src/client/headers";
import "../../src/client/options";
import "../../src/crypto/key-ring";
import "../../src/datasets/recorder";
import { type DescribedFields, describedFields, describedIds } from "../../src/field-docs";
import "../../src/langgraph/saver-config";
import "../../src/models/settings";
import "../../src/server/redis";
import { DEFAULT_CACHED_NAMESPACES, DEFAULT_CONCURRENT_READS } from "../../src/store/fields";
import { DEFAULT_MAX_MESSAGE_CHARS } from "../../src/store/records";
import { DEFAULT_WRITE_POLICY } from "../../src/threads/backoff";

/** The command that rewrites every table, for messages. */
export const REGENERATE = "npx tsx scripts/docs-options.ts";

/** Markdown written as it is in a cell (a default that is a phrase, not a value). */
interface Text {
  readonly text: string;
}

const text = (value: string): Text => ({ text: value });

/** A field the schema does not check (another check owns it), described here. */
interface ExtraRow {
  readonly name: string;
  readonly type: string;
  readonly default: Text | unknown;
  readonly description: string;
}

interface TableSpec {
  /** The id the descriptions are registered under, and the markers' name. */
  readonly id: string;
  /** The page holding the table, from the repository root. */
  readonly page: string;
  /** Types of the fields a custom check owns (by name, nested as `ttl.defaultTTL`). */
  readonly types?: Readonly<Record<string, string>>;
  /** Defaults applied after parsing, by name; a schema's own default needs none. */
  readonly defaults?: Readonly<Record<string, Text | unknown>>;
  /** Rows before the schema's fields. */
  readonly before?: readonly ExtraRow[];
  /** Rows after the schema's fields. */
  readonly after?: readonly ExtraRow[];
}

/** The `client` row of every class that builds its client from the client options. */
const CLIENT_ROW: ExtraRow = {
  name: "`client`, or the client options",
  type: "`StudioClient`",
  default: text("a client of the options (env)"),
  description:
    "A ready client, or the [client options](client.md#options) to build one from (not both)",
};

const SERDE = "`SerializerProtocol`";

const MODEL_DEFAULTS = {
  streaming: false,
  streamUsage: true,
  // Core's default for every Runnable.
  maxConcurrency: text("`Infinity`"),
} as const;

const MODEL_ROW: ExtraRow = {
  name: "model",
  type: "string",
  default: text("required"),
  description: 'Model uri `"<owner>/<model-name>"`, or the first argument of the constructor',
};

export const TABLES: readonly TableSpec[] = [
  {
    id: "client",
    page: "docs/client.md",
    types: {
      defaultHeaders: "`Record<string, string>`",
      dispatcher: "`Dispatcher`",
      fetch: "`fetch`",
    },
    defaults: {
      serviceKeyHeader: DEFAULT_SERVICE_KEY_HEADER,
      rpcPathPrefix: DEFAULT_RPC_PATH_PREFIX,
      timeout: DEFAULT_TIMEOUT_MS,
      streamIdleTimeout: text("`timeout`"),
      streamTimeout: text(
        `\`${DEFAULT_STREAM_TIMEOUT_MS}\` (${DEFAULT_STREAM_TIMEOUT_MS / 60_000} min), ` +
          "or `timeout` if longer",
      ),
      maxRetries: DEFAULT_MAX_RETRIES,
      defaultHeaders: {},
      connections: DEFAULT_CONNECTIONS,
      dispatcher: text("the client's own pool"),
      fetch: text("undici on Node, else the runtime's"),
      maxResponseBytes: text(`${DEFAULT_MAX_RESPONSE_BYTES / 2 ** 20} MiB`),
    },
  },
  {
    id: "chat-model",
    page: "docs/chat-model.md",
    defaults: MODEL_DEFAULTS,
    before: [MODEL_ROW],
    after: [
      {
        name: "profile",
        type: "`ModelProfile`",
        default: text("`{}` until loaded"),
        description: "What the model can do (core's `ModelProfile`), over what the listing says",
      },
      {
        name: "outputVersion",
        type: '`"v0" \\| "v1"`',
        default: text('`"v0"` (or `LC_OUTPUT_VERSION`)'),
        description: "`v1`: content as core's standard blocks; also a call option",
      },
      CLIENT_ROW,
    ],
  },
  {
    id: "llm",
    page: "docs/llm.md",
    defaults: MODEL_DEFAULTS,
    before: [MODEL_ROW],
    after: [CLIENT_ROW],
  },
  {
    id: "history",
    page: "docs/history.md",
    types: { sessionId: "string" },
    defaults: {
      maxWriteAttempts: DEFAULT_WRITE_POLICY.maxAttempts,
      confirmDelayMs: DEFAULT_WRITE_POLICY.confirmDelayMs,
    },
    after: [
      {
        name: "metadata",
        type: "`Record<string, string>`",
        default: undefined,
        description:
          "Metadata of the thread the history creates: string values, at most 15 keys (13 with " +
          "`sessionId`), no `lc_` keys",
      },
      CLIENT_ROW,
    ],
  },
  {
    id: "checkpointer",
    page: "docs/checkpointer.md",
    types: { "ttl.defaultTTL": "number", serde: SERDE },
    defaults: { "ttl.refreshOnRead": false, serde: text("LangGraph's JSON serializer") },
    after: [CLIENT_ROW],
  },
  {
    id: "store",
    page: "docs/store.md",
    types: {
      datasetId: "string",
      maxMessageChars: "integer",
      maxCachedNamespaces: "integer",
      maxConcurrentReads: "integer",
      "index.embeddings": "`Embeddings`",
      "index.dims": "integer",
      "index.fields": "`string[]`",
      "ttl.defaultTtl": "number",
      "ttl.sweepIntervalMinutes": "number",
      serde: SERDE,
    },
    defaults: {
      maxMessageChars: DEFAULT_MAX_MESSAGE_CHARS,
      maxCachedNamespaces: DEFAULT_CACHED_NAMESPACES,
      maxConcurrentReads: DEFAULT_CONCURRENT_READS,
      "ttl.defaultTtl": text("never expires"),
      "ttl.refreshOnRead": true,
      serde: text("readable JSON"),
    },
    after: [CLIENT_ROW],
  },
  {
    id: "recorder",
    page: "docs/recorder.md",
    types: { redact: "function", onError: "function" },
    // src/datasets/recorder.ts applies these after parsing.
    defaults: { sampleRate: 1, maxPendingWrites: 100, onError: text("`console.warn`") },
    after: [CLIENT_ROW],
  },
  {
    id: "assistants",
    page: "docs/assistants.md",
    types: {
      "functionModel.temperature": "number",
      "functionModel.topP": "number",
      "responseModel.temperature": "number",
      "responseModel.topP": "number",
    },
    after: [
      {
        name: "tools",
        type: "array",
        default: undefined,
        description:
          "LangChain tools or raw `Tool` objects, stored as the assistant's tool schemas",
      },
      {
        name: "metadata",
        type: "`Record<string, string>`",
        default: undefined,
        description: "Key-value pairs, within the service's metadata limits",
      },
    ],
  },
  {
    id: "agents",
    page: "docs/assistants.md",
    types: { tools: "`StructuredTool[]`", maxIterations: "integer" },
    defaults: { tools: text("none"), maxIterations: DEFAULT_MAX_ITERATIONS },
    before: [
      {
        name: "assistant",
        type: "`Assistant`",
        default: undefined,
        description: "The assistant record; or pass `assistantId` to fetch it (exactly one)",
      },
      {
        name: "assistantId",
        type: "string",
        default: undefined,
        description: "The id of the assistant to fetch",
      },
    ],
    after: [
      {
        name: "history",
        type: "`AgentMessageHistory`",
        default: undefined,
        description:
          "Earlier turns are loaded before each run and each whole turn appended after it " +
          "(`StudioChatMessageHistory` fits)",
      },
      CLIENT_ROW,
    ],
  },
  {
    id: "redis-coordination",
    page: "docs/deployment.md",
    types: { client: "node-redis `RedisClientType`" },
    defaults: { instanceId: text("a random id") },
  },
  {
    id: "encryption",
    page: "docs/encryption.md",
    types: { keys: "`Record<string, CryptoKey \\| string>`", activeKeyId: "string" },
    defaults: { activeKeyId: text("the only key") },
    after: [
      {
        name: "allowPlaintext",
        type: "boolean",
        default: false,
        description:
          "Read values stored before encryption was on (new values are always encrypted)",
      },
      {
        name: "serde",
        type: SERDE,
        default: text("LangGraph's JSON serializer"),
        description: "What turns values into bytes before they are encrypted",
      },
    ],
  },
];

/** The parts of a zod (mini) schema the rendering reads. */
interface Schema {
  _zod: { def: Def };
}

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
  shape?: Record<string, Schema>;
  entries?: Record<string, string | number>;
  defaultValue?: unknown;
  checks?: { _zod: { def: { check: string; format?: string } } }[];
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch"]);

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** The object a schema checks, through wrappers and pipes (a pipe's transform side skipped). */
function objectOf(schema: Schema): Schema | undefined {
  const def = schema._zod.def;
  if (def.type === "object") return schema;
  if (WRAPPERS.has(def.type)) return objectOf(def.innerType!);
  if (def.type === "pipe") return objectOf(def.in!) ?? objectOf(def.out!);
  return undefined;
}

function isInteger(def: Def): boolean {
  return (def.checks ?? []).some((check) => check._zod.def.format?.includes("int") === true);
}

/** The type a user writes, or undefined when only a custom check knows it. */
function typeOf(schema: Schema): string | undefined {
  const def = schema._zod.def;
  if (WRAPPERS.has(def.type)) return typeOf(def.innerType!);
  switch (def.type) {
    case "string":
    case "boolean":
      return def.type;
    case "number":
      return isInteger(def) ? "integer" : "number";
    case "object":
      return "object";
    case "enum":
      return `\`${Object.values(def.entries!)
        .map((value) => JSON.stringify(value))
        .join(" \\| ")}\``;
    case "array": {
      const element = typeOf(def.element!);
      return element === undefined ? undefined : `\`${element.replaceAll("`", "")}[]\``;
    }
    case "record": {
      const value = typeOf(def.valueType!) ?? "unknown";
      return `\`Record<string, ${value.replaceAll("`", "")}>\``;
    }
    case "pipe":
      // A transform, or a key check over `unknown` (knownKeysOnly), says nothing: the other side does.
      return typeOf(def.in!) ?? typeOf(def.out!);
    default:
      return undefined;
  }
}

function isOptional(schema: Schema): boolean {
  const type = schema._zod.def.type;
  if (type === "optional" || type === "default" || type === "prefault") return true;
  return WRAPPERS.has(type) ? isOptional(schema._zod.def.innerType!) : false;
}

/** The schema's own default, if it has one. */
function schemaDefault(schema: Schema): { value: unknown } | undefined {
  const def = schema._zod.def;
  if (def.type === "default" || def.type === "prefault") return { value: def.defaultValue };
  return WRAPPERS.has(def.type) ? schemaDefault(def.innerType!) : undefined;
}

function formatDefault(value: unknown): string {
  if (typeof value === "object" && value !== null && "text" in value) return (value as Text).text;
  if (value === undefined) return "none";
  return `\`${JSON.stringify(value)}\``;
}

/** A table cell: one line, `|` escaped unless it already is. */
function cell(value: string): string {
  return value.replace(/\n/g, " ").replace(/(?<!\\)\|/g, "\\|");
}

interface Row {
  name: string;
  type: string;
  default: string;
  description: string;
  /** Settings tables only: the request-body field, and whether a call may override it. */
  wire?: string | undefined;
  call?: boolean;
}

/**
 * Adds the row of one field to `rows`, then the rows of its own fields if it is an object.
 * `optional`: every field is, whatever its schema says.
 */
function addField(spec: TableSpec, described: DescribedFields, rows: Row[], optional: boolean) {
  const visit = (name: string, schema: Schema): Row => {
    const description = described.descriptions[name];
    if (description === undefined) {
      throw new Error(
        `options table "${spec.id}": "${name}" has no description; add one beside its schema ` +
          "(describeFields, src/field-docs.ts)",
      );
    }
    const type = spec.types?.[name] ?? typeOf(schema);
    if (type === undefined) {
      throw new Error(
        `options table "${spec.id}": the schema of "${name}" does not say its type; add it to ` +
          "the table's types in test/helpers/docs-options.ts",
      );
    }
    const own = schemaDefault(schema);
    const given = spec.defaults !== undefined && name in spec.defaults;
    const fallback = optional || isOptional(schema) ? undefined : text("required");
    const row: Row = {
      name,
      type,
      default: formatDefault(given ? spec.defaults![name] : own ? own.value : fallback),
      description,
    };
    rows.push(row);
    const nested = type === "object" ? objectOf(schema) : undefined;
    for (const [child, childSchema] of Object.entries(nested?._zod.def.shape ?? {})) {
      visit(`${name}.${child}`, childSchema);
    }
    return row;
  };
  return visit;
}

function extraRow(row: ExtraRow): Row {
  return {
    name: row.name,
    type: row.type,
    default: formatDefault(row.default),
    description: row.description,
  };
}

/** A table's rows: its extra rows around the schema's fields, in the schema's order. */
export function tableRows(spec: TableSpec): Row[] {
  const described = describedFields(spec.id);
  if (described === undefined) {
    throw new Error(`options table "${spec.id}": no descriptions are registered under that id`);
  }
  const rows: Row[] = [];
  const { target } = described;
  // A settings table's entries are all optional: the model's fields schema wraps each.
  const visit = addField(spec, described, rows, !isSchema(target));
  if (isSchema(target)) {
    const object = objectOf(target);
    if (object === undefined) throw new Error(`options table "${spec.id}": not an object schema`);
    for (const [name, schema] of Object.entries(object._zod.def.shape!)) visit(name, schema);
  } else {
    // A settings table: each entry's schema, the request-body field and whether calls override it.
    const table = target as Record<string, { schema: Schema; wire?: string; call?: true }>;
    for (const [name, setting] of Object.entries(table)) {
      const row = visit(name, setting.schema);
      // A setting left unset is not in the request body: the server's own default applies.
      if (row.default === "none" && setting.wire !== undefined) row.default = "not sent";
      row.wire = setting.wire;
      row.call = setting.call === true;
    }
  }
  // A description left behind by a renamed or removed field would otherwise go unnoticed.
  const rendered = new Set(rows.map((row) => row.name));
  const stale = Object.keys(described.descriptions).filter((name) => !rendered.has(name));
  if (stale.length > 0) {
    throw new Error(`options table "${spec.id}": no such field for the description of ${stale}`);
  }
  return [...(spec.before ?? []).map(extraRow), ...rows, ...(spec.after ?? []).map(extraRow)];
}

/** The markdown table of `spec`, as the page holds it between its markers. */
export function renderTable(spec: TableSpec): string {
  const rows = tableRows(spec);
  const settings = rows.some((row) => row.call !== undefined);
  const name = (row: Row) => (row.name.startsWith("`") ? row.name : `\`${row.name}\``);
  const lines = settings
    ? [
        "| setting | type | default | sent as | per call | description |",
        "|---|---|---|---|---|---|",
        ...rows.map((row) => [
          name(row),
          row.type,
          row.default,
          row.wire === undefined ? "" : `\`${row.wire}\``,
          row.call === undefined ? "" : row.call ? "yes" : "no",
          row.description,
        ]),
      ]
    : [
        "| option | type | default | description |",
        "|---|---|---|---|",
        ...rows.map((row) => [name(row), row.type, row.default, row.description]),
      ];
  return lines
    .map((line) => (typeof line === "string" ? line : `| ${line.map(cell).join(" | ")} |`))
    .join("\n");
}

const markers = (id: string) => ({
  start: `<!-- options:${id}:start -->`,
  end: `<!-- options:${id}:end -->`,
});

/** What a page holds between a table's markers, or why it cannot be read. */
export function tableOnPage(markdown: string, id: string): { table: string } | { problem: string } {
  const { start, end } = markers(id);
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from === -1 || to === -1 || to < from) return { problem: `no ${start} ... ${end}` };
  if (markdown.indexOf(start, from + 1) !== -1) return { problem: `${start} appears twice` };
  return { table: markdown.slice(from + start.length, to).trim() };
}

/** `markdown` with the table of `spec` written between its markers. */
export function withTable(markdown: string, spec: TableSpec): string {
  const found = tableOnPage(markdown, spec.id);
  if ("problem" in found) throw new Error(`${spec.page}: ${found.problem}`);
  const { start, end } = markers(spec.id);
  const from = markdown.indexOf(start) + start.length;
  const rest = markdown.slice(markdown.indexOf(end));
  return `${markdown.slice(0, from)}\n\n${renderTable(spec)}\n\n${rest}`;
}

/** Rewrites every page's tables; returns the pages that changed. */
export function writeTables(repoRoot: string): string[] {
  const changed: string[] = [];
  for (const page of new Set(TABLES.map((spec) => spec.page))) {
    const file = path.join(repoRoot, page);
    const before = readFileSync(file, "utf8");
    let after = before;
    for (const spec of TABLES.filter((s) => s.page === page)) after = withTable(after, spec);
    if (after !== before) {
      writeFileSync(file, after);
      changed.push(page);
    }
  }
  return changed;
}

/** Every id descriptions are registered under (each must have a table). */
export { describedIds };
