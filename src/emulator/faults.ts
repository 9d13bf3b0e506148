/**
 * Fault injection for reliability tests. Every request whose path matches draws the same fixed
 * sequence of numbers from a seeded PRNG, so a given seed and request order always produce the
 * same faults, whichever rates are set.
 */
import { createRng, type Rng } from "./rng";
import type { FaultSpec } from "./types";

const RATE_KEYS = [
  "rate429",
  "rate500Before",
  "rate503Before",
  "rate500After",
  "resetBefore",
  "resetAfter",
  "streamCut",
] as const;
type RateKey = (typeof RATE_KEYS)[number];
const NUMBER_KEYS = ["retryAfterSeconds", "latencyMs"] as const;
const KNOWN = [...RATE_KEYS, ...NUMBER_KEYS, "match"];

export interface FaultDraw {
  latencyMs: number;
  /** What to do before the work, if anything. */
  before: "reset" | 429 | 503 | 500 | undefined;
  /** What to do after the work was committed, if anything. */
  after: "reset" | 500 | undefined;
  /** For streamed completions: number of events after which the connection is cut. */
  cutAfter: number | undefined;
  retryAfterSeconds: number;
}

/** Parses the CLI form "rate429=0.1,resetAfter=0.05,latencyMs=20,match=/v1/threads". */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: Record<string, string | number> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq === -1)
      throw new Error(`Invalid fault "${part}": write it as name=value (e.g. rate429=0.1).`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "match") spec.match = value;
    else spec[key] = Number(value);
  }
  return checkFaultSpec(spec);
}

/** Checks names and ranges; throws an Error that names the bad entry. */
export function checkFaultSpec(spec: Record<string, unknown>): FaultSpec {
  for (const [key, value] of Object.entries(spec)) {
    if (value === undefined) continue;
    if (!KNOWN.includes(key)) {
      throw new Error(`Unknown fault "${key}". Known faults: ${KNOWN.join(", ")}.`);
    }
    if (key === "match") {
      if (typeof value !== "string") throw new Error(`Fault "match" must be a string.`);
    } else if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new Error(`Fault "${key}" must be a number >= 0 (got ${String(value)}).`);
    } else if ((RATE_KEYS as readonly string[]).includes(key) && value > 1) {
      throw new Error(
        `Fault "${key}" is a probability and must be between 0 and 1 (got ${value}).`,
      );
    }
  }
  return spec as FaultSpec;
}

export class FaultInjector {
  private readonly rng: Rng;
  private spec: FaultSpec | undefined;

  constructor(seed: number) {
    this.rng = createRng(seed);
  }

  set(faults: FaultSpec | string | undefined): void {
    if (faults === undefined) {
      this.spec = undefined;
      return;
    }
    this.spec =
      typeof faults === "string"
        ? parseFaultSpec(faults)
        : checkFaultSpec(faults as Record<string, unknown>);
  }

  /** Restarts the draw sequence (used by `reset()`, so a reset run repeats the first run). */
  reseed(): void {
    this.rng.reset();
  }

  draw(path: string): FaultDraw | undefined {
    const spec = this.spec;
    if (!spec || (spec.match !== undefined && !path.includes(spec.match))) return undefined;
    const hit: Record<RateKey, boolean> = {} as Record<RateKey, boolean>;
    for (const key of RATE_KEYS) hit[key] = this.rng.next() < (spec[key] ?? 0);
    const cutAt = 2 + Math.floor(this.rng.next() * 3);
    return {
      latencyMs: spec.latencyMs ?? 0,
      before: hit.resetBefore
        ? "reset"
        : hit.rate429
          ? 429
          : hit.rate503Before
            ? 503
            : hit.rate500Before
              ? 500
              : undefined,
      after: hit.resetAfter ? "reset" : hit.rate500After ? 500 : undefined,
      cutAfter: hit.streamCut ? cutAt : undefined,
      retryAfterSeconds: spec.retryAfterSeconds ?? 0,
    };
  }
}

/**
 * The emulator's faults: one set for every request, and sets of their own for scopes (requests
 * with `x-emulator-scope: <scope>`). A scoped request draws from its scope's set when it has one,
 * else from the shared set; each set draws from its own seeded sequence, so one test's faults
 * neither reach nor shift another's.
 */
export class FaultBook {
  private readonly shared: FaultInjector;
  private readonly scoped = new Map<string, FaultInjector>();

  constructor(private readonly seed: number) {
    this.shared = new FaultInjector(seed);
  }

  /** Sets (undefined: clears) the shared faults, or one scope's. */
  set(faults: FaultSpec | string | undefined, scope?: string): void {
    if (scope === undefined) {
      this.shared.set(faults);
      return;
    }
    if (faults === undefined) {
      this.scoped.delete(scope);
      return;
    }
    const injector = new FaultInjector(this.seed);
    injector.set(faults);
    this.scoped.set(scope, injector);
  }

  draw(path: string, scope: string | undefined): FaultDraw | undefined {
    const injector = (scope === undefined ? undefined : this.scoped.get(scope)) ?? this.shared;
    return injector.draw(path);
  }

  /** `reset()`: scoped faults are dropped, the shared ones kept and their sequence restarted. */
  reset(): void {
    this.scoped.clear();
    this.shared.reseed();
  }
}
