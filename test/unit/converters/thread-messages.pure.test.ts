import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import {
  decodeMessage,
  encodeMessage,
  encodeMessages,
  threadMessageClientId,
} from "../../../src/converters/thread-messages";
import { StudioResponseError, StudioValidationError } from "../../../src/errors";
import { validateMetadata } from "../../../src/validation";
import { storeLikeServer, view } from "../../helpers/thread-messages";

function roundTrip(message: BaseMessage, valueForm = false): BaseMessage {
  const input = encodeMessage(message, "cid-1");
  validateMetadata("metadata", input.metadata);
  return decodeMessage(storeLikeServer(input, { valueForm }));
}

describe("encodeMessage", () => {
  it("writes a human message as readable user text, with its type and client id", () => {
    const input = encodeMessage(new HumanMessage("Hello there"), "cid-1");
    expect(input).toEqual({
      role: "user",
      content: [{ type: "text", text: "Hello there" }],
      metadata: { lc_type: "human", lc_id: "cid-1" },
    });
  });

  it("writes AI text as assistant content and the rest in metadata, without the text twice", () => {
    const input = encodeMessage(
      new AIMessage({
        content: "It is sunny in Paris",
        id: "run-1",
        response_metadata: { model_provider: "studio", finish_reason: "stop" },
      }),
      "cid-2",
    );
    expect(input.role).toBe("assistant");
    expect(input.content).toEqual([{ type: "text", text: "It is sunny in Paris" }]);
    expect(input.metadata?.lc_type).toBe("ai");
    expect(JSON.stringify(input.metadata)).not.toContain("sunny");
    expect(JSON.parse(input.metadata?.lc_data_0 ?? "{}")).toEqual({
      data: { id: "run-1", response_metadata: { model_provider: "studio", finish_reason: "stop" } },
    });
  });

  it("writes system, tool, function and generic messages as user messages with their real type", () => {
    const cases: [BaseMessage, string][] = [
      [new SystemMessage("Be brief"), "system"],
      [new ToolMessage({ content: "42", tool_call_id: "call_1" }), "tool"],
      [new FunctionMessage({ content: "ok", name: "fn" }), "function"],
      [new ChatMessage({ content: "note", role: "critic" }), "generic"],
    ];
    for (const [message, type] of cases) {
      const input = encodeMessage(message, "cid");
      expect(input.role).toBe("user");
      expect(input.metadata?.lc_type).toBe(type);
      expect(input.content).toEqual([{ type: "text", text: message.content }]);
    }
  });

  it("shows the tool calls as the text of an AI message with empty content", () => {
    const input = encodeMessage(
      new AIMessage({
        content: "",
        tool_calls: [{ id: "c1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }],
      }),
      "cid",
    );
    expect(input.content).toEqual([{ type: "text", text: 'get_weather({"city":"Paris"})' }]);
  });

  it("splits a large record across lc_data_n values within the metadata limits", () => {
    const message = new AIMessage({
      content: "done",
      additional_kwargs: { blob: "é".repeat(3000) },
    });
    const input = encodeMessage(message, "cid");
    expect(Object.keys(input.metadata ?? {}).filter((k) => k.startsWith("lc_data_")).length).toBe(
      6,
    );
    expect(() => validateMetadata("metadata", input.metadata)).not.toThrow();
    expect(view(decodeMessage(storeLikeServer(input)))).toEqual(view(message));
  });

  it("rejects a message that cannot fit, naming it and the largest parts", () => {
    const message = new ToolMessage({
      content: "rows",
      tool_call_id: "c1",
      artifact: { rows: "x".repeat(8000) },
    });
    const error = (() => {
      try {
        encodeMessages([new HumanMessage("ok"), new HumanMessage("fine"), message]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe("messages[2]");
    expect((error as Error).message).toMatch(/at most 7168.*artifact/);
  });

  it("counts metadata values, not characters: a record that fits in 7168 characters but whose pieces shift at surrogate pairs is refused, never sent with too many keys", () => {
    // The record's JSON is exactly 7168 characters, but the emoji run starts at an odd offset, so
    // the first piece ends one short (511) to keep a surrogate pair whole and a 15th piece is needed.
    const message = new AIMessage({
      content: "done",
      additional_kwargs: { blob: `a${"😀".repeat(3562)}b` },
    });
    let input: ReturnType<typeof encodeMessage> | undefined;
    try {
      input = encodeMessage(message, "cid");
    } catch (error) {
      expect(error).toBeInstanceOf(StudioValidationError);
      return;
    }
    expect(() => validateMetadata("metadata", input?.metadata)).not.toThrow();
  });

  it("rejects messages that are not JSON and message types a thread cannot hold", () => {
    expect(() =>
      encodeMessage(new HumanMessage({ content: "x", additional_kwargs: { n: 1n } }), "c"),
    ).toThrow(StudioValidationError);
    expect(() => encodeMessage(new RemoveMessage({ id: "m1" }), "c")).toThrow(/"remove" message/);
  });

  it("gives each message of a batch its own client id", () => {
    let n = 0;
    const encoded = encodeMessages([new HumanMessage("a"), new AIMessage("b")], () => `id-${n++}`);
    expect(encoded.map((e) => e.clientId)).toEqual(["id-0", "id-1"]);
    expect(threadMessageClientId(storeLikeServer(encoded[1]!.input))).toBe("id-1");
  });
});

describe("decodeMessage of this codec's messages", () => {
  it("round-trips every message type with all its fields", () => {
    const messages: BaseMessage[] = [
      new SystemMessage({ content: "You are terse.", id: "s1", name: "rules" }),
      new HumanMessage({
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
        ],
        id: "h1",
        name: "ana",
        additional_kwargs: { locale: "fr" },
      }),
      new AIMessage({
        content: "",
        id: "a1",
        name: "bot",
        tool_calls: [{ id: "call_1", name: "lookup", args: { q: "cat" }, type: "tool_call" }],
        invalid_tool_calls: [
          {
            id: "call_2",
            name: "lookup",
            args: "{bad",
            error: "bad json",
            type: "invalid_tool_call",
          },
        ],
        usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        response_metadata: {
          model_provider: "studio",
          model_name: "o/m",
          finish_reason: "tool_calls",
        },
        additional_kwargs: { refusal: null },
      }),
      new ToolMessage({
        content: "a cat",
        tool_call_id: "call_1",
        status: "success",
        artifact: { hits: [1, 2, 3], source: null },
        id: "t1",
        name: "lookup",
        metadata: { ms: 12 },
      }),
      new ToolMessage({ content: "boom", tool_call_id: "call_3", status: "error" }),
      new FunctionMessage({ content: '{"ok":true}', name: "legacy_fn", id: "f1" }),
      new ChatMessage({ content: "Looks right.", role: "reviewer", id: "g1", name: "rev" }),
      new AIMessage({
        content: [
          { type: "text", text: "multi" },
          { type: "reasoning", reasoning: "r" },
        ],
      }),
    ];
    for (const message of messages) {
      const back = roundTrip(message, true);
      expect(back.constructor).toBe(message.constructor);
      expect(view(back)).toEqual(view(message));
    }
  });

  it("keeps an id assigned after construction and kwargs that look like serialized objects", () => {
    const message = new HumanMessage({
      content: "hi",
      additional_kwargs: { ref: { lc: 1, type: "secret", id: ["KEY"] } },
    });
    message.id = "late-id";
    expect(view(roundTrip(message))).toEqual(view(message));
  });

  it("keeps v1 content of an AI message built from content blocks", () => {
    const message = new AIMessage({
      contentBlocks: [
        { type: "reasoning", reasoning: "thinking" },
        { type: "text", text: "answer" },
      ],
      tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }],
    });
    expect(view(roundTrip(message))).toEqual(view(message));
  });

  it("stores a chunk as its message", () => {
    const chunk = new AIMessageChunk({ content: "partial", id: "run-9" });
    const back = roundTrip(chunk);
    expect(back).toBeInstanceOf(AIMessage);
    expect(back.content).toBe("partial");
    expect(back.id).toBe("run-9");
  });

  it("reports a message whose codec metadata was damaged", () => {
    const input = encodeMessage(
      new ToolMessage({ content: "x", tool_call_id: "c1", artifact: "y".repeat(1500) }),
      "cid",
    );
    const gap = storeLikeServer(input, { id: "msg_9", threadId: "thread_7" });
    delete gap.metadata?.lc_data_1;
    expect(() => decodeMessage(gap)).toThrow(StudioResponseError);
    expect(() => decodeMessage(gap)).toThrow(/msg_9.*lc_data_1 is missing/);
    const cut = storeLikeServer(input, { id: "msg_9" });
    delete cut.metadata?.lc_data_2;
    expect(() => decodeMessage(cut)).toThrow(/msg_9.*cannot be read back/);
  });
});

describe("decodeMessage of messages written by others", () => {
  const foreign = (over: Partial<ThreadMessage>): ThreadMessage => ({
    id: "msg_f",
    role: "user",
    content: [{ type: "text", text: "hi" }],
    ...over,
  });

  it("reads user as human and assistant as AI, in both text forms", () => {
    const human = decodeMessage(foreign({ metadata: { source: "dashboard" } }));
    expect(human).toBeInstanceOf(HumanMessage);
    expect(view(human)).toMatchObject({ type: "human", content: "hi", id: "msg_f" });
    const ai = decodeMessage(
      foreign({ role: "assistant", content: [{ type: "text", text: { value: "hello" } }] }),
    );
    expect(ai).toBeInstanceOf(AIMessage);
    expect(ai.content).toBe("hello");
  });

  it("reads image items as image blocks", () => {
    const message = decodeMessage(
      foreign({
        content: [
          { type: "text", text: "see" },
          { type: "image_file", imageFile: { fileId: "file_1", detail: "auto" } },
        ],
      }),
    );
    expect(message.content).toEqual([
      { type: "text", text: "see" },
      { type: "image", fileId: "file_1" },
    ]);
  });

  it("reads a system message written by another tool as a SystemMessage (issue 14.12)", () => {
    const message = decodeMessage(foreign({ id: "msg_s", role: "system" }));
    expect(message).toBeInstanceOf(SystemMessage);
    expect([message.getType(), message.id]).toEqual(["system", "msg_s"]);
  });

  it("keeps an unexpected role as a generic chat message", () => {
    const message = decodeMessage(foreign({ role: "critic" }));
    expect(message).toBeInstanceOf(ChatMessage);
    expect((message as ChatMessage).role).toBe("critic");
  });
});
