import type * as LangChain from "langchain";
import { StudioMissingDependencyError } from "./errors";

/** Loads the optional peer `langchain`; only a missing package becomes the dependency error. */
export async function importLangChain(
  load: () => Promise<typeof LangChain> = () => import("langchain"),
): Promise<typeof LangChain> {
  try {
    return await load();
  } catch (error) {
    if (isModuleNotFound(error, "langchain")) {
      throw new StudioMissingDependencyError("langchain", "loadAssistantAgent", { cause: error });
    }
    throw error;
  }
}

function isModuleNotFound(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && error.message.includes(name)
  );
}
