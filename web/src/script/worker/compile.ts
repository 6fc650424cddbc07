// Loading model-written code without eval: each candidate wrapping becomes a blob
// that is loaded with importScripts (allowed by the sandbox CSP's `script-src
// blob:`), which defines a function on the global object and runs nothing else.
// A syntax error surfaces as a catchable SyntaxError from importScripts.

const SLOT = "__rtcAgentScript";
/** The wrapper puts the script's first line on the blob's second line. */
export const WRAPPER_LINES = 1;

export type ScriptFunction = (rtcAgent: unknown, params: unknown, console: unknown) => Promise<unknown>;

export interface Compiled {
  fn: ScriptFunction;
  /** Blob URL of the loaded code, used to map stack frames back to script lines. */
  url: string;
}

/**
 * Compiles the script so that its value is the result. Tried in order, first
 * that parses wins:
 *  1. the whole code as one expression (`1 + 1`, `await rtcAgent.fs.ls("/")`);
 *  2. the code with its last line returned, when the line before ends a
 *     statement (`;` or `}`), so `const x = ...;\nx.length` yields `x.length`;
 *  3. the code as a plain function body (an explicit `return` gives the result).
 * Throws the SyntaxError of form 3 when nothing parses.
 */
export function compileScript(code: string, load: (url: string) => void): Compiled {
  const candidates: string[] = [];
  const trimmed = code.replace(/[\s;]+$/, "");
  if (trimmed !== "") candidates.push(`return (${trimmed}\n);`);
  const lastReturned = returnLastLine(trimmed);
  if (lastReturned !== null) candidates.push(lastReturned);
  candidates.push(code);
  let lastError: unknown = null;
  for (const body of candidates) {
    try {
      return loadBody(body, load);
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

function loadBody(body: string, load: (url: string) => void): Compiled {
  const g = globalThis as unknown as Record<string, unknown>;
  const text = `self.${SLOT} = async function (rtcAgent, params, console) { "use strict";\n${body}\n};`;
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    g[SLOT] = undefined;
    load(url);
    const fn = g[SLOT];
    if (typeof fn !== "function") throw new Error("script did not compile to a function");
    return { fn: fn as ScriptFunction, url };
  } finally {
    delete g[SLOT];
  }
}
