/**
 * Every class and call that takes options refuses a name it does not know, with the known name
 * the caller probably meant (a misspelt option would otherwise be dropped without a word, and a
 * setting the user believes is on would be off). Nothing is sent: no test here has a server.
 */
import { describe, expect, it } from "vitest";
import { loadAssistantAgent } from "../../../src/agents";
import { createAssistant, listAssistants } from "../../../src/assistants";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import {
  exportFineTuneRecords,
  loadDatasetConversations,
  StudioConversationRecorder,
} from "../../../src/datasets";
import { StudioValidationError } from "../../../src/errors";
import { createEncryptedSerde, StudioCheckpointSaver, StudioStore } from "../../../src/langgraph";
import { StudioLLM } from "../../../src/llms";

const MODEL = "acme/model-1";
const KEY = "sk-unknown-options-test";
const ADDRESSES = {
  apiKey: KEY,
  baseUrl: "http://127.0.0.1:9",
  proxyUrl: "http://127.0.0.1:9",
  maxRetries: 0,
};
const KEY_B64 = Buffer.alloc(32, 7).toString("base64");

/** The `[field, message]` of the StudioValidationError `work` throws (or rejects with). */
async function refusal(work: () => unknown): Promise<[string, string]> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    const e = error as StudioValidationError;
    return [e.field, e.message];
  }
  throw new Error("accepted");
}

/** Reads the first item of an async iterable (where its checks run). */
const first = (iterable: AsyncIterable<unknown>) => iterable[Symbol.asyncIterator]().next();

