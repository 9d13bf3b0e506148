/**
 * `ChatStudio.fromModel` returns a model whose profile is loaded; a profile read before it was
 * loaded warns once per process (this file's module state is its own: vitest isolates files).
 */
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioAuthenticationError } from "../../../src/errors";
import { KEY, MODEL, modelListing, ORIGIN, PROXY_URL } from "./helpers";

const BASE_URL = `${ORIGIN}/studio`;
const LIST_PATH = "/studio/svc.Studio/ListPublicModels";
const fields = { apiKey: KEY, proxyUrl: PROXY_URL, baseUrl: BASE_URL, fetch: globalThis.fetch };

const listing = modelListing;

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
});

describe("ChatStudio.fromModel", () => {
  it("returns the model with its profile loaded, from either constructor form", async () => {
    nock(ORIGIN).post(LIST_PATH).reply(200, listing).persist();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const model = await ChatStudio.fromModel(MODEL, { ...fields, temperature: 0 });
    expect(model).toBeInstanceOf(ChatStudio);
    expect(model.temperature).toBe(0);
    expect(model.profile).toMatchObject({
      toolCalling: true,
      structuredOutput: true,
      maxInputTokens: 32768,
    });
    const viaFields = await ChatStudio.fromModel({
      model: MODEL,
      ...fields,
      profile: { maxInputTokens: 1000 },
    });
    expect(viaFields.profile).toMatchObject({ toolCalling: true, maxInputTokens: 1000 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("rejects when the listing cannot be read, rather than return a model without profile", async () => {
    nock(ORIGIN)
      .post(LIST_PATH)
      .reply(401, { error: { message: "bad key" } });
    await expect(ChatStudio.fromModel(MODEL, { ...fields, maxRetries: 0 })).rejects.toBeInstanceOf(
      StudioAuthenticationError,
    );
  });
});

describe("a profile read before it was loaded", () => {
  // First in the file: the warning is given once per process.
  it("is not what withStructuredOutput warns about: it defaults to functionCalling silently", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const schema = { type: "object", properties: { a: { type: "string" } }, title: "out" };
    const structured = new ChatStudio(MODEL, fields).withStructuredOutput(schema);
    expect(JSON.stringify(structured)).toContain('"tool_choice"');
    expect(warn).not.toHaveBeenCalled();
  });

  it("does not warn when the profile option is given", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const model = new ChatStudio(MODEL, { ...fields, profile: { structuredOutput: true } });
    expect(model.profile).toEqual({ structuredOutput: true });
    expect(warn).not.toHaveBeenCalled();
  });

  it("is {} and warns once per process, naming the model and the fixes", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const forgotten = new ChatStudio(MODEL, fields);
    expect(forgotten.profile).toEqual({});
    expect(warn).toHaveBeenCalledTimes(1);
    const text = String(warn.mock.calls[0]?.[0]);
    expect(text).toContain(`ChatStudio("${MODEL}").profile was read before it was loaded`);
    expect(text).toContain("ChatStudio.fromModel");
    expect(text).toContain("loadProfile()");
    expect(forgotten.profile).toEqual({});
    expect(new ChatStudio("other/model", fields).profile).toEqual({});
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
