/**
 * Global setup of the runtimes project: unpacks the suite's Chromium once, before the files that
 * launch it (browser.test.ts, chat-ui.test.ts, chat-ui-v2.test.ts) start, so they never unpack it
 * side by side (chromium-unpack.ts says why).
 *
 * vitest runs every project's global setup, one after the other, before any test file starts, so
 * an unpack awaited here (3 s of CPU in a fresh clone, whose `npm ci` emptied node_modules/.cache)
 * held up the whole run. When other projects run too, it goes on in the background instead: the
 * runtimes files start after every other project's (`groupOrder: 1`), and `launch` awaits
 * `unpackChromium()`, which finds it there (were it not, it unpacks a copy of its own beside it
 * and the first to be moved into place is used).
 */
import type { TestProject } from "vitest/node";
import { chromiumShipped } from "./chromium-platform";
import { unpackChromium } from "./chromium-unpack";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!chromiumShipped()) return async () => {};
  if (project.vitest.projects.every((other) => other.name === project.name)) {
    await unpackChromium();
    return async () => {};
  }
  // Its failure, if any, is reported by the files that launch Chromium, which unpack again.
  const unpacking = unpackChromium().then(
    () => {},
    () => {},
  );
  return () => unpacking;
}
