/**
 * Global setup of the runtimes project: unpacks the suite's Chromium once, before the files that
 * launch it (browser.test.ts, chat-ui.test.ts, chat-ui-v2.test.ts) start, so they never unpack it side by side
 * (chromium-unpack.ts says why).
 */
import { chromiumShipped } from "./chromium-platform";
import { unpackChromium } from "./chromium-unpack";

export default async function setup(): Promise<void> {
  if (chromiumShipped()) await unpackChromium();
}
