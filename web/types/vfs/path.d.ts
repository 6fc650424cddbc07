/** Longest accepted normalised path, in UTF-16 code units. */
export declare const MAX_PATH_LENGTH = 4096;
/** Longest accepted single name (path segment), in UTF-16 code units. */
export declare const MAX_NAME_LENGTH = 255;
/**
 * Normalises a path to the VFS's canonical form: absolute, `/`-separated, no
 * empty or `.` segments, no trailing slash (except the root `/`).
 *
 * A relative path is taken relative to the root (`notes.txt` → `/notes.txt`),
 * because models often omit the leading slash. `..` is refused rather than
 * resolved so that no path can ever name something the caller did not spell out.
 *
 * With `existing`, format characters are accepted: the caller only looks up or
 * removes an entry whose name may predate their refusal, and creates nothing.
 *
 * @throws VfsError EINVAL (not a string, empty, `..`, control or Unicode format
 *   characters such as bidi overrides and zero-width characters) or
 *   ENAMETOOLONG.
 */
export declare function normalizePath(input: unknown, opts?: {
    existing?: boolean;
}): string;
/**
 * Text with control and invisible formatting characters written as `\uXXXX`, for
 * showing names that were stored before such names were refused (or any text
 * where a bidi override would reorder what the person reads).
 */
export declare function showInvisible(text: string): string;
/** Parent directory of a normalised path; the root is its own parent. */
export declare function parentOf(path: string): string;
/** Last name of a normalised path; `""` for the root. */
export declare function baseName(path: string): string;
/** Joins a normalised directory and a relative path, then normalises. */
export declare function joinPath(dir: string, rel: string): string;
/** Every ancestor of a normalised path, root first, excluding the path itself. */
export declare function ancestorsOf(path: string): string[];
/** True when `path` equals `dir` or lies below it. */
export declare function isWithin(path: string, dir: string): boolean;
/** Short type name for error messages ("number", "array", "null", ...). */
export declare function describeType(v: unknown): string;
