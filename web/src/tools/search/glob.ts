// Glob → RE2 pattern. Supported: `*` (any run of characters except `/`), `?` (one
// character except `/`), `**` (any number of directories; `**/` may match none),
// `[abc]`, `[a-z]`, `[!abc]`/`[^abc]`, `{a,b}` (one level, no nesting) and `\x`
// to escape. Character classes never match `/`, so `*` never crosses a directory.
// The pattern is run by RE2 (linear time), so `*a*a*a…*b` cannot backtrack.

/** Bad glob syntax; the message is written for the model. */
export class GlobSyntaxError extends Error {
  override readonly name = "GlobSyntaxError";
}

/** Compiles a glob into an anchored RE2 pattern matched against a whole path string. */
export function globToPattern(glob: string): string {
  return `^${translate(glob, false)}$`;
}

function translate(glob: string, inBraces: boolean): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "\\") {
      const next = glob.codePointAt(i + 1);
      if (next === undefined) throw new GlobSyntaxError(`Invalid glob ${JSON.stringify(glob)}: it ends with a lone backslash`);
      out += literal(next);
      i += next > 0xffff ? 2 : 1;
    } else if (c === "*") {
      let j = i;
      while (glob[j + 1] === "*") j++;
      if (j > i) {
        // `**/` matches zero or more whole directories; a bare `**` anything at all.
        if (glob[j + 1] === "/") {
          out += "(?:.*/)?";
          j++;
        } else {
          out += ".*";
        }
      } else {
        out += "[^/]*";
      }
      i = j;
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const end = classEnd(glob, i);
      if (end === -1) throw new GlobSyntaxError(`Invalid glob ${JSON.stringify(glob)}: '[' at position ${i} has no closing ']'`);
      out += charClass(glob, glob.slice(i + 1, end));
      i = end;
    } else if (c === "{" && !inBraces) {
      const end = glob.indexOf("}", i);
      if (end === -1) {
        out += literal(0x7b);
      } else {
        const alts = glob.slice(i + 1, end).split(",").map((alt) => translate(alt, true));
        out += `(?:${alts.join("|")})`;
        i = end;
      }
    } else {
      const cp = glob.codePointAt(i) as number;
      out += literal(cp);
      if (cp > 0xffff) i++;
    }
  }
  return out;
}

/** Index of the `]` closing the class opened at `start`, or -1. */
function classEnd(glob: string, start: number): number {
  let i = start + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++; // a leading ']' is a literal member
  for (; i < glob.length; i++) if (glob[i] === "]") return i;
  return -1;
}

const SLASH = 0x2f;

/**
 * A class as explicit code point ranges with `/` taken out (RE2 has no lookahead
 * or class subtraction, and a class must never match the separator).
 */
function charClass(glob: string, body: string): string {
  let negate = false;
  if (body.startsWith("!") || body.startsWith("^")) {
    negate = true;
    body = body.slice(1);
  }
  const points = [...body].map((ch) => ch.codePointAt(0) as number);
  const ranges: [number, number][] = [];
  for (let i = 0; i < points.length; i++) {
    const lo = points[i] as number;
    if (points[i + 1] === 0x2d && i + 2 < points.length) {
      const hi = points[i + 2] as number;
      if (hi < lo) throw new GlobSyntaxError(`Invalid glob ${JSON.stringify(glob)}: range ${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)} is reversed`);
      ranges.push([lo, hi]);
      i += 2;
    } else {
      ranges.push([lo, lo]);
    }
  }
  const parts: string[] = [];
  for (const [lo, hi] of ranges) {
    if (lo <= SLASH && SLASH <= hi) {
      if (lo < SLASH) parts.push(range(lo, SLASH - 1));
      if (hi > SLASH) parts.push(range(SLASH + 1, hi));
    } else {
      parts.push(range(lo, hi));
    }
  }
  if (negate) return `[^/${parts.join("")}]`;
  // A class of only `/` can match nothing; RE2 has no empty class, so say so.
  return parts.length === 0 ? "[^\\x{0}-\\x{10FFFF}]" : `[${parts.join("")}]`;
}

function range(lo: number, hi: number): string {
  return lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`;
}

function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** One code point as an RE2 literal: letters and digits as is, everything else by number. */
function literal(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /^[A-Za-z0-9_]$/.test(ch) ? ch : hex(cp);
}
