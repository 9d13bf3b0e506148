/**
 * Every setting, declared once in src/models/settings.ts, reaches each place a model uses it: the
 * request body under its wire name (from the field, and from the call option when a call may
 * override it), `callKeys`, `lc_serializable_keys`, the checks at construction and at call time,
 * and the doc comment IDEs show. The value lists below are typed by the tables, so a setting
 * added there does not compile here until it has a value and, when sent, its wire name.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { SERIALIZABLE_CLIENT_OPTION_NAMES } from "../../../src/client/options";
import { StudioValidationError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import type { ModelRequestOptions } from "../../../src/models/requests";
import type {
  LLMSettingTable,
  MODEL_SETTINGS,
  SettingFields,
  SettingTable,
  StudioSamplingCallOptions,
} from "../../../src/models/settings";

type SentSetting<T extends SettingTable> = {
  [K in keyof T]: T[K] extends { wire: string } ? K : never;
}[keyof T];
type CallValues<T extends SettingTable> = Required<
  Omit<StudioSamplingCallOptions<T>, keyof ModelRequestOptions>
>;

const MODEL = "acme/small";

/** A valid value of every setting, none of them the default. */
const FIELD_VALUES: Required<SettingFields<typeof MODEL_SETTINGS>> = {
  maxTokens: 64,
  temperature: 0.5,
  topP: 0.9,
  n: 1,
  stop: ["END"],
  presencePenalty: 0.1,
  frequencyPenalty: -0.2,
  penalty: 1.1,
  logitBias: { "50256": -100 },
  seed: 7,
  user: "user-1",
  streaming: false,
  streamUsage: false,
  maxConcurrency: 2,
  modelKwargs: { extra_field: "x" },
};

/** Other valid values, for the settings a call may override. */
const CALL_VALUES: CallValues<typeof MODEL_SETTINGS> = {
  maxTokens: 8,
  temperature: 1.5,
  topP: 0.2,
  n: 1,
  stop: ["STOP"],
  presencePenalty: 1,
  frequencyPenalty: 1,
  penalty: 1,
  logitBias: { a: 1 },
  seed: 8,
  user: "user-2",
  streamUsage: true,
};

/** The body field each sent setting goes out as (the service's snake_case names). */
const WIRE_NAMES: Record<SentSetting<typeof MODEL_SETTINGS>, string> = {
  maxTokens: "max_tokens",
  temperature: "temperature",
  topP: "top_p",
  n: "n",
  stop: "stop",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  penalty: "penalty",
  logitBias: "logit_bias",
  seed: "seed",
  user: "user",
};

const LLM_FIELD_VALUES: Required<SettingFields<LLMSettingTable>> = { ...FIELD_VALUES, echo: true };
const LLM_CALL_VALUES: CallValues<LLMSettingTable> = { ...CALL_VALUES, echo: false };
const LLM_WIRE_NAMES: Record<SentSetting<LLMSettingTable>, string> = {
  ...WIRE_NAMES,
  echo: "echo",
};

/** A completion with one choice. */
function answer(choice: object) {
  return {
    id: "c",
    model: MODEL,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    choices: [{ index: 0, finish_reason: "stop", ...choice }],
  };
}

/** Each model class, its values, the answer to its call and the body fields it sets itself. */
const MODELS = [
  {
    name: "ChatStudio",
    build: (fields: object) => new ChatStudio({ model: MODEL, ...fields }),
    fieldValues: FIELD_VALUES as Record<string, unknown>,
    callValues: CALL_VALUES as Record<string, unknown>,
    wireNames: WIRE_NAMES as Record<string, string>,
    answer: answer({ message: { role: "assistant", content: "ok" } }),
    ownFields: ["messages", "stream"],
  },
  {
    name: "StudioLLM",
    build: (fields: object) => new StudioLLM({ model: MODEL, ...fields }),
    fieldValues: LLM_FIELD_VALUES as Record<string, unknown>,
    callValues: LLM_CALL_VALUES as Record<string, unknown>,
    wireNames: LLM_WIRE_NAMES as Record<string, string>,
    answer: answer({ text: "ok" }),
    ownFields: ["prompt"],
  },
];

function recordingFetch(answer: unknown) {
  const bodies: Record<string, unknown>[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return new Response(JSON.stringify(answer), {
      headers: { "content-type": "application/json" },
    });
  };
  return { bodies, fetch };
}

/** The body minus the fields the model sets itself (messages or prompt, stream). */
function settingsPart(body: Record<string, unknown> | undefined, ownFields: string[]) {
  return Object.fromEntries(Object.entries(body ?? {}).filter(([key]) => !ownFields.includes(key)));
}

