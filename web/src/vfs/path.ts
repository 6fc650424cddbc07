import { confusableWith } from "./confusables.js";
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
// Everything showInvisible escapes: the two sets above, and characters that show
// as nothing though they are not format characters: default-ignorable code points
// (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, ...) and the braille blank
// U+2800, so `todo.md\u3164` cannot pass for `todo.md`. In text, the emoji
// variation selectors U+FE00-FE0F stay (❤️ is U+2764 U+FE0F); in a path they are
// escaped with the rest. Tab, line feed and carriage return stay: file contents
// shown in cards keep their layout.
const INVISIBLE = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\u2800";
// A run of one such character, written once with its count: thousands of them
// would otherwise push what follows out of sight.
const INVISIBLE_RUNS = new RegExp(`((?![\\uFE00-\\uFE0F])[${INVISIBLE}])\\1*`, "gu");
/** A run at least this long is written as `\uXXXX×N`. */
const RUN_MIN = 4;
// In a path, blanks other than the plain space are escaped as well: a no-break
// space reads as a space but names another file.
const PATH_INVISIBLE_RUNS = new RegExp(`((?! )[${INVISIBLE}\\s])\\1*`, "gu");

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
 * A new name must not read as a path either: a backslash, a character that
 * looks like a slash, or a name of dots that reads as `.` or `..` is refused.
 *
 * @throws VfsError EINVAL (not a string, empty, `..`, control or Unicode format
 *   characters such as bidi overrides and zero-width characters, a name that
 *   reads as a path) or ENAMETOOLONG.
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
    const pathLike = opts.existing ? null : pathLikeName(segment);
    if (pathLike) {
      throw new VfsError("EINVAL", `the name ${JSON.stringify(showInvisible(segment))} ${pathLike}; use / between folder names`);
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
 * Why a new name reads as a path, or null: a backslash (`\\..\\AGENT.md` is one
 * name that reads as a path on other systems), a character that looks like a
 * slash or backslash (fraction slash, fullwidth solidus, ...), or nothing but
 * dots that read as `.` or `..` (one-dot leader, fullwidth full stops).
 */
function pathLikeName(name: string): string | null {
  const nfkc = name.normalize("NFKC");
  for (const ch of nfkc) {
    if (ch === "\\") return "contains a backslash";
    const like = confusableWith(ch);
    if (like === "/" || like === "\\") return `contains ${escapeChar(ch)}, which looks like ${like}`;
  }
  let shown = "";
  for (const ch of nfkc) shown += confusableWith(ch) ?? ch;
  shown = shown.replace(/[\s\p{Default_Ignorable_Code_Point}\u2800]/gu, "");
  return shown === "." || shown === ".." ? `reads as ${shown}` : null;
}

/**
 * Text with control and invisible formatting characters written as `\uXXXX`, for
 * showing names that were stored before such names were refused (or any text
 * where a bidi override would reorder what the person reads).
 */
export function showInvisible(text: string): string {
  return escapeRuns(text, INVISIBLE_RUNS);
}

/**
 * A path as a confirmation shows it: like showInvisible, with every blank but the
 * plain space escaped too, and a plain space at either end of a name (`todo.md `
 * reads as `todo.md`).
 */
export function showPath(path: string): string {
  return escapeRuns(path, PATH_INVISIBLE_RUNS).replace(/(?<=^|\/) +| +(?=\/|$)/g, (run) => escapeChar(" ").repeat(run.length));
}

function escapeRuns(text: string, runs: RegExp): string {
  return text.replace(runs, (run: string, ch: string) => {
    const n = run.length / ch.length;
    return n >= RUN_MIN ? `${escapeChar(ch)}×${n}` : escapeChar(ch).repeat(n);
  });
}

/** `\uXXXX` (or `\u{XXXXX}`) for one character. */
export function escapeChar(ch: string): string {
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
