/**
 * Where the files of a project that runs beside the others go in the queue (the `cluster` files,
 * test/setup/sequencer.ts): spread through it, one at a time, rather than together.
 */

/**
 * How much more of the other files' time, as a multiple of a spread file's expected time, is
 * queued before the next spread file: with two workers, a spread file runs beside whatever the
 * other worker takes, and the next one is reached only once the other worker has worked through
 * the files queued in between, by when the first one has ended unless it ran this much slower.
 */
export const SPREAD_MARGIN = 1.5;

/**
 * Places the files to spread among the others, longest first: the first right after the first
 * other file (so it starts at once, on the second worker), each next one after the other files
 * expected to keep the other worker busy for `SPREAD_MARGIN` times the previous one's time. Those
 * left when the other files run out go last. The other files keep their order.
 */
export function spreadFiles<T>(
  files: readonly T[],
  isSpread: (file: T) => boolean,
  seconds: (file: T) => number,
): T[] {
  const out: T[] = [];
  const pending = files.filter(isSpread).sort((a, b) => seconds(b) - seconds(a));
  let needed = 0;
  for (const file of files.filter((other) => !isSpread(other))) {
    out.push(file);
    needed -= seconds(file);
    const next = pending[0];
    if (next !== undefined && needed <= 0) {
      out.push(next);
      pending.shift();
      needed = SPREAD_MARGIN * seconds(next);
    }
  }
  return [...out, ...pending];
}
