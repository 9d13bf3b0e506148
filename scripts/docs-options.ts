/**
 * Rewrites the options tables of the docs pages from the schemas (test/helpers/docs-options.ts):
 * `npx tsx scripts/docs-options.ts`. test/unit/docs/options-tables.test.ts checks them.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeTables } from "../test/helpers/docs-options";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const changed = writeTables(root);
console.log(changed.length === 0 ? "options tables: up to date" : `rewrote ${changed.join(", ")}`);
