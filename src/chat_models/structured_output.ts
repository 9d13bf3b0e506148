/**
 * `withStructuredOutput` for ChatStudio, assembled from core's parts: the schema goes out as a
 * `json_schema` response format (jsonSchema), a forced tool (functionCalling) or a JSON-object
 * reply request (jsonMode), and core's parsers read it back. Three gaps of core's parts are
 * closed here: a reply without the expected tool call is an error rather than `undefined`,
 * replies to a plain JSON schema are validated too, and a stream's final value is parsed as
 * strictly as `invoke`'s (core's streaming parsers end with their partial guess of a cut reply).
 * Every parser raises `ModelRefusalError` for a refusal first, on every core (core 1.4's parsers
 * do it too; older ones would report "Failed to parse" of an empty text).
 */
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  assembleStructuredOutputPipeline,
  createContentParser,
  createFunctionCallingParser,
} from "@langchain/core/language_models/structured_output";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import {
  BaseOutputParser,
  OutputParserException,
  parseJsonMarkdown,
} from "@langchain/core/output_parsers";
import { JsonOutputKeyToolsParser } from "@langchain/core/output_parsers/openai_tools";
import type { ChatGeneration, Generation } from "@langchain/core/outputs";
import {
  type Runnable,
  RunnableLambda,
  type RunnableLike,
  RunnableSequence,
} from "@langchain/core/runnables";
import { toJsonSchema, Validator } from "@langchain/core/utils/json_schema";
import { isSerializableSchema } from "@langchain/core/utils/standard_schema";
import { getSchemaDescription, isInteropZodSchema } from "@langchain/core/utils/types";
import type { ChatTool } from "../api-types";
import { StudioValidationError } from "../errors";
import { throwIfRefusal } from "../models/refusal";

type JsonObject = Record<string, unknown>;

export type StructuredOutputMethod = "functionCalling" | "jsonMode" | "jsonSchema";
const METHODS: readonly string[] = ["jsonSchema", "functionCalling", "jsonMode"];

export interface StructuredOutputConfig {
  name?: string | undefined;
  method?: StructuredOutputMethod | string | undefined;
  includeRaw?: boolean | undefined;
  strict?: boolean | undefined;
}

/** The part of the chat model the pipeline needs: binding call options. */
export interface ConfigurableModel {
  withConfig(config: JsonObject): Runnable<BaseLanguageModelInput, BaseMessage>;
}

/** Builds the structured-output runnable (see `ChatStudio.withStructuredOutput`). */
export function buildStructuredOutput(
  model: ConfigurableModel,
  schema: unknown,
  config: StructuredOutputConfig = {},
): Runnable<BaseLanguageModelInput, unknown> {
  const method = config.method ?? "functionCalling";
  if (!METHODS.includes(method)) {
    throw new StudioValidationError(
      "method",
      `"${method}" is not supported; use "jsonSchema", "functionCalling" or "jsonMode"`,
    );
  }
  if (config.strict !== undefined && typeof config.strict !== "boolean") {
    throw new StudioValidationError("strict", "must be true or false");
  }
  if (schema === null || typeof schema !== "object") {
    throw new StudioValidationError(
      "schema",
      "must be a zod schema (v3 or v4) or a JSON schema object",
    );
  }
  const isTypedSchema = isInteropZodSchema(schema) || isSerializableSchema(schema);
  const jsonSchema = (isTypedSchema ? toJsonSchema(schema as never) : schema) as JsonObject;
  const name = config.name ?? schemaName(schema, isTypedSchema) ?? "extract";

  let llm: Runnable<BaseLanguageModelInput, BaseMessage>;
  let parser: Runnable<BaseMessage, unknown>;
  if (method === "functionCalling") {
    const description =
      (isTypedSchema ? getSchemaDescription(schema as never) : undefined) ??
      (typeof jsonSchema.description === "string" ? jsonSchema.description : undefined);
    const tool: ChatTool = {
      type: "function",
      function: {
        name,
        ...(description && { description }),
        parameters: jsonSchema,
        ...(config.strict !== undefined && { strict: config.strict }),
      },
    };
    llm = model.withConfig({
      tools: [tool],
      tool_choice: { type: "function", function: { name } },
      ls_structured_output_format: { kwargs: { method }, schema: jsonSchema },
    });
    parser = isTypedSchema
      ? (createFunctionCallingParser(schema as never, name, StudioToolCallOutputParser) as never)
      : new StudioToolCallOutputParser({ keyName: name, returnSingle: true, jsonSchema });
  } else if (method === "jsonSchema") {
    const description =
      (isTypedSchema ? getSchemaDescription(schema as never) : undefined) ??
      (typeof jsonSchema.description === "string" ? jsonSchema.description : undefined);
    llm = model.withConfig({
      response_format: {
        type: "json_schema",
        json_schema: {
          name,
          ...(description && { description }),
          schema: jsonSchema,
          ...(config.strict !== undefined && { strict: config.strict }),
        },
      },
      ls_structured_output_format: { kwargs: { method }, schema: jsonSchema },
    });
    parser = isTypedSchema
      ? new RefusalCheckedParser(createContentParser(schema as never) as never)
      : new JsonSchemaReplyParser(jsonSchema);
  } else {
    llm = model.withConfig({
      response_format: { type: "json_object" },
      ls_structured_output_format: { kwargs: { method }, schema: jsonSchema },
    });
    parser = isTypedSchema
      ? new RefusalCheckedParser(createContentParser(schema as never) as never)
      : new JsonSchemaReplyParser(jsonSchema);
  }
  if (!config.includeRaw) {
    return assembleStructuredOutputPipeline(llm, parser as never, false, "StructuredOutput");
  }
  return withRaw(llm, parser);
}

