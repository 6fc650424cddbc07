// A write to the browser's storage failed: most often the origin's quota is used
// up (QuotaExceededError), sometimes IndexedDB itself fails (a closed or
// corrupted database, a browser in a mode without storage). The SDK goes on from
// memory; the UI tells the person what to free.

/** What could not be saved, as the person would say it. */
export type Unsaved = "tool results" | "conversation history" | "files";

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    readonly what: Unsaved,
    override readonly cause: unknown,
  ) {
    super(`could not save ${what} in this browser: ${describe(cause)}`);
  }

  /** True when the origin's storage quota is used up (the person can free space). */
  get quota(): boolean {
    return isQuotaError(this.cause);
  }
}

export function isQuotaError(err: unknown): boolean {
  // DOMException's name is the portable test; some browsers wrap the cause.
  const name = (err as { name?: unknown } | null)?.name;
  if (name === "QuotaExceededError") return true;
  const inner = (err as { cause?: unknown } | null)?.cause;
  return inner !== undefined && inner !== err && isQuotaError(inner);
}

function describe(err: unknown): string {
  if (err instanceof Error || (typeof DOMException === "function" && err instanceof DOMException)) return `${err.name}: ${err.message}`;
  return String(err);
}