const CASES: [name: string, work: () => unknown, field: string, message: string][] = [
  [
    "ChatStudio maxToken",
    () => new ChatStudio({ model: MODEL, maxToken: 5 } as never),
    "maxToken",
    'Invalid maxToken: is not a ChatStudio option; did you mean "maxTokens"?',
  ],
  [
    "ChatStudio modelName (ChatOpenAI's spelling)",
    () => new ChatStudio({ modelName: MODEL } as never),
    "modelName",
    `Invalid modelName: is not a ChatStudio option; did you mean "model"? (ChatOpenAI's modelName is model here)`,
  ],
  [
    "StudioLLM temprature",
    () => new StudioLLM(MODEL, { temprature: 0.2 } as never),
    "temprature",
    'Invalid temprature: is not a StudioLLM option; did you mean "temperature"?',
  ],
  [
    "ChatStudio, nothing close",
    () => new ChatStudio(MODEL, { colour: "blue" } as never),
    "colour",
    "Invalid colour: is not a ChatStudio option (known: model, maxTokens, temperature, topP, n, stop, presencePenalty, frequencyPenalty, penalty, logitBias, seed, user, streaming, streamUsage, maxConcurrency, modelKwargs, stopSequences, and the client options)",
  ],
  [
    "ChatStudio call option maxToken",
    () => new ChatStudio(MODEL, ADDRESSES).invoke("hi", { maxToken: 5 } as never),
    "maxToken",
    'Invalid maxToken: is not a ChatStudio call option; did you mean "maxTokens"?',
  ],
  [
    "StudioClient baseURL",
    () => new StudioClient({ baseURL: "https://studio.example.com" } as never),
    "baseURL",
    'Invalid baseURL: is not a StudioClient option; did you mean "baseUrl"?',
  ],
  [
    "StudioClient call option timout",
    () => new StudioClient(ADDRESSES).getThread("t1", { timout: 5 } as never),
    "timout",
    'Invalid timout: is not a request option; did you mean "timeout"?',
  ],
  [
    "StudioCheckpointSaver tll",
    () => new StudioCheckpointSaver({ tll: { defaultTTL: 60 } } as never),
    "tll",
    'Invalid tll: is not a StudioCheckpointSaver option; did you mean "ttl"?',
  ],
  [
    "StudioCheckpointSaver ttl.defaultTtl (the store's spelling)",
    () => new StudioCheckpointSaver({ ttl: { defaultTtl: 60 } } as never),
    "ttl.defaultTtl",
    "Invalid ttl.defaultTtl: is not a StudioCheckpointSaver ttl option; the checkpointer spells it defaultTTL, as LangGraph's Redis saver does",
  ],
  [
    "StudioCheckpointSaver ttl.sweepIntervalMinutes (the store's timer)",
    () => new StudioCheckpointSaver({ ttl: { defaultTTL: 60, sweepIntervalMinutes: 5 } } as never),
    "ttl.sweepIntervalMinutes",
    "Invalid ttl.sweepIntervalMinutes: is not a StudioCheckpointSaver ttl option; the checkpointer sweeps when sweep() or deleteThreads() is called: call it on a schedule",
  ],
  [
    "deleteThreads maxAge",
    () => new StudioCheckpointSaver(ADDRESSES).deleteThreads({ maxAge: 1000 } as never),
    "maxAge",
    'Invalid maxAge: is not a deleteThreads option; did you mean "maxAgeMs"?',
  ],
  [
    "sweep dryrun",
    () => new StudioCheckpointSaver(ADDRESSES).sweep({ dryrun: true } as never),
    "dryrun",
    'Invalid dryrun: is not a sweep option; did you mean "dryRun"?',
  ],
  [
    "prune with a string of ids",
    () => new StudioCheckpointSaver(ADDRESSES).prune("t1" as never, { keepLast: 1 }),
    "threadIds",
    'Invalid threadIds: must be an array of thread ids, e.g. prune(["t1"], { keepLast: 1 }) (got "t1")',
  ],
  [
    "prune keep",
    () => new StudioCheckpointSaver(ADDRESSES).prune(["t1"], { keep: 1 } as never),
    "keep",
    'Invalid keep: is not a prune option; did you mean "keepLast"?',
  ],
  [
    "StudioStore ttl.defaultTTL (the checkpointer's spelling)",
    () => new StudioStore({ ttl: { defaultTTL: 60 } } as never),
    "ttl.defaultTTL",
    "Invalid ttl.defaultTTL: is not a StudioStore ttl option; the store spells it defaultTtl, as LangGraph's stores do",
  ],
  [
    "StudioStore datasetID",
    () => new StudioStore({ datasetID: "d1" } as never),
    "datasetID",
    'Invalid datasetID: is not a StudioStore option; did you mean "datasetId"?',
  ],
  [
    "StudioStore.search limt",
    () => new StudioStore(ADDRESSES).search(["docs"], { limt: 5 } as never),
    "limt",
    'Invalid limt: is not a StudioStore.search option; did you mean "limit"?',
  ],
  [
    "StudioStore.put tll",
    () => new StudioStore(ADDRESSES).put(["docs"], "k", { a: 1 }, undefined, { tll: 5 } as never),
    "tll",
    'Invalid tll: is not a StudioStore.put option; did you mean "ttl"?',
  ],
  [
    "StudioStore.listNamespaces maxdepth",
    () => new StudioStore(ADDRESSES).listNamespaces({ maxdepth: 2 } as never),
    "maxdepth",
    'Invalid maxdepth: is not a StudioStore.listNamespaces option; did you mean "maxDepth"?',
  ],
  [
    "StudioChatMessageHistory sessionID",
    () => new StudioChatMessageHistory({ sessionID: "s1" } as never),
    "sessionID",
    'Invalid sessionID: is not a StudioChatMessageHistory option; did you mean "sessionId"?',
  ],
  [
    "StudioChatMessageHistory.listThreads query datasetID",
    () => first(StudioChatMessageHistory.listThreads({ datasetID: "d1" } as never, ADDRESSES)),
    "datasetID",
    'Invalid datasetID: is not a listThreads query option; did you mean "datasetId"?',
  ],
  [
    "StudioChatMessageHistory.listThreads options baseURL",
    () => first(StudioChatMessageHistory.listThreads({}, { baseURL: "http://x" } as never)),
    "baseURL",
    'Invalid baseURL: is not a client option; did you mean "baseUrl"?',
  ],
  [
    "createEncryptedSerde activeKey",
    () => createEncryptedSerde({ keys: { k1: KEY_B64 }, activeKey: "k1" } as never),
    "activeKey",
    'Invalid activeKey: is not a createEncryptedSerde option; did you mean "activeKeyId"?',
  ],
  [
    "createAssistant instruction",
    () => createAssistant({ assistantName: "a", instruction: "be brief" } as never, ADDRESSES),
    "instruction",
    'Invalid instruction: is not a createAssistant input option; did you mean "instructions"?',
  ],
  [
    "createAssistant functionModel.temprature",
    () =>
      createAssistant(
        { assistantName: "a", functionModel: { temprature: 0.5 } } as never,
        ADDRESSES,
      ),
    "functionModel.temprature",
    'Invalid functionModel.temprature: is not a model settings option; did you mean "temperature"?',
  ],
  [
    "listAssistants limt",
    () => first(listAssistants({ ...ADDRESSES, limt: 5 } as never)),
    "limt",
    'Invalid limt: is not a listAssistants option; did you mean "limit"?',
  ],
  [
    "loadAssistantAgent maxIteration",
    () => loadAssistantAgent({ assistantId: "a1", maxIteration: 3, ...ADDRESSES } as never),
    "maxIteration",
    'Invalid maxIteration: is not a loadAssistantAgent option; did you mean "maxIterations"?',
  ],
  [
    "StudioConversationRecorder sampleRatio",
    () => new StudioConversationRecorder({ datasetId: "d1", sampleRatio: 0.5 } as never),
    "sampleRatio",
    'Invalid sampleRatio: is not a StudioConversationRecorder option; did you mean "sampleRate"?',
  ],
  [
    "exportFineTuneRecords onskip",
    () =>
      first(
        exportFineTuneRecords({
          datasetId: "d1",
          format: "langchain",
          onskip: () => {},
          ...ADDRESSES,
        } as never),
      ),
    "onskip",
    'Invalid onskip: is not an exportFineTuneRecords option; did you mean "onSkip"?',
  ],
  [
    "loadDatasetConversations pagesize",
    () => first(loadDatasetConversations({ datasetId: "d1", pagesize: 5, ...ADDRESSES } as never)),
    "pagesize",
    'Invalid pagesize: is not a loadDatasetConversations option; did you mean "pageSize"?',
  ],
];

describe("unknown options are refused with the known name", () => {
  it.each(CASES)("%s", async (_name, work, field, message) => {
    expect(await refusal(work)).toEqual([field, message]);
  });
});
