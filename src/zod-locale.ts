/**
 * The portable code uses zod's tree-shakable "mini" API (`import * as z from "zod/v4/mini"`:
 * functions rather than methods), so a bundle carries only the schema kinds the package uses; the
 * classic API (`zod/v4`) pulls in nearly all of zod wherever it is imported and stays in the
 * Node-only emulator. Each module imports zod itself: a `z` handed on from one module to another
 * is a namespace object that bundlers no longer tree-shake.
 *
 * Mini loads no locale, and the package's errors quote zod's default messages ("Invalid input:
 * expected string, received undefined"), which without one are a bare "Invalid input". So every
 * module that builds schemas calls `useEnglishMessages()` when it loads, before any of its schemas
 * can parse.
 */
import { en } from "zod/v4/locales";
import { config } from "zod/v4/mini";

/**
 * Sets zod's (global) locale to English, unless the application already chose one or classic zod
 * (which sets English when it loads) is in the process.
 */
export function useEnglishMessages(): void {
  if (!config().localeError) config(en());
}
