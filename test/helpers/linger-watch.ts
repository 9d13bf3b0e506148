/**
 * For a child process that must exit on its own once its work is done: call `watchLingering()`
 * after the work. If a socket, timer or listener still holds the process `ms` later, it prints
 * what is open to stderr and exits with code 3.
 *
 * This replaces timing the exit from the parent, which load decides: a parent on a busy machine
 * sees the exit seconds late even when nothing lingers. Here the timer is unreferenced, so it
 * never holds the process itself, and once nothing else does the process ends without ever
 * running it, however loaded the machine.
 */
export const LINGER_EXIT_CODE = 3;

export function watchLingering(ms = 2_000): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    process.stderr.write(`still running ${ms} ms after its work, held by: ${open.join(", ")}\n`);
    process.exit(LINGER_EXIT_CODE);
  }, ms).unref();
}

/** The same watchdog as source text, for scripts run with `node -e`. */
export function watchLingeringSource(ms = 2_000): string {
  return `setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    process.stderr.write("still running ${ms} ms after its work, held by: " + open.join(", ") + "\\n");
    process.exit(${LINGER_EXIT_CODE});
  }, ${ms}).unref();`;
}
