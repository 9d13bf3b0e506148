/**
 * State values as protocol v2 sends them (`values` and `updates` events, `state.get`): each
 * message of the state becomes the protocol's plain message (`type`, `content`, `id`, `name`,
 * tool calls parsed, tool fields), whatever form the graph holds it in (a LangChain message or
 * its dict). Pure functions; `@langchain/react` reads these shapes back into messages.
 */

type Json = Record<string, unknown>;

const MESSAGE_TYPES = new Set(["human", "ai", "system", "tool", "function", "remove"]);

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}

function messageType(value: unknown): string | undefined {
  if (value === "assistant") return "ai";
  if (value === "user") return "human";
  return typeof value === "string" ? value : undefined;
}

/** Whether `value` is a message of the state (a LangChain message or its dict). */
export function isStateMessage(value: unknown): value is Json {
  return isRecord(value) && MESSAGE_TYPES.has(messageType(value.type) ?? "");
}

/** A content block the protocol knows by type; the OpenAI `image_url` form becomes `image`. */
function contentBlock(value: unknown): unknown {
  if (typeof value === "string") return { type: "text", text: value };
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  if (value.type !== "image_url") return value;
  const image = value.image_url;
  const url = typeof image === "string" ? image : isRecord(image) ? image.url : undefined;
  return typeof url === "string" ? { type: "image", url } : undefined;
}

function content(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? "";
  const blocks = value.map(contentBlock).filter((block) => block !== undefined);
  return blocks.length > 0 ? blocks : value;
}

/** Tool call arguments as an object: a JSON string is parsed, an empty one is `{}`. */
function toolArgs(raw: unknown): { valid: boolean; args: unknown } {
  if (raw == null || raw === "") return { valid: true, args: {} };
  if (typeof raw !== "string") return { valid: true, args: raw };
  try {
    return { valid: true, args: JSON.parse(raw) };
  } catch {
    return { valid: false, args: raw };
  }
}

function toolCallName(call: Json): string | undefined {
  if (typeof call.name === "string") return call.name;
  const fn = isRecord(call.function) ? call.function : undefined;
  return typeof fn?.name === "string" ? fn.name : undefined;
}

function toolCalls(raw: unknown): { valid: Json[]; invalid: Json[] } {
  const valid: Json[] = [];
  const invalid: Json[] = [];
  if (!Array.isArray(raw)) return { valid, invalid };
  for (const call of raw) {
    if (!isRecord(call)) continue;
    const id = typeof call.id === "string" ? { id: call.id } : {};
    const name = toolCallName(call);
    const fn = isRecord(call.function) ? call.function : undefined;
    const rawArgs = "args" in call ? call.args : fn?.arguments;
    const parsed = toolArgs(rawArgs);
    const text = typeof rawArgs === "string" ? { args: rawArgs } : {};
    if (name === undefined) {
      invalid.push({ ...id, ...text, error: "Incomplete tool call.", type: "invalid_tool_call" });
    } else if (!parsed.valid) {
      invalid.push({ ...id, name, ...text, error: "Malformed args.", type: "invalid_tool_call" });
    } else {
      valid.push({ ...id, name, args: parsed.args, type: "tool_call" });
    }
  }
  return { valid, invalid };
}

function invalidToolCalls(raw: unknown): Json[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((call) => ({
    ...(typeof call.id === "string" ? { id: call.id } : {}),
    ...(toolCallName(call) !== undefined ? { name: toolCallName(call) } : {}),
    ...(typeof call.args === "string" ? { args: call.args } : {}),
    error: typeof call.error === "string" ? call.error : "Malformed args.",
    type: "invalid_tool_call",
  }));
}

/** One message of the state in the protocol's shape. */
export function stateMessage(value: Json): Json {
  const type = messageType(value.type);
  if (type === undefined) return value;
  const message: Json = { type, content: content("content" in value ? value.content : "") };
  if (typeof value.id === "string") message.id = value.id;
  if (typeof value.name === "string") message.name = value.name;
  // HITL cards travel on response_metadata; only a non-empty one is sent.
  const meta = value.response_metadata;
  if (isRecord(meta) && Object.keys(meta).length > 0) message.response_metadata = meta;
  if ((type === "ai" || type === "human") && typeof value.example === "boolean") {
    message.example = value.example;
  }
  if (type === "tool") {
    if (typeof value.tool_call_id === "string") message.tool_call_id = value.tool_call_id;
    if (value.status === "success" || value.status === "error") message.status = value.status;
    if ("artifact" in value && value.artifact !== undefined) message.artifact = value.artifact;
  }
  if (type === "ai") {
    const extra = isRecord(value.additional_kwargs) ? value.additional_kwargs : undefined;
    const rawCalls =
      Array.isArray(value.tool_calls) && value.tool_calls.length > 0
        ? value.tool_calls
        : extra?.tool_calls;
    const calls = toolCalls(rawCalls);
    const invalid =
      Array.isArray(value.invalid_tool_calls) && value.invalid_tool_calls.length > 0
        ? invalidToolCalls(value.invalid_tool_calls)
        : calls.invalid;
    if (calls.valid.length > 0) message.tool_calls = calls.valid;
    if (invalid.length > 0) message.invalid_tool_calls = invalid;
  }
  return message;
}

/** State values with every message in the protocol's shape and `__interrupt__` left out. */
export function stateValues(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => (isStateMessage(item) ? stateMessage(item) : stateValues(item)));
  }
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === "__interrupt__") continue;
    out[key] =
      key === "messages" && Array.isArray(entry)
        ? entry.map((item) => (isStateMessage(item) ? stateMessage(item) : item))
        : stateValues(entry);
  }
  return out;
}
