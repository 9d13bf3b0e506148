/**
 * The recorder driven the way LangChain's callback manager drives it (start, end, error per run
 * id), against a scripted service: exact requests, sampling, the cap on pending writes, and what
 * reaches `onError`.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import type { DatasetThreadMessages, ThreadMessageInput } from "../../../src/api-types";
import {
  StudioConversationRecorder,
  type StudioConversationRecorderInput,
  StudioRecordingError,
} from "../../../src/datasets";
import { decodeRunThread } from "../../../src/datasets/run-thread";
import { StudioValidationError } from "../../../src/errors";
import { storeLikeServer, view } from "../../helpers/thread-messages";
import { type FakeRequest, fakeService, jsonResponse, threadAnswer } from "./fake-service";

const LLM = { lc: 1, type: "not_implemented", id: ["test"] } as Serialized;

const getWeather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "Weather in a city.",
  schema: z.object({ city: z.string() }),
});

const SENT = [new SystemMessage("Be brief."), new HumanMessage('Weather? {"city": "Paris"}')];
const ANSWER = new AIMessage({
  content: "",
  tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }],
});

/** One model run as core reports it: start (with the bound tools), then end with `answer`. */
function modelRun(
  recorder: StudioConversationRecorder,
  runId: string,
  answer: unknown = ANSWER,
): void {
  recorder.handleChatModelStart(LLM, [SENT], runId, undefined, {
    options: { tools: [getWeather] },
    invocation_params: { model: "studio/echo-small" },
  });
  recorder.handleLLMEnd({ generations: [[{ text: "", message: answer } as never]] }, runId);
}

function recorderOn(
  answer: (request: FakeRequest) => Response | Promise<Response>,
  fields: Partial<StudioConversationRecorderInput> = {},
) {
  const { client, requests } = fakeService(answer);
  const errors: StudioRecordingError[] = [];
  const recorder = new StudioConversationRecorder({
    datasetId: "ds_unit",
    client,
    onError: (error) => errors.push(error),
    ...fields,
  });
  return { recorder, requests, errors };
}

const creates = (requests: FakeRequest[]) =>
  requests.filter((r) => r.method === "POST" && r.path === "/v1/threads");

afterEach(() => {
  vi.restoreAllMocks();
});

