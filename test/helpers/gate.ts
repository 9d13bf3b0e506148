/**
 * Gates for concurrency tests: deferred promises a test opens when it wants the code under test
 * to go on, and signals it awaits to know the code got somewhere. No timers: the order is the
 * test's, whatever the machine's load.
 */

export interface Gate {
  /** Resolves once `open` is called. */
  readonly wait: Promise<void>;
  open(): void;
  readonly opened: boolean;
}

export function gate(): Gate {
  let open = () => {};
  let opened = false;
  const wait = new Promise<void>((resolve) => {
    open = () => {
      opened = true;
      resolve();
    };
  });
  return {
    wait,
    open: () => open(),
    get opened() {
      return opened;
    },
  };
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Lets every callback already queued run (microtasks and one macrotask turn), so a test can
 * assert that something did NOT happen yet. Not a timer: nothing is waited for but the queue.
 */
export async function drain(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled by now (after the queue drains). */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await drain();
  return settled;
}
