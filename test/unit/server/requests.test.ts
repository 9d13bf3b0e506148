/** The server's query parameters, read by their zod schemas: what is accepted, what is a 422. */
import { describe, expect, it } from "vitest";
import { HttpProblem } from "../../../src/server/http";
import {
  CancelQuerySchema,
  parseQuery,
  RunListQuerySchema,
  StateQuerySchema,
} from "../../../src/server/requests";

const url = (query: string) => new URL(`http://agent.test/threads/t/runs?${query}`);

describe("server query parameters", () => {
  it("reads a run list's limit, offset and status", () => {
    expect(parseQuery(RunListQuerySchema, url("limit=5&offset=2&status=running"))).toMatchObject({
      limit: 5,
      offset: 2,
      status: "running",
    });
    const none = parseQuery(RunListQuerySchema, url(""));
    expect([none.limit, none.offset]).toEqual([undefined, undefined]);
  });

  it("answers 422 naming the parameter for a count that is not a whole number in range", () => {
    for (const [query, field] of [
      ["limit=ten", "limit"],
      ["limit=0", "limit"],
      ["offset=-1", "offset"],
      ["offset=1.5", "offset"],
    ] as const) {
      let thrown: unknown;
      try {
        parseQuery(RunListQuerySchema, url(query));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(HttpProblem);
      expect((thrown as HttpProblem).status).toBe(422);
      expect((thrown as HttpProblem).message).toMatch(new RegExp(`^${field}: `));
    }
  });

  it("reads a flag as the API does: true or 1 is on", () => {
    expect(parseQuery(CancelQuerySchema, url("wait=true")).wait).toBe(true);
    expect(parseQuery(CancelQuerySchema, url("wait=1")).wait).toBe(true);
    expect(parseQuery(CancelQuerySchema, url("wait=no")).wait).toBe(false);
    expect(parseQuery(StateQuerySchema, url("")).subgraphs).toBe(false);
  });
});
