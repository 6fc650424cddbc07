// Wrapping model-written code so that its value is the result. Each candidate
// wrapping is compiled by the script engine (QuickJS, inside WebAssembly: no eval
// of the page's engine is involved); a syntax error makes the next one be tried.

/** The wrapper puts the script's first line on the engine's second line. */
export const WRAPPER_LINES = 1;

/**
 * Compiles the script so that its value is the result. Tried in order, first
 * that parses wins:
 *  1. the whole code as one expression (`1 + 1`, `await rtcAgent.fs.ls("/")`);
 *  2. the code with its last line returned, when the line before ends a
 *     statement (`;` or `}`), so `const x = ...;\nx.length` yields `x.length`;
 *  3. the code as a plain function body (an explicit `return` gives the result).
 * Throws the SyntaxError of form 3 when nothing parses.
 */
export function compileScript<T>(code: string, compileBody: (body: string) => T): T {
  const candidates: string[] = [];
  const trimmed = code.replace(/[\s;]+$/, "");
  if (trimmed !== "") candidates.push(`return (${trimmed}\n);`);
  const lastReturned = returnLastLine(trimmed);
  if (lastReturned !== null) candidates.push(lastReturned);
  candidates.push(code);
  let lastError: unknown = null;
  for (const body of candidates) {
    try {
      return compileBody(body);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

function returnLastLine(code: string): string | null {
  const lines = code.split("\n");
  let last = lines.length - 1;
  while (last > 0 && (lines[last] as string).trim() === "") last--;
  let prev = last - 1;
  while (prev >= 0 && (lines[prev] as string).trim() === "") prev--;
  if (prev < 0) return null;
  const prevLine = (lines[prev] as string).replace(/\/\/.*$/, "").trimEnd();
  // Only when the previous line clearly ended a statement: otherwise the last line
  // may be the body of a braceless `for`/`if`, and returning it would change what runs.
  if (!prevLine.endsWith(";") && !prevLine.endsWith("}")) return null;
  const lastLine = lines[last] as string;
  if (/^\s*(return|const|let|var|if|for|while|do|switch|try|throw|function|class)\b/.test(lastLine)) return null;
  return [...lines.slice(0, last), `return (${lastLine.trim()}\n);`].join("\n");
}

/** The script body as a function expression the engine evaluates to a callable. */
export function wrapBody(body: string): string {
  return `(async function (rtcAgent, params, console) { "use strict";\n${body}\n})`;
}
