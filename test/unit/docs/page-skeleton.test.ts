/**
 * The feature pages share one skeleton, so a reader finds the same thing in the same place on
 * each: its `##` sections are these seven, in this order (a section with nothing to say keeps its
 * heading and says so in one line), and the page ends with how it is tested.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/run-command";

const SKELETON = ["Setup", "Usage", "Options", "Behaviour", "Costs", "Limits", "How it is tested"];

const PAGES = [
  "chat-model",
  "llm",
  "client",
  "assistants",
  "recorder",
  "emulator",
  "encryption",
  "history",
  "store",
  "checkpointer",
];

/** The `##` headings of a page, outside fenced code blocks. */
function sections(markdown: string): string[] {
  let fenced = false;
  const headings: string[] = [];
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith("## ")) headings.push(line.slice(3).trim());
  }
  return headings;
}

describe("docs pages' skeleton", () => {
  it.each(PAGES)("docs/%s.md has the seven sections in order", (page) => {
    const markdown = readFileSync(path.join(REPO_ROOT, "docs", `${page}.md`), "utf8");
    expect(sections(markdown)).toEqual(SKELETON);
  });
});