function fieldOfError(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof StudioValidationError
      ? error.field
      : `not a validation error: ${error}`;
  }
  return undefined;
}

describe.each(MODELS)("$name", (kind) => {
  const sent = (values: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(kind.wireNames).map(([setting, wire]) => [wire, values[setting]]),
    );
  const connection = { apiKey: "sk-settings-test", proxyUrl: "https://studio.test/inference" };

  it("sends every setting under its wire name, and modelKwargs as given", async () => {
    const { bodies, fetch } = recordingFetch(kind.answer);
    await kind.build({ ...connection, fetch, ...kind.fieldValues }).invoke("hi");
    expect(settingsPart(bodies[0], kind.ownFields)).toEqual({
      model: MODEL,
      ...sent(kind.fieldValues),
      extra_field: "x",
    });
  });

  it("a call's options win over the fields, for every setting a call may override", async () => {
    const { bodies, fetch } = recordingFetch(kind.answer);
    await kind.build({ ...connection, fetch, ...kind.fieldValues }).invoke("hi", kind.callValues);
    expect(settingsPart(bodies[0], kind.ownFields)).toEqual({
      model: MODEL,
      ...sent(kind.callValues),
      extra_field: "x",
    });
  });

  it("every setting a call may override is a call key, and only those", () => {
    const callKeys = kind.build({}).callKeys;
    for (const name of Object.keys(kind.callValues)) expect(callKeys).toContain(name);
    expect(callKeys).toContain("maxRetries");
    for (const name of Object.keys(kind.fieldValues)) {
      if (!(name in kind.callValues)) expect(callKeys).not.toContain(name);
    }
    expect(new Set(callKeys).size).toBe(callKeys.length);
  });

  it("toJSON keeps every setting and the serializable client options, no live or secret one", () => {
    const model = kind.build({ ...connection, fetch: globalThis.fetch, ...kind.fieldValues });
    expect(Object.keys(model.lc_kwargs)).toEqual(
      expect.arrayContaining(["model", "proxyUrl", ...Object.keys(kind.fieldValues)]),
    );
    expect(model.lc_kwargs).not.toHaveProperty("apiKey");
    expect(model.lc_kwargs).not.toHaveProperty("fetch");
    expect(model.lc_serializable_keys).toEqual(
      expect.arrayContaining([...SERIALIZABLE_CLIENT_OPTION_NAMES, "stopSequences"]),
    );
    for (const name of ["apiKey", "client", "fetch", "dispatcher", "defaultHeaders"]) {
      expect(model.lc_serializable_keys).not.toContain(name);
    }
  });

  it("every setting is checked at construction, the error naming it", () => {
    for (const name of Object.keys(kind.fieldValues)) {
      expect(fieldOfError(() => kind.build({ [name]: Symbol("bad") }))).toBe(name);
    }
  });

  it("every call option is checked before anything is sent, the error naming it", async () => {
    const { bodies, fetch } = recordingFetch(kind.answer);
    const model = kind.build({ ...connection, fetch });
    for (const name of Object.keys(kind.callValues)) {
      const error = await model.invoke("hi", { [name]: Symbol("bad") }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe(name);
    }
    expect(bodies).toEqual([]);
  });
});

describe("documentation", () => {
  it("every setting has a doc comment, which IDEs show on the fields and call options", () => {
    const path = new URL("../../../src/models/settings.ts", import.meta.url);
    const source = ts.createSourceFile(
      "settings.ts",
      readFileSync(path, "utf8"),
      ts.ScriptTarget.Latest,
      true,
    );
    const documented = new Map<string, boolean>();
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAssignment(node) && isSettingEntry(node)) {
        documented.set(node.name.getText(source), ts.getJSDocCommentsAndTags(node).length > 0);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect([...documented.keys()].sort()).toEqual(Object.keys(LLM_FIELD_VALUES).sort());
    expect([...documented].filter(([, has]) => !has).map(([name]) => name)).toEqual([]);
  });
});

/** A property of a setting table: its value is a `sampling(...)` call or a `{ schema }` object. */
function isSettingEntry(node: ts.PropertyAssignment): boolean {
  const value = node.initializer;
  if (ts.isCallExpression(value)) return value.expression.getText() === "sampling";
  return (
    ts.isObjectLiteralExpression(value) &&
    value.properties.some((p) => p.name !== undefined && p.name.getText() === "schema")
  );
}
