import { describe, expect, it } from "vitest";
import { FaultInjector, parseFaultSpec } from "../../../src/emulator/faults";
import { createRng } from "../../../src/emulator/rng";

describe("parseFaultSpec", () => {
  it("reads the CLI form", () => {
    expect(parseFaultSpec(" rate429=0.1, resetAfter=0.05,latencyMs=20,match=/v1/threads ")).toEqual(
      {
        rate429: 0.1,
        resetAfter: 0.05,
        latencyMs: 20,
        match: "/v1/threads",
      },
    );
    expect(parseFaultSpec("")).toEqual({});
  });

  it("names what is wrong", () => {
    expect(() => parseFaultSpec("rate429=x")).toThrow(/rate429.*number/);
    expect(() => parseFaultSpec("streamCut=1.5")).toThrow(/between 0 and 1/);
    expect(() => parseFaultSpec("oops=1")).toThrow(/Unknown fault "oops"/);
  });
});

describe("FaultInjector", () => {
  it("draws nothing without faults or outside match", () => {
    const f = new FaultInjector(1);
    expect(f.draw("/x")).toBeUndefined();
    f.set({ rate429: 1, match: "/chat" });
    expect(f.draw("/studio/v1/threads")).toBeUndefined();
    expect(f.draw("/inference/chat/completions")?.before).toBe(429);
  });

  it("orders before-faults reset > 429 > 503 > 500 and after-faults reset > 500", () => {
    const f = new FaultInjector(1);
    f.set({
      resetBefore: 1,
      rate429: 1,
      rate503Before: 1,
      rate500Before: 1,
      resetAfter: 1,
      rate500After: 1,
    });
    expect(f.draw("/")).toMatchObject({ before: "reset", after: "reset" });
    f.set({ rate503Before: 1, rate500Before: 1, rate500After: 1 });
    expect(f.draw("/")).toMatchObject({ before: 503, after: 500 });
  });

  it("cuts streams after 2 to 4 events", () => {
    const f = new FaultInjector(3);
    f.set({ streamCut: 1 });
    for (let i = 0; i < 50; i++) {
      const cut = f.draw("/")!.cutAfter!;
      expect(cut).toBeGreaterThanOrEqual(2);
      expect(cut).toBeLessThanOrEqual(4);
    }
  });

  it("hits about the configured rate, reproducibly per seed", () => {
    const run = (seed: number) => {
      const f = new FaultInjector(seed);
      f.set({ rate500Before: 0.25 });
      return Array.from({ length: 2000 }, () => f.draw("/")!.before === 500);
    };
    const a = run(5);
    expect(run(5)).toEqual(a);
    const rate = a.filter(Boolean).length / a.length;
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.3);
  });
});

describe("createRng", () => {
  it("is deterministic per seed and within [0, 1)", () => {
    const a = createRng(9);
    const b = createRng(9);
    for (let i = 0; i < 100; i++) {
      const x = a.next();
      expect(x).toBe(b.next());
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    expect(createRng(1).token(12)).toMatch(/^[0-9a-z]{12}$/);
  });
});