describe("StudioConversationRecorder", () => {
  it("stores a run as one create-thread call holding the run id, the tools and every message", async () => {
    const { recorder, requests, errors } = recorderOn((r) => threadAnswer("thread_1", r.body));
    modelRun(recorder, "run-1");
    expect(recorder.pendingWrites).toBe(1);
    await recorder.flush();

    expect(errors).toEqual([]);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/threads"]);
    const body = requests[0]!.body as { datasetId: string; metadata: unknown };
    expect(body.datasetId).toBe("ds_unit");
    expect(body.metadata).toEqual({
      lc_thread_key: "run-1",
      lc_kind: "model_run",
      lc_model: "studio/echo-small",
    });
    const stored: DatasetThreadMessages = {
      threadId: "thread_1",
      messages: (requests[0]!.body as { messages: ThreadMessageInput[] }).messages.map((m, i) =>
        storeLikeServer(m, { id: `m${i}` }),
      ),
    };
    const conversation = decodeRunThread(stored);
    expect(conversation.runId).toBe("run-1");
    expect(conversation.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather in a city.",
          parameters: expect.objectContaining({ properties: { city: { type: "string" } } }),
        },
      },
    ]);
    expect(conversation.messages.map(view)).toEqual([...SENT, ANSWER].map(view));
  });

  it("stores a run once however often its end is reported, and not at all after an error", async () => {
    const { recorder, requests } = recorderOn((r) => threadAnswer("t", r.body));
    modelRun(recorder, "run-1");
    recorder.handleLLMEnd({ generations: [[{ text: "", message: ANSWER } as never]] }, "run-1");
    recorder.handleChatModelStart(LLM, [SENT], "run-2");
    recorder.handleLLMError(new Error("model down"), "run-2");
    recorder.handleLLMEnd({ generations: [[{ text: "", message: ANSWER } as never]] }, "run-2");
    await recorder.flush();
    expect(creates(requests).map((r) => (r.body as { metadata: object }).metadata)).toEqual([
      expect.objectContaining({ lc_thread_key: "run-1" }),
    ]);
  });

  it("records the fraction sampleRate of runs, drawn per run", async () => {
    const draws = [0.2, 0.7, 0.49];
    vi.spyOn(Math, "random").mockImplementation(() => draws.shift() ?? 0);
    const { recorder, requests } = recorderOn((r) => threadAnswer("t", r.body), {
      sampleRate: 0.5,
    });
    for (const runId of ["a", "b", "c"]) modelRun(recorder, runId);
    await recorder.flush();
    const keys = creates(requests).map((r) => r.body as { metadata: Record<string, string> });
    expect(keys.map((b) => b.metadata.lc_thread_key)).toEqual(["a", "c"]);
  });

  it("drops a run when maxPendingWrites writes are in flight, and says so", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { recorder, requests, errors } = recorderOn(
      async (r) => {
        await gate;
        return threadAnswer("t", r.body);
      },
      { maxPendingWrites: 1 },
    );
    modelRun(recorder, "run-1");
    modelRun(recorder, "run-2");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ runId: "run-2", stored: "no", datasetId: "ds_unit" });
    expect(errors[0]!.message).toContain("1 writes were already pending (maxPendingWrites)");
    release();
    await recorder.flush();
    expect(creates(requests)).toHaveLength(1);
    modelRun(recorder, "run-3");
    await recorder.flush();
    expect(creates(requests)).toHaveLength(2);
  });

  it("reports a refused write as not stored, with the service's error as cause", async () => {
    const { recorder, errors } = recorderOn(() =>
      jsonResponse(400, { error: { message: "datasetId unknown", type: "invalid_request_error" } }),
    );
    modelRun(recorder, "run-1");
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StudioRecordingError);
    expect(errors[0]).toMatchObject({ runId: "run-1", stored: "no" });
    expect(errors[0]!.message).toMatch(
      /^Chat model run run-1 was not recorded in dataset "ds_unit": .*datasetId unknown/,
    );
  });

  it("reports a write it cannot settle as maybe stored", async () => {
    // The create fails in a way that may have stored it, and reading back fails too.
    const { recorder, requests, errors } = recorderOn(() =>
      jsonResponse(503, { error: { message: "overloaded", type: "server_error" } }),
    );
    modelRun(recorder, "run-1");
    await recorder.flush();
    expect(requests.map((r) => r.method)).toEqual(["POST", "GET"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ runId: "run-1", stored: "unknown" });
    expect(errors[0]!.message).toContain("may not have been recorded");
  });

  it("stores what redact returns, and nothing when redact fails or returns something else", async () => {
    const { recorder, requests, errors } = recorderOn((r) => threadAnswer("t", r.body), {
      redact: (messages) => messages.slice(1),
    });
    modelRun(recorder, "kept");
    await recorder.flush();
    const sent = (creates(requests)[0]!.body as { messages: ThreadMessageInput[] }).messages;
    expect(sent.map((m) => m.metadata?.lc_type)).toEqual(["system", "human", "ai"]);

    for (const redact of [
      () => {
        throw new Error("detector crashed");
      },
      () => "not messages" as never,
    ]) {
      const failing = recorderOn((r) => threadAnswer("t", r.body), { redact });
      modelRun(failing.recorder, "run-x");
      await failing.recorder.flush();
      expect(failing.requests).toEqual([]);
      expect(failing.errors).toHaveLength(1);
      expect(failing.errors[0]!.message).toMatch(/redact .*nothing was stored/);
    }
    expect(errors).toEqual([]);
  });

  it("never throws into the call: an onError that throws and a missing answer are contained", async () => {
    const { recorder, requests } = recorderOn(() => jsonResponse(500, {}), {
      onError: () => {
        throw new Error("bad handler");
      },
    });
    expect(() => modelRun(recorder, "no-answer", null)).not.toThrow();
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(requests).toEqual([]);
    // The service fails in the background, and onError throws there too.
    modelRun(recorder, "run-1");
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(creates(requests)).toHaveLength(1);
  });

  it("warns on the console when no onError is given", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { client } = fakeService(() => jsonResponse(400, { error: { message: "no" } }));
    const recorder = new StudioConversationRecorder({ datasetId: "ds", client });
    modelRun(recorder, "run-1");
    await recorder.flush();
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^\[langchain-studio\] Chat model run run-1 was not recorded/),
    );
  });

  it("has a run's write pending when the call returns, even behind slow background callbacks", async () => {
    const { recorder, requests } = recorderOn((r) => threadAnswer("t", r.body));
    // Core runs handlers on one background queue unless they ask to be awaited: a slow one
    // (a tracer on a bad network) would otherwise hold the recorder's callbacks back.
    const slow = BaseCallbackHandler.fromMethods({
      handleLLMEnd: () => new Promise((resolve) => setTimeout(resolve, 300)),
    });
    const model = new FakeListChatModel({ responses: ["hello"] });
    await model.invoke("hi", { callbacks: [slow, recorder] });
    await recorder.flush();
    expect(creates(requests)).toHaveLength(1);
  });

  it("never shows the key when serialized or logged", () => {
    const recorder = new StudioConversationRecorder({
      datasetId: "ds",
      apiKey: "sk-recorder-secret-42",
      baseUrl: "http://studio.test",
    });
    expect(JSON.stringify(recorder)).not.toContain("sk-recorder-secret-42");
  });

  it("checks its fields before anything runs", () => {
    const { client } = fakeService(() => jsonResponse(200, {}));
    const field = (fields: Partial<StudioConversationRecorderInput>) => {
      try {
        new StudioConversationRecorder({ datasetId: "ds", client, ...fields });
      } catch (error) {
        return error instanceof StudioValidationError ? error.field : error;
      }
      return undefined;
    };
    expect(field({ datasetId: "" })).toBe("datasetId");
    expect(field({ sampleRate: 1.5 })).toBe("sampleRate");
    expect(field({ sampleRate: Number.NaN })).toBe("sampleRate");
    expect(field({ maxPendingWrites: 0 })).toBe("maxPendingWrites");
    expect(field({ redact: "yes" as never })).toBe("redact");
    expect(field({ onError: 1 as never })).toBe("onError");
    expect(field({ sampleRate: 0, maxPendingWrites: 5 })).toBeUndefined();
  });
});
