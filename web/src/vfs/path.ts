import { VfsError } from "./errors.js";

/** Longest accepted normalised path, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 4096;
/** Longest accepted single name (path segment), in UTF-16 code units. */
export const MAX_NAME_LENGTH = 255;

// C0 controls, DEL and C1 controls: they make paths unprintable in tool output
// and in the file explorer, and a newline would forge extra lines in `ls`/`grep`.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// Unicode format characters (category Cf: bidi overrides and isolates U+202A-202E,
// U+2066-2069, marks U+200E/200F, zero-width U+200B-200D, U+FEFF, ...) and the
// line/paragraph separators: they make a name display as another name
// (`invoice\u202Etxt.exe` shows as `invoiceexe.txt`) or hide characters.
const FORMAT_CHARS = /[\p{Cf}\p{Zl}\p{Zp}]/u;
// Everything showInvisible escapes: the two sets above.
// Tab, line feed and carriage return stay: file contents shown in cards keep their layout.
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

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
export function normalizePath(input: unknown, opts: { existing?: boolean } = {}): string {
  if (typeof input !== "string") {
    throw new VfsError("EINVAL", `path must be a string, got ${describeType(input)}`);
  }
  if (input.trim() === "") {
    throw new VfsError("EINVAL", "path must not be empty");
  }
  if (CONTROL_CHARS.test(input)) {
    throw new VfsError("EINVAL", `path contains a control character: ${JSON.stringify(input)}`);
  }
  // `existing`: the path names an entry that may predate this rule (read, list,
  // remove, move away); it must not create a name.
  const format = opts.existing ? null : FORMAT_CHARS.exec(input);
  if (format) {
    throw new VfsError(
      "EINVAL",
      `path contains the invisible formatting character ${escapeChar(format[0])} (bidi or zero-width characters make names look like other names): ${showInvisible(input)}`,
    );
  }
  const parts: string[] = [];
  for (const segment of input.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      throw new VfsError("EINVAL", `'..' is not allowed in paths (got ${JSON.stringify(input)}); use an absolute path such as /dir/file.txt`);
    }
    if (segment.length > MAX_NAME_LENGTH) {
      throw new VfsError("ENAMETOOLONG", `a name in the path is longer than ${MAX_NAME_LENGTH} characters`);
    }
    parts.push(segment);
  }
  const path = "/" + parts.join("/");
  if (path.length > MAX_PATH_LENGTH) {
    throw new VfsError("ENAMETOOLONG", `path is longer than ${MAX_PATH_LENGTH} characters`);
  }
  return path;
}

/**
 * Text with control and invisible formatting characters written as `\uXXXX`, for
 * showing names that were stored before such names were refused (or any text
 * where a bidi override would reorder what the person reads).
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, escapeChar);
}

function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0) as number;
  return cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Parent directory of a normalised path; the root is its own parent. */
export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** Last name of a normalised path; `""` for the root. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Joins a normalised directory and a relative path, then normalises. */
export function joinPath(dir: string, rel: string): string {
  return normalizePath(dir === "/" ? "/" + rel : dir + "/" + rel);
}

/** Every ancestor of a normalised path, root first, excluding the path itself. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let p = path;
  while (p !== "/") {
    p = parentOf(p);
    out.unshift(p);
  }
  return out;
}

/** True when `path` equals `dir` or lies below it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === "/" || path === dir || path.startsWith(dir + "/");
}

/** Short type name for error messages ("number", "array", "null", ...). */
export function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}
