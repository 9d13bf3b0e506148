/**
 * Testing your own code against the emulator, with Node's built-in test runner. Running this
 * file runs the tests:
 *
 *   npx tsx examples/emulator-in-tests.ts
 *
 * The same pattern works in vitest or jest (README, "The emulator", shows these agent tests in
 * vitest): start the emulator once (port 0 = any free port), point ChatStudio and the history at
 * it, script what the model answers, assert on what it received, inject faults. Unlike the other
 * examples it never uses the real service: the emulator is what it shows.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { HumanMessage } from "@langchain/core/messages";
import { createAgent, tool } from "langchain";
import { ChatStudio, StudioChatMessageHistory, StudioRateLimitError } from "langchain-studio";
import { type EmulatorHandle, startEmulator } from "langchain-studio/emulator";
import { z } from "zod";

// --- The code under test: a tiny support bot that remembers each conversation in a thread. ---
async function answerCustomer(
  model: ChatStudio,
  history: StudioChatMessageHistory,
  question: string,
): Promise<string> {
  const earlier = await history.getMessages();
  const reply = await model.invoke([
    ["system", "You are the support bot of ACME. Be brief."],
    ...earlier,
    ["human", question],
  ]);
  await history.addMessages([new HumanMessage(question), reply]);
  return reply.text;
}

// --- More code under test: a support agent with one tool. ---
const getOrder = tool(({ orderId }) => `Order ${orderId}: shipped on Monday`, {
  name: "get_order",
  description: "Status of an order.",
  schema: z.object({ orderId: z.string() }),
});

function supportAgent(model: ChatStudio) {
  return createAgent({ model, tools: [getOrder], systemPrompt: "You are ACME's support bot." });
}

// --- The tests. ---
let emulator: EmulatorHandle;

before(async () => {
  emulator = await startEmulator({ port: 0 });
});

after(async () => {
  await emulator.close();
});

afterEach(async () => {
  // Each test starts from an empty emulator: no threads, no recorded requests, no scripts, no
  // faults.
  emulator.setFaults(undefined);
  await emulator.reset();
});

function connection() {
  return { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl };
}

test("sends the system prompt and the question, and stores the turn in a thread", async () => {
  const model = new ChatStudio({ model: "studio/echo-small", ...connection() });
  const history = new StudioChatMessageHistory(connection());

  const answer = await answerCustomer(model, history, "Where is my order?");

  // The emulator's scripted model is deterministic: see INTERFACE-NOTES.md.
  assert.match(answer, /You said: Where is my order\?$/);
  const completion = emulator.requests.find((r) => r.path.endsWith("/chat/completions"));
  assert.ok(completion, "a chat completion was requested");
  const body = completion.body as { messages: { role: string; content: unknown }[] };
  assert.equal(body.messages[0]?.role, "system");
  assert.equal(body.messages.at(-1)?.content, "Where is my order?");
  // Auth headers are recorded, but never their values.
  assert.equal(completion.headers.authorization, "[REDACTED]");

  const stored = await history.getMessages();
  assert.deepEqual(
    stored.map((m) => [m.type, m.text]),
    [
      ["human", "Where is my order?"],
      ["ai", answer],
    ],
  );
});

test("a second question sees the first turn", async () => {
  const model = new ChatStudio({ model: "studio/echo-small", ...connection() });
  const history = new StudioChatMessageHistory(connection());
  await answerCustomer(model, history, "Hello");
  await answerCustomer(model, history, "Are you still there?");

  const completions = emulator.requests.filter((r) => r.path.endsWith("/chat/completions"));
  const second = completions[1]?.body as { messages: unknown[] };
  assert.equal(second.messages.length, 4, "system + first turn (2) + new question");
});

test("a 429 is retried, and surfaces as StudioRateLimitError when it persists", async () => {
  emulator.setFaults({ rate429: 1, retryAfterSeconds: 0, match: "/chat/completions" });
  const model = new ChatStudio({ model: "studio/echo-small", maxRetries: 1, ...connection() });

  await assert.rejects(model.invoke("Hi"), StudioRateLimitError);
  const attempts = emulator.requests.filter((r) => r.path.endsWith("/chat/completions"));
  assert.equal(attempts.length, 2, "the first attempt and one retry");

  emulator.setFaults(undefined);
  assert.match((await model.invoke("Hi")).text, /You said: Hi/);
});

test("the agent looks the order up, then answers with what the tool said", async () => {
  // What the model answers, one reply per request: a tool call, then the final text.
  const script = emulator.script("studio/echo-small", [
    { toolCalls: [{ name: "get_order", args: { orderId: "A-17" }, id: "call_a17" }] },
    "Your order A-17 shipped on Monday.",
  ]);
  const agent = supportAgent(new ChatStudio({ model: "studio/echo-small", ...connection() }));

  const result = await agent.invoke({ messages: [{ role: "user", content: "Where is A-17?" }] });

  assert.equal(result.messages.at(-1)?.text, "Your order A-17 shipped on Monday.");
  assert.equal(script.remaining, 0);
  // The second request carried the tool's result back to the model.
  assert.deepEqual(script.requests[1]?.messages?.at(-1), {
    role: "tool",
    tool_call_id: "call_a17",
    content: "Order A-17: shipped on Monday",
  });
});

test("the agent streams the answer, and a model error reaches the caller", async () => {
  emulator.script("studio/echo-small", [
    { toolCalls: [{ name: "get_order", args: { orderId: "A-17" } }] },
    "Shipped on Monday.",
    { error: { status: 429, message: "Slow down." } },
  ]);
  const agent = supportAgent(
    new ChatStudio({ model: "studio/echo-small", maxRetries: 0, ...connection() }),
  );
  const question = { messages: [{ role: "user", content: "Where is A-17?" }] };

  const tokens: string[] = [];
  for await (const [chunk] of await agent.stream(question, { streamMode: "messages" })) {
    if (chunk.type === "ai" && chunk.text) tokens.push(chunk.text);
  }
  assert.equal(tokens.join(""), "Shipped on Monday.");

  await assert.rejects(agent.invoke(question), StudioRateLimitError);
});
