/**
 * Issue #20, item 8: `baseUrl` and `proxyUrl` given the other way round. The emulator serves both
 * on one port (`/studio` and `/inference`), so a swap reaches a live server that answers 404: on a
 * path that holds no id, that can only mean the wrong address, and the error names the likely swap.
 * A 404 that can be about a missing resource (an id, a model) does not blame the address.
 */
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { StudioNotFoundError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

function swapped(): StudioClient {
  const { apiKey, baseUrl, proxyUrl } = emulator.handle;
  return new StudioClient({ apiKey, baseUrl: proxyUrl, proxyUrl: baseUrl, maxRetries: 0 });
}

async function failure(work: Promise<unknown>): Promise<StudioNotFoundError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StudioNotFoundError);
  return error as StudioNotFoundError;
}

const messages = [{ role: "user" as const, content: "hi" }];

describe("swapped addresses", () => {
  it("a completion sent to the studio address names the swap", async () => {
    const { baseUrl } = emulator.handle;
    const error = await failure(swapped().chatCompletion({ model: "studio/echo-small", messages }));
    expect(error.message).toContain(
      `proxyUrl (${baseUrl}) has no such path, so it is not the inference address`,
    );
    expect(error.message).toContain(
      `baseUrl and proxyUrl may be swapped (baseUrl is ${emulator.handle.proxyUrl})`,
    );
  });

  it("a thread call sent to the inference address names the swap", async () => {
    const { proxyUrl, baseUrl } = emulator.handle;
    for (const work of [swapped().createThread({}), swapped().listThreads()]) {
      const error = await failure(work);
      expect(error.message).toContain(
        `baseUrl (${proxyUrl}) has no such path, so it is not the studio address`,
      );
      expect(error.message).toContain(
        `baseUrl and proxyUrl may be swapped (proxyUrl is ${baseUrl})`,
      );
    }
  });

  it("a remote call also names a missing path prefix as a cause", async () => {
    const error = await failure(swapped().listPublicModels());
    expect(error.message).toContain("may be swapped");
    expect(error.message).toContain("set rpcPathPrefix");
  });

  it("reaches the user of ChatStudio", async () => {
    const { apiKey, baseUrl, proxyUrl } = emulator.handle;
    const model = new ChatStudio({
      model: "studio/echo-small",
      apiKey,
      baseUrl: proxyUrl,
      proxyUrl: baseUrl,
      maxRetries: 0,
    });
    const error = await failure(model.invoke("hi"));
    expect(error.message).toContain("baseUrl and proxyUrl may be swapped");
  });

  it("the error marks the address it blames (wrongAddress), for code that falls back on a 404", async () => {
    const error = await failure(swapped().listThreads());
    expect(error.wrongAddress).toBe("baseUrl");
    const completion = await failure(
      swapped().chatCompletion({ model: "studio/echo-small", messages }),
    );
    expect(completion.wrongAddress).toBe("proxyUrl");
  });

  it("is named before any fallback: a session history warns nothing and fails naming the swap", async () => {
    const { apiKey, baseUrl, proxyUrl } = emulator.handle;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const history = new StudioChatMessageHistory({
        apiKey,
        baseUrl: proxyUrl,
        proxyUrl: baseUrl,
        maxRetries: 0,
        sessionId: "swapped-session",
      });
      const error = await history.addMessage(new HumanMessage("hi")).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain("baseUrl and proxyUrl may be swapped");
      // Not "the service refused a dataset id ... falls back to listing every thread".
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("with one address set, says which address is wrong without guessing a swap", async () => {
    const { apiKey, proxyUrl } = emulator.handle;
    const client = new StudioClient({ apiKey, baseUrl: proxyUrl, maxRetries: 0 });
    const error = await failure(client.createThread({}));
    expect(error.message).toContain(`baseUrl (${proxyUrl}) has no such path`);
    expect(error.message).not.toContain("swapped");
  });
});

describe("a 404 about a resource does not blame the address", () => {
  it("an unknown id at the right address", async () => {
    const { apiKey, baseUrl, proxyUrl } = emulator.handle;
    const client = new StudioClient({ apiKey, baseUrl, proxyUrl, maxRetries: 0 });
    const error = await failure(client.getThread("thread_does_not_exist"));
    expect(error.message).not.toContain("swapped");
    expect(error.message).not.toContain("has no such path");
    expect(error.wrongAddress).toBeUndefined();
  });

  it("an unknown model at the right address", async () => {
    const { apiKey, baseUrl, proxyUrl } = emulator.handle;
    const client = new StudioClient({ apiKey, baseUrl, proxyUrl, maxRetries: 0 });
    const error = await failure(client.chatCompletion({ model: "nobody/none", messages }));
    expect(error.code).toBe("model_not_found");
    expect(error.message).not.toContain("swapped");
  });
});
