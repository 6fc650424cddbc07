// Literal text every match of an RE2 pattern must contain, for the VFS's trigram
// filters (vfs/grams.ts): grep reads only the files that may contain it. The
// reading is conservative by construction: anything not understood ends the
// current run of literal characters and claims nothing, so a pattern yields fewer
// literals (more files read), never a literal a match could lack. Only printable
// ASCII outside classes and groups counts as literal; groups, classes, escapes
// other than escaped punctuation, `.`, anchors and unknown syntax end a run; a
// character made optional by `?`, `*` or `{0,…}` is taken back. Top-level
// alternatives give one group each (a file is read if it may hold any group).

/** Runs shorter than this give no trigram. */
const MIN_RUN = 3;

/**
 * Literal groups of `pattern` (OR of ANDs), or null when some alternative
 * requires no run of three literal characters (then every file is searched).
 */
export function requiredLiterals(pattern: string): string[][] | null {
  const groups: string[][] = [];
  let runs: string[] = [];
  let run = "";
  /** Whether the last atom was a literal character at the end of `run`. */
  let lastLiteral = false;
  const end = () => {
    if (run.length >= MIN_RUN) runs.push(run);
    run = "";
    lastLiteral = false;
  };
  const literal = (ch: string) => {
    run += ch;
    lastLiteral = true;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "|") {
      end();
      groups.push(runs);
      runs = [];
      i++;
    } else if (c === "(") {
      end();
      i = skipGroup(pattern, i);
    } else if (c === "[") {
      end();
      i = skipClass(pattern, i);
    } else if (c === "\\") {
      const d = pattern[i + 1];
      if (d === undefined) return null;
      if (isPunct(d)) {
        literal(d);
        i += 2;
      } else {
        end();
        i = skipEscape(pattern, i);
      }
    } else if (c === "*" || c === "?" || c === "+" || c === "{") {
      let optional = c !== "+";
      let next = i + 1;
      if (c === "{") {
        const m = /^\{(\d+)(?:,\d*)?\}/.exec(pattern.slice(i));
        if (!m) {
          // Not a repetition: RE2 reads `{` as itself; claim nothing.
          end();
          i++;
          continue;
        }
        optional = Number(m[1]) === 0;
        next = i + m[0].length;
      }
      if (pattern[next] === "?") next++; // non-greedy
      if (lastLiteral) {
        const last = run.slice(-1);
        if (optional) {
          run = run.slice(0, -1);
          end();
        } else {
          // Required once or more: what follows comes after its last repeat.
          end();
          run = last;
        }
      } else {
        end();
      }
      i = next;
    } else if (isPrintableAscii(c) && !".^$)]}".includes(c)) {
      literal(c);
      i++;
    } else {
      end();
      i++;
    }
    if (i < 0) return null;
  }
  end();
  groups.push(runs);
  return groups.some((g) => g.length === 0) ? null : groups;
}

function isPrintableAscii(c: string): boolean {
  const n = c.charCodeAt(0);
  return n >= 0x20 && n <= 0x7e;
}

/** ASCII punctuation: `\` before it means the character itself in RE2. */
function isPunct(c: string): boolean {
  return isPrintableAscii(c) && !/[A-Za-z0-9 ]/.test(c);
}

/** Index after the escape starting at `i` (a backslash before a letter or digit), or -1. */
function skipEscape(p: string, i: number): number {
  const d = p[i + 1];
  if (d === undefined) return -1;
  if (d === "Q") {
    const e = p.indexOf("\\E", i + 2);
    return e < 0 ? p.length : e + 2;
  }
  if (d === "x" || d === "p" || d === "P") {
    if (p[i + 2] === "{") {
      const e = p.indexOf("}", i + 3);
      return e < 0 ? -1 : e + 1;
    }
    return d === "x" ? i + 4 : i + 3;
  }
  let j = i + 2;
  if (d >= "0" && d <= "9") while (j < p.length && p[j]! >= "0" && p[j]! <= "9") j++;
  return j;
}

/** Index after the class opened at `i`, or -1 when it is not closed. */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === "^") j++;
  if (p[j] === "]") j++; // a leading ']' is a member
  while (j < p.length) {
    const c = p[j]!;
    if (c === "\\") {
      const k = skipEscapeInClass(p, j);
      if (k < 0) return -1;
      j = k;
    } else if (c === "[" && p[j + 1] === ":") {
      const e = p.indexOf(":]", j + 2);
      j = e < 0 ? j + 1 : e + 2;
    } else if (c === "]") {
      return j + 1;
    } else {
      j++;
    }
  }
  return -1;
}

function skipEscapeInClass(p: string, i: number): number {
  const d = p[i + 1];
  if (d === undefined) return -1;
  return isPunct(d) ? i + 2 : skipEscape(p, i);
}

/** Index after the group opened at `i` (with everything nested), or -1. */
function skipGroup(p: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < p.length) {
    const c = p[j]!;
    if (c === "\\") {
      const k = skipEscapeInClass(p, j);
      if (k < 0) return -1;
      j = k;
    } else if (c === "[") {
      j = skipClass(p, j);
      if (j < 0) return -1;
    } else {
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return j + 1;
      j++;
    }
  }
  return -1;
}
