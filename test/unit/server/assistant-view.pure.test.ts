/**
 * Service assistants as the API shows them and the records a create or patch asks for: pure
 * mappings, no service.
 */
import { describe, expect, it } from "vitest";
import type { Assistant } from "../../../src/api-types";
import { createInput, patchInput } from "../../../src/server/assistant-requests";
import { serviceAssistantView, stableIdOf } from "../../../src/server/assistant-view";
import { HttpProblem } from "../../../src/server/http";

const STARTED = "2026-01-01T00:00:00.000Z";
const graphs = new Map([["agent", {}]]);
const held = new Map([["get_weather", "the tool"]]);

const record: Assistant = {
  id: "asst_2",
  assistantName: "Desk",
  modelName: "studio/echo-small",
  instructions: "Be brief.",
  tools: [{ type: "function", function: { name: "get_weather" } }],
  metadata: { team: "ops", lc_assistant: "asst_1", lc_version: "3", lc_owner: "abc" },
  createdAt: "2026-02-03T04:05:06Z",
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    return `${(error as HttpProblem).status} ${(error as Error).message}`;
  }
  throw new Error("not refused");
}

describe("service assistants in the API's shape", () => {
  it("shows a patched record under its first id, its version, without the server's keys", () => {
    expect(stableIdOf(record)).toBe("asst_1");
    expect(serviceAssistantView(record, STARTED)).toEqual({
      assistant_id: "asst_1",
      graph_id: "studio-assistant",
      name: "Desk",
      description: null,
      config: {},
      context: {
        instructions: "Be brief.",
        modelName: "studio/echo-small",
        tools: ["get_weather"],
      },
      metadata: { team: "ops" },
      version: 3,
      created_at: "2026-02-03T04:05:06.000Z",
      updated_at: "2026-02-03T04:05:06.000Z",
    });
  });

  it("builds a create from the body's context, naming what it refuses", () => {
    const body = {
      graph_id: "studio-assistant",
      name: "Desk",
      context: { modelName: "studio/echo-small", tools: ["get_weather"] },
      metadata: { team: "ops" },
    };
    expect(createInput(body, graphs, held)).toEqual({
      assistantName: "Desk",
      modelName: "studio/echo-small",
      metadata: { team: "ops" },
      tools: ["the tool"],
    });
    expect(refusal(() => createInput({ ...body, graph_id: "agent" }, graphs, held))).toMatch(
      /^422 graph_id: "agent" is a graph given in code, which is read-only here/,
    );
    expect(refusal(() => createInput({ ...body, context: { tools: [] } }, graphs, held))).toBe(
      '422 context.modelName: name the model the assistant runs, e.g. "studio/echo-small"',
    );
    expect(
      refusal(() => createInput({ ...body, context: { ...body.context, temp: 1 } }, graphs, held)),
    ).toMatch(/^422 context\.temp: is not a field of a service assistant's context/);
    expect(refusal(() => createInput({ ...body, metadata: { n: 1 } }, graphs, held))).toBe(
      "422 metadata.n: must be a string (the service keeps string values only)",
    );
    expect(refusal(() => createInput({ ...body, metadata: { lc_owner: "x" } }, graphs, held))).toBe(
      "422 metadata.lc_owner: is the server's; leave it out",
    );
    expect(refusal(() => createInput({ ...body, assistant_id: "mine" }, graphs, held))).toBe(
      "422 assistant_id: the service picks assistant ids; leave it out",
    );
  });

  it("patches on top of the record: context fields replaced, metadata merged", () => {
    const input = patchInput(
      record,
      { context: { instructions: "Longer." }, metadata: { shift: "night" } },
      graphs,
      held,
    );
    expect(input).toEqual({
      assistantName: "Desk",
      instructions: "Longer.",
      modelName: "studio/echo-small",
      metadata: { team: "ops", shift: "night" },
      tools: ["the tool"],
    });
  });
});
