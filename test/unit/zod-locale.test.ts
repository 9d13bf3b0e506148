/**
 * The portable code uses zod's tree-shakable mini API (the bundle bench measures what that saves)
 * and configures English messages itself, because mini loads no locale and the package's errors
 * quote zod's messages.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod/v4/mini";
import { ChatCompletionSchema } from "../../src/client/normalise";
import { formatIssue } from "../../src/client/validate-response";
import { useEnglishMessages } from "../../src/zod-locale";

const SRC = join(import.meta.dirname, "../../src");

/** Classic zod is allowed only in the Node-only emulator and the langchain middleware. */
const CLASSIC_ALLOWED = [/^emulator\//, /^agents\/middleware\.ts$/];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Runs `body` with zod's global locale unset (as in a process without classic zod). */
function withoutLocale(body: () => void): void {
  const saved = z.config().localeError;
  z.config({ localeError: undefined });
  try {
    body();
  } finally {
    z.config({ localeError: saved });
  }
}

describe("zod mini in the portable code", () => {
  it("no portable module imports classic zod at runtime", () => {
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file).replaceAll("\\", "/"))
      .filter((file) => !CLASSIC_ALLOWED.some((allowed) => allowed.test(file)))
      .filter((file) =>
        /^import (?!type )[^;]*from "zod(\/v4|\/v3)?";/m.test(
          readFileSync(join(SRC, file), "utf8"),
        ),
      );
    expect(offenders).toEqual([]);
  });

  it("every module that builds mini schemas sets English messages when it loads", () => {
    const missing = sourceFiles(SRC)
      .filter((file) => /^import \* as z from "zod\/v4\/mini";/m.test(readFileSync(file, "utf8")))
      .filter((file) => !/^useEnglishMessages\(\);$/m.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(missing).toEqual([]);
  });

  it("English messages are set when no locale is", () => {
    withoutLocale(() => {
      expect(z.string().safeParse(1).error?.issues[0]?.message).toBe("Invalid input");
      useEnglishMessages();
      const result = ChatCompletionSchema.safeParse({ choices: [{ message: { role: 5 } }] });
      expect(formatIssue(result.error?.issues[0])).toBe(
        "field choices[0].message.role: Invalid input: expected string, received number",
      );
    });
  });

  it("a locale the application chose is kept", () => {
    withoutLocale(() => {
      const chosen = () => "chosen by the application";
      z.config({ localeError: chosen });
      useEnglishMessages();
      expect(z.config().localeError).toBe(chosen);
    });
  });
});
