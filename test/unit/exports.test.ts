/**
 * The root entry's public surface, pinned: the classes, the assistant and dataset functions and
 * the errors. Anything added here is a promise to users, so adding a name is a decision made in
 * this list (internals are imported from their own modules by tests, never from the root).
 * Types are not runtime values; the packaging test type-checks what users import.
 */
import { describe, expect, it } from "vitest";
import * as agents from "../../src/agents";
import * as root from "../../src/index";
import * as langgraph from "../../src/langgraph";

describe("root exports", () => {
  it("are exactly the public list", () => {
    expect(Object.keys(root).sort()).toEqual([
      "ChatStudio",
      "StudioAPIError",
      "StudioAuthenticationError",
      "StudioBadRequestError",
      "StudioChatMessageHistory",
      "StudioClient",
      "StudioConfigError",
      "StudioConflictError",
      "StudioConnectionError",
      "StudioConversationRecorder",
      "StudioError",
      "StudioInvalidRecordError",
      "StudioLLM",
      "StudioNotFoundError",
      "StudioPermissionDeniedError",
      "StudioRateLimitError",
      "StudioRecordingError",
      "StudioResponseError",
      "StudioServerError",
      "StudioStoredFormatError",
      "StudioStreamError",
      "StudioThreadDeletedError",
      "StudioTimeoutError",
      "StudioUnprocessableEntityError",
      "StudioValidationError",
      "StudioWriteNotConfirmedError",
      "createAssistant",
      "deleteAssistant",
      "exportFineTuneRecords",
      "getAssistant",
      "listAssistants",
      "loadDatasetConversations",
      "validateFineTuneRecord",
    ]);
  });

  it("every exported error extends StudioError", () => {
    const errors = Object.entries(root).filter(([name]) => name.endsWith("Error"));
    for (const [name, value] of errors) {
      expect(value.prototype instanceof root.StudioError || value === root.StudioError, name).toBe(
        true,
      );
    }
  });
});

describe("langchain-studio/agents exports", () => {
  it("are the agent loader and its error", () => {
    expect(Object.keys(agents).sort()).toEqual(["StudioMaxIterationsError", "loadAssistantAgent"]);
    expect(agents.StudioMaxIterationsError.prototype).toBeInstanceOf(root.StudioError);
  });
});

describe("langchain-studio/langgraph exports", () => {
  it("include the store, the encrypted serializer, its contexts and its error", () => {
    expect(Object.keys(langgraph)).toEqual(
      expect.arrayContaining([
        "ENCRYPTED_TYPE",
        "EncryptedSerde",
        "StudioCheckpointSaver",
        "StudioDecryptionError",
        "StudioStore",
        "channelValueContext",
        "checkpointContext",
        "createEncryptedSerde",
        "isContextualSerde",
        "pendingWriteContext",
        "storeContext",
      ]),
    );
    expect(langgraph.StudioDecryptionError.prototype).toBeInstanceOf(root.StudioError);
  });
});
