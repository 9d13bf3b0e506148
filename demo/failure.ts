/**
 * Turns a failed step into the three things a newcomer needs: which step, what went wrong, and
 * what to try next.
 */

import { EmulatorDataFileError } from "../src/emulator";
import {
  StudioAPIError,
  StudioAuthenticationError,
  StudioConfigError,
  StudioConnectionError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioTimeoutError,
} from "../src/errors";
import type { DemoTarget } from "./config";
import { DemoCheckError } from "./step";

function hint(error: unknown, target: DemoTarget): string {
  const service = target.kind === "service";
  if (error instanceof DemoCheckError) return error.hint;
  if (error instanceof StudioConnectionError) {
    return service
      ? "Check STUDIO_BASE_URL and STUDIO_PROXY_URL, and that the service is reachable from here."
      : "The local emulator stopped answering; run the demo again.";
  }
  if (error instanceof StudioAuthenticationError) {
    return "Check STUDIO_API_KEY: the service did not accept it.";
  }
  if (error instanceof StudioNotFoundError) {
    return service
      ? "Check STUDIO_MODEL and the addresses; the service does not know what was asked for."
      : "The emulator's data may be from another version; delete the data file and run again.";
  }
  if (error instanceof StudioRateLimitError) return "The service is rate limiting; wait a bit.";
  if (error instanceof StudioTimeoutError) return "The service is slow; try again later.";
  if (error instanceof StudioConfigError) return error.message;
  if (error instanceof StudioAPIError && error.status >= 500) {
    return "The service failed on its side; try again later.";
  }
  if (error instanceof EmulatorDataFileError) {
    return `Move ${error.file} aside (or set STUDIO_DEMO_DIR to another folder) and run again.`;
  }
  return "This looks like a bug; please report it with the output above.";
}

function isExpected(error: Error): boolean {
  return (
    error instanceof StudioError ||
    error instanceof DemoCheckError ||
    error instanceof EmulatorDataFileError
  );
}

export function explainFailure(step: string, error: unknown, target: DemoTarget): string[] {
  const message = error instanceof Error ? error.message : String(error);
  const lines = [
    `Demo failed at step "${step}".`,
    `Error: ${message}`,
    `Hint: ${hint(error, target)}`,
  ];
  // An unexpected error is a bug: its stack helps whoever fixes it.
  if (error instanceof Error && !isExpected(error) && error.stack) {
    lines.push(error.stack.split("\n").slice(1, 6).join("\n"));
  }
  return lines;
}
