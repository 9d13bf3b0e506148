/**
 * How deep a JSON text nests, read from the text before it is parsed: one pass with a stack of
 * its own, so neither this check nor anything after it recurses over a body built to overflow
 * the call stack (a 10,000-level metadata value is a few kilobytes).
 */

/** The JSON nesting `createAgentServer` accepts unless told otherwise (the body is level 1). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

interface Frame {
  array: boolean;
  /** The member being read: its key in an object, its index in an array. */
  at: string | number;
  /** In an object, the next string is a key. */
  expectKey: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** The end (index of the closing quote) of the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i += 2;
    else if (code === QUOTE) return i;
    else i++;
  }
  return text.length;
}

function keyOf(raw: string): string {
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw.slice(1, -1);
  }
}

/**
 * Where `text` first opens an array or object deeper than `limit` levels: the path to it (keys
 * and indexes from the top), or undefined when it stays within. Text that is not JSON is read as
 * far as it goes; the parse after this says what is wrong with it.
 */
export function tooDeepAt(text: string, limit: number): (string | number)[] | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const end = stringEnd(text, i);
      const top = stack.at(-1);
      if (top && !top.array && top.expectKey) {
        top.at = keyOf(text.slice(i, end + 1));
        top.expectKey = false;
      }
      i = end;
    } else if (char === "{" || char === "[") {
      if (stack.length >= limit) return stack.map((frame) => frame.at);
      const array = char === "[";
      stack.push({ array, at: array ? 0 : "", expectKey: !array });
    } else if (char === "}" || char === "]") {
      stack.pop();
    } else if (char === ",") {
      const top = stack.at(-1);
      if (top?.array) top.at = (top.at as number) + 1;
      else if (top) top.expectKey = true;
    }
  }
  return undefined;
}