/**
 * `{ raw, parsed }`, with `parsed: null` and the error as `parsingError` when the reply does not
 * parse. Core's own includeRaw pipeline drops the error, so the caller could not tell why.
 */
function withRaw(
  llm: Runnable<BaseLanguageModelInput, BaseMessage>,
  parser: Runnable<BaseMessage, unknown>,
): Runnable<BaseLanguageModelInput, unknown> {
  const parseOrKeepError = RunnableLambda.from(
    async (input: { raw: BaseMessage }, config): Promise<JsonObject> => {
      try {
        return { raw: input.raw, parsed: await parser.invoke(input.raw, config) };
      } catch (error) {
        return { raw: input.raw, parsed: null, parsingError: error };
      }
    },
  );
  return RunnableSequence.from([
    { raw: llm } as unknown as RunnableLike<BaseLanguageModelInput, { raw: BaseMessage }>,
    parseOrKeepError,
  ]).withConfig({ runName: "StructuredOutputRunnable" });
}

function schemaName(schema: object, isTypedSchema: boolean): string | undefined {
  if (isTypedSchema) return undefined;
  const { name, title } = schema as { name?: unknown; title?: unknown };
  if (typeof name === "string" && name) return name;
  if (typeof title === "string" && title) return title;
  return undefined;
}

/**
 * Core's tool-call parser returns `undefined` when the reply has no call of the expected tool;
 * structured output must fail loudly instead. Also validates against a plain JSON schema.
 */
export class StudioToolCallOutputParser extends JsonOutputKeyToolsParser<JsonObject> {
  static override lc_name(): string {
    return "StudioToolCallOutputParser";
  }

  jsonSchema: JsonObject | undefined;

  constructor(
    params: ConstructorParameters<typeof JsonOutputKeyToolsParser<JsonObject>>[0] & {
      jsonSchema?: JsonObject;
    },
  ) {
    super(params);
    this.jsonSchema = params.jsonSchema;
  }

  override async parseResult(generations: ChatGeneration[]): Promise<JsonObject> {
    throwIfRefusal(generations[0]?.message);
    const result: JsonObject | undefined = await super.parseResult(generations);
    if (result === undefined) {
      throw new OutputParserException(missingCallMessage(generations[0]?.message, this.keyName));
    }
    if (this.jsonSchema) assertMatchesJsonSchema(this.jsonSchema, result);
    return result;
  }

  /**
   * A stream yields core's partial parses of the arguments as they arrive (for live display),
   * then the whole message is parsed as `invoke` parses it: arguments cut short raise the
   * parsing error instead of leaving the last guess as the stream's final value.
   */
  override async *_transform(
    input: AsyncGenerator<string | BaseMessage>,
  ): AsyncGenerator<JsonObject> {
    let whole: AIMessageChunk | undefined;
    async function* kept(): AsyncGenerator<string | BaseMessage> {
      for await (const chunk of input) {
        if (AIMessageChunk.isInstance(chunk)) whole = whole ? whole.concat(chunk) : chunk;
        yield chunk;
      }
    }
    let last: JsonObject | undefined;
    for await (const partial of super._transform(kept())) {
      last = partial;
      yield partial;
    }
    if (whole === undefined) return;
    const final = await this.parseResult([{ message: whole, text: whole.text }]);
    if (JSON.stringify(final) !== JSON.stringify(last)) yield final;
  }
}

