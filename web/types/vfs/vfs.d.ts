import { type VfsChangeListener } from "./events.js";
/** Default per-file limit: 1 MiB of UTF-8. */
export declare const DEFAULT_MAX_FILE_BYTES: number;
/** Default limit on the sum of all file sizes in one namespace: 50 MiB. */
export declare const DEFAULT_MAX_TOTAL_BYTES: number;
/** Options of {@link VirtualFS.open}. */
export interface VfsOptions {
    /** The signed-in user; with `deviceId` it names the database. */
    userId: string;
    /** This browser profile's device id (a UUID kept by the SDK). */
    deviceId: string;
    /** Largest accepted file, in UTF-8 bytes. Default 1 MiB. */
    maxFileBytes?: number;
    /** Largest accepted sum of file sizes, in UTF-8 bytes. Default 50 MiB. */
    maxTotalBytes?: number;
    /** IndexedDB factory; defaults to the global `indexedDB`. */
    indexedDB?: IDBFactory;
    /** Memory kept for recently read file contents (UTF-16 bytes). Default 32 MiB; 0 turns it off. */
    contentCacheBytes?: number;
}
/** Metadata of one entry, as returned by stat/readdir/walk. */
export interface VfsStat {
    path: string;
    /** Last path segment; `""` for the root. */
    name: string;
    type: "file" | "dir";
    /** UTF-8 bytes; 0 for directories. */
    size: number;
    /** Creation and last modification times, ms since the epoch. */
    ctime: number;
    mtime: number;
    /** Starts at 1, increases on every write of this path. */
    version: number;
}
/** One file of {@link VirtualFS.readFiles}. */
export interface VfsFile {
    path: string;
    content: string;
    /** With `mtime`, identifies this content: both change on every write. */
    version: number;
    mtime: number;
}
/** Result of {@link VirtualFS.writeFile}. */
export interface WriteResult {
    path: string;
    bytes: number;
    created: boolean;
}
/** Space used and the limits in force. */
export interface VfsUsage {
    totalBytes: number;
    maxTotalBytes: number;
    maxFileBytes: number;
}
/**
 * A per-(user, device) file system stored in IndexedDB. Directories are real
 * entries; every mutation is one IndexedDB transaction, so it either fully
 * happens (and emits its change events after the commit) or not at all.
 */
export declare class VirtualFS {
    private readonly db;
    /** The IndexedDB database name, derived from user and device. */
    readonly databaseName: string;
    readonly maxFileBytes: number;
    readonly maxTotalBytes: number;
    private readonly hub;
    private closed;
    private readonly cache;
    private constructor();
    /** Database name used for a (user, device) namespace. */
    static databaseNameFor(userId: string, deviceId: string): string;
    /** Opens (creating if needed) the file system of one user on one device. */
    static open(options: VfsOptions): Promise<VirtualFS>;
    /** Deletes a namespace's database (e.g. "forget this device"). Close it first. */
    static deleteDatabase(userId: string, deviceId: string, factory?: IDBFactory): Promise<void>;
    /** Subscribes to committed changes; returns the unsubscribe function. */
    onChange(listener: VfsChangeListener): () => void;
    close(): void;
    stat(path: string): Promise<VfsStat>;
    /** True when an entry (file or directory) exists at `path`. */
    exists(path: string): Promise<boolean>;
    readFile(path: string): Promise<string>;
    /**
     * Contents of many files, read in one transaction (one per file costs far more
     * than the reading). Given stats (e.g. from {@link walk}), files whose content
     * is cached for that version skip IndexedDB entirely. Paths that are missing
     * or directories are left out.
     */
    readFiles(files: (string | VfsStat)[]): Promise<VfsFile[]>;
    private content;
    /** Creates or fully overwrites a file, creating missing parent directories. */
    writeFile(path: string, content: string): Promise<WriteResult>;
    /** Creates a directory and any missing parents; succeeds if it already exists. */
    mkdir(path: string): Promise<{
        path: string;
        created: boolean;
    }>;
    /** Entries directly inside a directory, sorted by name. */
    readdir(path: string): Promise<VfsStat[]>;
    /**
     * The file itself if `path` is a file; otherwise every entry below the
     * directory (not the directory itself), in path order.
     */
    walk(path: string): Promise<VfsStat[]>;
    /** Removes a file, or a directory with everything below it. */
    remove(path: string): Promise<{
        path: string;
        removed: number;
    }>;
    /**
     * Moves a file or a directory tree. The destination must not exist (no silent
     * overwrite); its missing parents are created.
     */
    rename(from: string, to: string): Promise<{
        from: string;
        to: string;
    }>;
    usage(): Promise<VfsUsage>;
    private read;
    private write;
    private assertOpen;
}
/** UTF-8 length without allocating an encoded copy (files can be 1 MiB). */
export declare function utf8Length(s: string): number;
