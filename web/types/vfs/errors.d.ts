/**
 * Stable error codes of the virtual file system. They follow POSIX names so that
 * a model (and a developer) recognises them without a glossary; callers branch on
 * `code`, never on the message text.
 */
export type VfsErrorCode = 
/** No entry at the path (or a parent of it is missing). */
"ENOENT"
/** The destination already exists (rename, mkdir over a file). */
 | "EEXIST"
/** A file operation was given a directory. */
 | "EISDIR"
/** A directory operation was given a file, or a path goes "through" a file. */
 | "ENOTDIR"
/** Malformed path or argument: `..`, control characters, empty path, bad type. */
 | "EINVAL"
/** A path or one of its names is longer than the limits. */
 | "ENAMETOOLONG"
/** A single file would exceed the per-file size limit. */
 | "EFBIG"
/** The write would exceed the total size limit of the namespace. */
 | "ENOSPC"
/** The operation is never allowed (removing or renaming the root). */
 | "EPERM"
/** IndexedDB itself failed (quota, blocked upgrade, closed database). */
 | "EIO";
/** The one error type the VFS throws; `message` is written for a model to read. */
export declare class VfsError extends Error {
    readonly code: VfsErrorCode;
    /** The normalised path concerned, when there is one. */
    readonly path?: string | undefined;
    readonly name = "VfsError";
    constructor(code: VfsErrorCode, message: string, 
    /** The normalised path concerned, when there is one. */
    path?: string | undefined);
}
/** True when `err` is a VfsError, optionally with the given code. */
export declare function isVfsError(err: unknown, code?: VfsErrorCode): err is VfsError;
