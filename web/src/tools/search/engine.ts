// The matching work of grep and find, free of DOM and VFS imports so that it runs
// in the search worker (the usual case) and in the page (fallback). Both use RE2
// (re2js): matching time grows linearly with the input whatever the pattern, so a
// pattern like `(a+)+$` cannot take exponential time.

import { RE2JS } from "re2js";
import { globToPattern } from "./glob.js";

/** A pattern RE2 does not accept; the message is written for the model. */
export class PatternError extends Error {
  override readonly name = "PatternError";
}

export interface GrepRequest {
  pattern: string;
  ignoreCase: boolean;
  /** Files in output order; `key` (version and mtime) identifies the content. */
  files: { path: string; key?: string; content: string }[];
  maxMatches: number;
  maxLineChars: number;
}

export interface GrepResult {
  /** `path:line: text`, each text already cut to maxLineChars. */
  lines: string[];
  /** True when more lines matched than maxMatches. */
  capped: boolean;
}

export interface FindRequest {
  glob: string;
  /** The strings the glob is matched against (names or paths). */
  subjects: string[];
}

export interface FindResult {
  /** Indexes into `subjects` that matched, ascending. */
  matches: number[];
}

function compile(pattern: string, flags: number, what: string): RE2JS {
  try {
    return RE2JS.compile(pattern, flags);
  } catch (err) {
    throw new PatternError(`Invalid ${what} ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

/** Compiles both matchers of a grep pattern; throws PatternError on bad syntax. */
function grepMatchers(pattern: string, ignoreCase: boolean): { whole: RE2JS; line: RE2JS } {
  const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  return {
    // On a whole file: `^`/`$` must hold at every line break to find what a
    // line-by-line test would.
    whole: compile(pattern, flags | RE2JS.MULTILINE, "regular expression"),
    line: compile(pattern, flags, "regular expression"),
  };
}

/** Throws PatternError when `pattern` is not valid RE2 syntax. */
export function checkGrepPattern(pattern: string): void {
  grepMatchers(pattern, false);
}

export function grepFiles(req: GrepRequest): GrepResult {
  const { whole, line } = grepMatchers(req.pattern, req.ignoreCase);
  const lines: string[] = [];
  for (const f of req.files) {
    // CRLF files: lines are shown without their CR, and `$` must match before it.
    const content = f.content.includes("\r") ? f.content.replace(/\r\n/g, "\n") : f.content;
    // One pass over the whole file first: most files of a search do not match,
    // and one RE2 scan of the content is much cheaper than one per line.
    if (!whole.test(content)) continue;
    const split = content.split("\n");
    if (split[split.length - 1] === "") split.pop();
    for (let i = 0; i < split.length; i++) {
      const text = split[i] as string;
      if (!line.test(text)) continue;
      if (lines.length === req.maxMatches) return { lines, capped: true };
      lines.push(`${f.path}:${i + 1}: ${clip(text, req.maxLineChars)}`);
    }
  }
  return { lines, capped: false };
}

export function findMatches(req: FindRequest): FindResult {
  const re = compile(globToPattern(req.glob), RE2JS.DOTALL, "glob");
  const matches: number[] = [];
  req.subjects.forEach((s, i) => {
    if (re.matches(s)) matches.push(i);
  });
  return { matches };
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more characters]`;
}
