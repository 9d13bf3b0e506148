/**
 * A small seeded PRNG (mulberry32). Math.random cannot be seeded, and reproducible fault draws and
 * ids are what make a failing reliability test re-runnable.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** `length` characters of [0-9a-z]. */
  token(length: number): string;
  /** Back to the state right after seeding. */
  reset(): void;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    reset() {
      state = seed >>> 0;
    },
    token(length) {
      let out = "";
      for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * 36)];
      return out;
    },
  };
}
