/** Default cap: 32 MiB of UTF-16 text (string length × 2). */
export declare const DEFAULT_CONTENT_CACHE_BYTES: number;
export declare class ContentCache {
    private readonly maxBytes;
    private readonly entries;
    private bytes;
    constructor(maxBytes: number);
    /** The cached content if it was cached for exactly this version of the file. */
    get(path: string, version: number, mtime: number): string | undefined;
    set(path: string, version: number, mtime: number, content: string): void;
    delete(path: string): void;
    /** Drops `path` and everything below it (a directory removed or moved). */
    deleteTree(path: string): void;
    clear(): void;
    get size(): {
        entries: number;
        bytes: number;
    };
}
