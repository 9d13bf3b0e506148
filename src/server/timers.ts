/**
 * Timers the server's waits share: one that does not keep a process alive on its own, and a
 * bounded wait that gives up with an error naming what it waited for.
 */

/** Lets the process exit with `timer` still set (Node, Bun; a no-op where timers have no unref). */
export function unrefTimer(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

/** Resolves after `ms`, without keeping the process alive. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => unrefTimer(setTimeout(resolve, ms)));
}

/** `promise`, or a rejection saying `what` did not happen within `ms` (its timer then cleared). */
export function withinTime<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    unrefTimer(timer);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
