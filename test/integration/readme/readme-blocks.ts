/**
 * The fenced code blocks of README.md and of every docs/*.md page, each with the `<!-- readme-test: ... -->` marker written just before
 * it, sorted into what the README test does with them: run a snippet, follow the install steps, or
 * leave a block alone for the reason its marker gives. A block that is none of these is a
 * documentation mistake the test reports, so no block is ever skipped without a word.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** A page the test reads: README.md, or docs/<name>.md. */
export interface DocPage {
  /** The path from the repository root: `README.md`, `docs/store.md`. */
  file: string;
  markdown: string;
}

/** README.md, then every docs/*.md page in name order. */
export function docPages(repoRoot: string): DocPage[] {
  const docsDir = path.join(repoRoot, "docs");
  const docs = readdirSync(docsDir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs].map((file) => ({
    file,
    markdown: readFileSync(path.join(repoRoot, file), "utf8"),
  }));
}

export interface ReadmeBlock {
  /** The page the block is on: `README.md`, `docs/store.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string: `ts`, `sh`... */
  lang: string;
  /** The nearest heading above the block. */
  heading: string;
  code: string;
  /** The text of the marker comment before the block, if there is one. */
  marker?: string;
}

export interface SortedBlocks {
  /** TypeScript or JavaScript snippets, each run as written. */
  snippets: ReadmeBlock[];
  /** Blocks marked `<!-- readme-test: install -->`: the steps that make the app. */
  install: ReadmeBlock[];
  /** Blocks marked `<!-- readme-test: not run (reason) -->`. */
  notRun: (ReadmeBlock & { reason: string })[];
  /** Neither runnable nor marked: README must say why they are not run. */
  unmarked: ReadmeBlock[];
}

const RUNNABLE = new Set(["ts", "typescript", "js", "javascript"]);
const FENCE = /^(\s*)```(\S*)\s*$/;
const MARKER = /^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$/;

function markerBefore(lines: string[], fenceIndex: number): string | undefined {
  let i = fenceIndex - 1;
  while (i >= 0 && lines[i]!.trim() === "") i--;
  return i >= 0 ? MARKER.exec(lines[i]!)?.[1] : undefined;
}

export function readmeBlocks(markdown: string, file = "README.md"): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  let heading = "top";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "");
    const open = FENCE.exec(line);
    if (!open) continue;
    const [, indent = "", lang = ""] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) {
      // A block inside a list item is indented like its fence.
      body.push(lines[i]!.startsWith(indent) ? lines[i]!.slice(indent.length) : lines[i]!);
    }
    blocks.push({
      file,
      line: start + 1,
      lang,
      heading,
      code: body.join("\n"),
      marker: markerBefore(lines, start),
    });
  }
  return blocks;
}

export function sortBlocks(blocks: ReadmeBlock[]): SortedBlocks {
  const sorted: SortedBlocks = { snippets: [], install: [], notRun: [], unmarked: [] };
  for (const block of blocks) {
    const notRun = /^not run\b\s*[:(]?\s*(.*?)\)?$/.exec(block.marker ?? "");
    if (block.marker === "install") sorted.install.push(block);
    else if (notRun) sorted.notRun.push({ ...block, reason: notRun[1] ?? "" });
    else if (block.marker === undefined && RUNNABLE.has(block.lang)) sorted.snippets.push(block);
    else sorted.unmarked.push(block);
  }
  return sorted;
}

/** "docs/store.md line 26 (```ts, StudioStore...)": where a block is, for test names and messages. */
export function whereIs(block: ReadmeBlock): string {
  return `${block.file} line ${block.line} (\`\`\`${block.lang}, ${block.heading})`;
}

/** `readme-line-26` or `store-line-26`: the name of a block's file in the app, page and line. */
export function snippetName(block: ReadmeBlock): string {
  const page = path.basename(block.file, ".md").toLowerCase();
  return `${page}-line-${block.line}`;
}

/** The packages a snippet imports by name (`zod`, `@langchain/core`), Node built-ins left out. */
export function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map(
    (match) => match[1]!,
  );
  const packages = specifiers
    .filter((s) => !s.startsWith(".") && !s.startsWith("/") && !s.startsWith("node:"))
    .map((s) =>
      s
        .split("/")
        .slice(0, s.startsWith("@") ? 2 : 1)
        .join("/"),
    );
  return [...new Set(packages)];
}
