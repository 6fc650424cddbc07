// Glob → RegExp. Supported: `*` (any run of characters except `/`), `?` (one
// character except `/`), `**` (any number of directories; `**/` may match none),
// `[abc]`, `[a-z]`, `[!abc]`/`[^abc]`, `{a,b}` (one level, no nesting) and `\x`
// to escape. Character classes never match `/`, so `*` never crosses a directory.

import { ArgumentError } from "./args.js";

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/** Compiles a glob into an anchored RegExp matched against a whole path string. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${translate(glob, false)}$`);
}

function translate(glob: string, inBraces: boolean): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "\\") {
      const next = glob[i + 1];
      if (next === undefined) throw new ArgumentError(`Invalid glob ${JSON.stringify(glob)}: it ends with a lone backslash`);
      out += escape(next);
      i++;
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
      if (end === -1) throw new ArgumentError(`Invalid glob ${JSON.stringify(glob)}: '[' at position ${i} has no closing ']'`);
      out += charClass(glob.slice(i + 1, end));
      i = end;
    } else if (c === "{" && !inBraces) {
      const end = glob.indexOf("}", i);
      if (end === -1) {
        out += escape(c);
      } else {
        const alts = glob.slice(i + 1, end).split(",").map((alt) => translate(alt, true));
        out += `(?:${alts.join("|")})`;
        i = end;
      }
    } else {
      out += escape(c);
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

function charClass(body: string): string {
  let negate = false;
  if (body.startsWith("!") || body.startsWith("^")) {
    negate = true;
    body = body.slice(1);
  }
  // Keep `-` ranges; escape what is special inside a RegExp class.
  const members = body.replace(/[\\\]^[]/g, (m) => "\\" + m);
  return negate ? `[^/${members}]` : `(?![/])[${members}]`;
}

function escape(c: string): string {
  return c.replace(REGEX_SPECIAL, "\\$&");
}
