/**
 * Stored data this version cannot read because a newer version wrote it. Every format the package
 * ever wrote stays readable (docs/storage.md); a higher one means another process runs a newer
 * release. Reading on from the older records around it would silently roll the data back, so the
 * read stops here instead.
 */
import { named, StudioError } from "./studio-error";

export class StudioStoredFormatError extends StudioError {
  static {
    named(StudioStoredFormatError, "StudioStoredFormatError");
  }

  /** The kind of record, as docs/storage.md names it (`checkpoint`, `store-record`, ...). */
  readonly kind: string;
  /** The format found. */
  readonly format: number;
  /** The newest format this version reads. */
  readonly newestReadable: number;

  constructor(kind: string, format: number, newestReadable: number) {
    super(
      `A stored "${kind}" record is in format ${format} (this version reads up to ` +
        `${newestReadable}), written by a newer version of langchain-studio: upgrade every ` +
        "process that shares this account.",
    );
    this.kind = kind;
    this.format = format;
    this.newestReadable = newestReadable;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      kind: this.kind,
      format: this.format,
      newestReadable: this.newestReadable,
    };
  }
}
