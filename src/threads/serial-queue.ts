/**
 * Tasks run one after another, in call order, within this process: a history's operations, a
 * session's writes, a session index's listings, a checkpoint thread's reads. A task that fails
 * does not stop the ones queued after it; its caller gets the failure.
 */

/** Starts `task` once `previous` settles; `tail` settles after it and never rejects. */
function after<T>(
  previous: Promise<unknown>,
  task: () => Promise<T>,
): { run: Promise<T>; tail: Promise<void> } {
  const run = previous.then(task, task);
  return { run, tail: run.then(noop, noop) };
}

function noop(): void {}

/** One queue. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it, whatever their outcome. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const { run, tail } = after(this.#tail, task);
    this.#tail = tail;
    return run;
  }
}

/** One queue per key; a key's queue is dropped when it runs empty, so keys do not pile up. */
export class KeyedSerialQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` after every task queued before it under the same key, whatever their outcome. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const { run, tail } = after(this.#tails.get(key) ?? Promise.resolve(), task);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }
}
