// A size-capped cache of file contents, so repeated grep runs and reads of the
// same files skip IndexedDB. An entry is used only while the file's node still
// has the version and mtime it was cached with (checked in the same transaction
// that reads the node), and change events (this tab's and other tabs') drop
// entries early, which also frees their memory.

/** Default cap: 32 MiB of UTF-16 text (string length × 2). */
export const DEFAULT_CONTENT_CACHE_BYTES = 32 * 1024 * 1024;

interface Entry {
  version: number;
  mtime: number;
  content: string;
}

export class ContentCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The cached content if it was cached for exactly this version of the file. */
  get(path: string, version: number, mtime: number): string | undefined {
    const e = this.entries.get(path);
    if (!e) return undefined;
    if (e.version !== version || e.mtime !== mtime) {
      this.delete(path);
      return undefined;
    }
    // Re-insert: Map order is the least-recently-used order for eviction.
    this.entries.delete(path);
    this.entries.set(path, e);
    return e.content;
  }

  set(path: string, version: number, mtime: number, content: string): void {
    this.delete(path);
    const size = content.length * 2;
    if (size > this.maxBytes) return;
    this.entries.set(path, { version, mtime, content });
    this.bytes += size;
    for (const [p, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(p);
      this.bytes -= e.content.length * 2;
    }
  }

  delete(path: string): void {
    const e = this.entries.get(path);
    if (!e) return;
    this.entries.delete(path);
    this.bytes -= e.content.length * 2;
  }

  /** Drops `path` and everything below it (a directory removed or moved). */
  deleteTree(path: string): void {
    const prefix = path === "/" ? "/" : path + "/";
    this.delete(path);
    for (const p of [...this.entries.keys()]) if (p.startsWith(prefix)) this.delete(p);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
