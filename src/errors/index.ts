/**
 * Every error the package throws is a `StudioError`, and none holds the API key (./redact.ts finds
 * it in any form a server may echo it: raw, JSON-escaped, percent-encoded, cut short).
 */
export {
  StudioAPIError,
  type StudioAPIErrorInit,
  StudioAuthenticationError,
  StudioBadRequestError,
  StudioConflictError,
  StudioNotFoundError,
  StudioPermissionDeniedError,
  StudioRateLimitError,
  StudioServerError,
  StudioUnprocessableEntityError,
} from "./api";
export {
  StudioConnectionError,
  StudioResponseError,
  StudioStreamError,
  StudioTimeoutError,
} from "./exchange";
export { StudioConfigError, StudioValidationError } from "./input";
export { registerSecret } from "./redact";
export { StudioStoredFormatError } from "./stored-format";
export { named, StudioError } from "./studio-error";
export { StudioThreadDeletedError } from "./thread-deleted";
