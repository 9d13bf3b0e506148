/**
 * A write that continues a conversation whose thread was deleted meanwhile, by another process or
 * another saver. Writing it would recreate the thread holding only the newest records: a
 * conversation its user deleted would come back, and nothing would ever delete it again. So the
 * write is refused and nothing of it is stored.
 */
import { named, StudioError } from "./studio-error";

export class StudioThreadDeletedError extends StudioError {
  static {
    named(StudioThreadDeletedError, "StudioThreadDeletedError");
  }

  /** The LangGraph `thread_id` whose thread is gone. */
  readonly threadId: string;

  constructor(threadId: string, what: string) {
    super(
      `LangGraph thread "${threadId}" was deleted before ${what} could be stored: none of it ` +
        "was stored, and the thread was not recreated. Start a new thread, or run this one " +
        "again from its beginning (a config without checkpoint_id) to start it over.",
    );
    this.threadId = threadId;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), threadId: this.threadId };
  }
}