function missingCallMessage(message: BaseMessage | undefined, keyName: string): string {
  if (message && AIMessage.isInstance(message)) {
    const invalid = message.invalid_tool_calls?.find((call) => call.name === keyName);
    if (invalid) {
      return (
        `The model called "${keyName}" but its arguments are not valid JSON ` +
        `(${invalid.error ?? "unparsable"}): ${String(invalid.args).slice(0, 200)}`
      );
    }
  }
  const text = message?.text ?? "";
  return (
    `The model did not call the "${keyName}" tool, so the reply holds no structured ` +
    `output. Reply text: ${JSON.stringify(text.slice(0, 200))}`
  );
}

/**
 * A reply's JSON text, parsed strictly and checked against a plain JSON schema (core validates
 * zod and standard schemas only). A plain `BaseOutputParser`, not a transform one, so a stream is
 * parsed once, from the whole reply, exactly as `invoke` parses it: core's `JsonOutputParser`
 * ends a stream with its partial parse, a guess such as `{ name: "Ada", age: 3 }` for a reply cut
 * short at `{"name":"Ada","age":3`.
 */
export class JsonSchemaReplyParser extends BaseOutputParser<JsonObject> {
  static override lc_name(): string {
    return "JsonSchemaReplyParser";
  }

  lc_namespace = ["langchain_studio", "output_parsers"];

  constructor(readonly jsonSchema: JsonObject) {
    super();
  }

  override async parseResult(generations: Generation[]): Promise<JsonObject> {
    throwIfRefusal((generations[0] as ChatGeneration | undefined)?.message);
    return super.parseResult(generations);
  }

  async parse(text: string): Promise<JsonObject> {
    let value: unknown;
    try {
      value = parseJsonMarkdown(text, JSON.parse);
    } catch (error) {
      throw new OutputParserException(
        "The reply is not valid JSON " +
          `(${error instanceof Error ? error.message : String(error)}): ` +
          `${JSON.stringify(text.slice(0, 200))}`,
        text,
      );
    }
    assertMatchesJsonSchema(this.jsonSchema, value);
    return value as JsonObject;
  }

  getFormatInstructions(): string {
    return "";
  }

  /** The message's text blocks joined, so that content as standard blocks (v1) parses too. */
  protected override _baseMessageToString(message: BaseMessage): string {
    return message.text;
  }
}

/**
 * Core's content parser for a zod or standard schema, with the refusal checked first: a streamed
 * reply reaches it whole too (core's content parsers are not transform parsers).
 */
export class RefusalCheckedParser<T> extends BaseOutputParser<T> {
  static override lc_name(): string {
    return "RefusalCheckedParser";
  }

  lc_namespace = ["langchain_studio", "output_parsers"];

  constructor(readonly inner: BaseOutputParser<T>) {
    super();
  }

  override async parseResult(generations: Generation[], callbacks?: Callbacks): Promise<T> {
    throwIfRefusal((generations[0] as ChatGeneration | undefined)?.message);
    return this.inner.parseResult(generations, callbacks);
  }

  parse(text: string, callbacks?: Callbacks): Promise<T> {
    return this.inner.parse(text, callbacks);
  }

  getFormatInstructions(): string {
    return this.inner.getFormatInstructions();
  }
}

const validators = new WeakMap<JsonObject, Validator>();

function assertMatchesJsonSchema(schema: JsonObject, value: unknown): void {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as never, draftOf(schema), false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  if (!result.valid) {
    const problems = result.errors
      .filter((error) => error.keyword !== "properties")
      .slice(0, 5)
      .map((error) => `${error.instanceLocation}: ${error.error}`)
      .join("; ");
    const text = JSON.stringify(value);
    throw new OutputParserException(
      `The structured reply does not match the schema: ${problems}. Reply: ${text.slice(0, 200)}`,
      text,
    );
  }
}

function draftOf(schema: JsonObject): "4" | "7" | "2019-09" | "2020-12" {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-07")) return "7";
  if (declared.includes("2020-12")) return "2020-12";
  return "2019-09";
}
