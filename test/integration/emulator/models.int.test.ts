import { describe, expect, it } from "vitest";
import type { ErrorBody, ListPublicModelsResponse } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { useEmulator } from "../../helpers/emulator";
import { call } from "./http";

const emulator = useEmulator();

function listModels(page: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call<ListPublicModelsResponse & ErrorBody>(
    "POST",
    `${emulator.handle.baseUrl}${PATHS.listPublicModels}`,
    { body: { page }, headers },
  );
}

const FIRST = { limit: 100, prevPageToken: "", nextPageToken: "", totalPage: 0 };

describe("ListPublicModels", () => {
  it("needs no key and returns READY public models with every spec field", async () => {
    const reply = await listModels(FIRST);
    expect(reply.status).toBe(200);
    const { models } = reply.body;
    expect(models.length).toBeGreaterThanOrEqual(3);
    expect(models.map((m) => m.uri)).toEqual(
      expect.arrayContaining([
        "studio/echo-small",
        "studio/echo-large",
        "meta/llama-3-8b-instruct",
      ]),
    );
    for (const model of models) {
      expect(model).toMatchObject({
        id: expect.any(String),
        name: expect.any(String),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.any(String),
        meta: {
          metadata: {
            base_model_id: expect.any(String),
            description: {
              model_size: expect.any(String),
              model_tags: expect.any(Array),
              model_type: expect.any(String),
            },
            extra_args: expect.any(Object),
          },
          quantization: "QUANTIZATION_FP16",
          shutdownSettings: { autoShutdownDuration: expect.stringMatching(/^-?\d+s$/) },
          modality: "MODALITY_TEXT",
        },
        resource: {
          gpu: expect.any(String),
          gpuCount: expect.any(String),
          maxRetries: expect.any(Number),
        },
        replicas: expect.any(Number),
        state: { state: "READY" },
        public: true,
        endpoint: {
          id: model.uri,
          url: `${emulator.handle.proxyUrl}/${model.uri}`,
          host: emulator.handle.proxyUrl,
        },
      });
      expect(model.uri).toMatch(/^[^\s/]+\/[^\s]+$/);
    }
  });

  it("ignores a wrong key (the call takes none)", async () => {
    expect((await listModels(FIRST, { "x-service-key": "nope" })).status).toBe(200);
  });

  it.each(["limit", "prevPageToken", "nextPageToken", "totalPage"])(
    "requires page.%s",
    async (field) => {
      const page: Record<string, unknown> = { ...FIRST };
      delete page[field];
      const reply = await listModels(page);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ param: `page.${field}`, code: "missing_field" });
      expect(reply.body.error.message).toContain(`page.${field}`);
    },
  );

  it("requires the page object itself", async () => {
    const reply = await call<ErrorBody>(
      "POST",
      `${emulator.handle.baseUrl}${PATHS.listPublicModels}`,
      {
        body: {},
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe("page");
  });

  it.each([0, 101, 2.5, "10"])("rejects page.limit %s", async (limit) => {
    const reply = await listModels({ ...FIRST, limit });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/^page\.limit must be an integer between 1 and 100/);
  });

  it("pages forward and back with page tokens", async () => {
    const all = (await listModels(FIRST)).body.models.map((m) => m.uri);
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    const tokens: string[] = [];
    do {
      const reply = await listModels({ ...FIRST, limit: 2, nextPageToken: token });
      expect(reply.status).toBe(200);
      const page = reply.body.page!;
      expect(page.limit).toBe(2);
      expect(page.totalPage).toBe(Math.ceil(all.length / 2));
      expect(page.prevPageToken === "").toBe(pages === 0);
      seen.push(...reply.body.models.map((m) => m.uri));
      tokens.push(token);
      token = page.nextPageToken ?? "";
      pages += 1;
    } while (token !== "" && pages < 10);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));

    // The last page's prevPageToken leads back to the page before it.
    const last = await listModels({ ...FIRST, limit: 2, nextPageToken: tokens[tokens.length - 1] });
    const back = await listModels({
      ...FIRST,
      limit: 2,
      nextPageToken: last.body.page!.prevPageToken,
    });
    const lastOffset = (pages - 1) * 2;
    expect(back.body.models.map((m) => m.uri)).toEqual(seen.slice(lastOffset - 2, lastOffset));
  });

  it("rejects a token it did not issue", async () => {
    const reply = await listModels({ ...FIRST, nextPageToken: "bogus" });
    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe("page.nextPageToken");
  });
});
