/**
 * Narration for the demo: section headers, explanations, results. Colors only on a terminal that
 * wants them (a TTY, and NO_COLOR unset per https://no-color.org), so piped output and CI logs stay
 * plain text.
 */
import { styleText } from "node:util";

type Style = Parameters<typeof styleText>[0];

const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

// `npm run demo | head` closes the pipe early. Keep going without output rather than crash, so
// the emulator still shuts down cleanly and its data file stays consistent.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

function paint(style: Style, text: string): string {
  return useColor ? styleText(style, text) : text;
}

function line(text = ""): void {
  process.stdout.write(`${text}\n`);
}

function indent(text: string, prefix = "  "): string {
  return text
    .split("\n")
    .map((l) => `${prefix}${l}`)
    .join("\n");
}

export const ui = {
  title(text: string): void {
    line(paint("bold", text));
  },

  section(index: number, total: number, title: string): void {
    line();
    line(paint(["bold", "cyan"], `[${index}/${total}] ${title}`));
  },

  /** What is happening and why, in plain words. */
  explain(text: string): void {
    line(paint("dim", indent(text)));
  },

  /** A labelled result. */
  result(label: string, value: string): void {
    line(`  ${paint("green", `${label}:`)} ${value}`);
  },

  /** A block of output (several lines), indented under the section. */
  block(text: string): void {
    line(indent(text, "    "));
  },

  /** Writes a streamed token as it arrives, without a newline. */
  token(text: string): void {
    process.stdout.write(text);
  },

  /** Starts a line that tokens are written to. */
  startStream(label: string): void {
    process.stdout.write(`  ${paint("green", `${label}:`)} `);
  },

  endStream(): void {
    line();
  },

  warn(text: string): void {
    line(paint("yellow", indent(text)));
  },

  success(text: string): void {
    line();
    line(paint(["bold", "green"], text));
  },

  /** Failures go to stderr so they survive `npm run demo > out.txt`. */
  failure(lines: string[]): void {
    process.stderr.write("\n");
    const [first, ...rest] = lines;
    if (first !== undefined) process.stderr.write(`${paint(["bold", "red"], first)}\n`);
    for (const l of rest) process.stderr.write(`${indent(l)}\n`);
  },
};

/** Shortens long text for one-line display. */
export function clip(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
