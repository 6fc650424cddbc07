// A small test harness for the end-to-end suite (Node side): tests run one
// after another; each must assert something; waits poll a condition, never sleep
// a fixed time.

export type TestFn = () => Promise<void>;

const tests: { name: string; fn: TestFn }[] = [];
let assertions = 0;
const cleanups: (() => Promise<void> | void)[] = [];
let notes: string[] = [];

export function test(name: string, fn: TestFn): void {
  tests.push({ name, fn });
}

/** Adds a line to the current test's report, e.g. which part a server could not run. */
export function note(text: string): void {
  notes.push(text);
}

/** Runs `fn` after the current test, whatever its outcome (LIFO). */
export function defer(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

const show = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)));

export function ok(cond: unknown, msg = "expected a truthy value"): void {
  assertions++;
  if (!cond) throw new AssertionError(msg);
}

export function eq<T>(actual: T, expected: T, msg = ""): void {
  assertions++;
  if (show(actual) !== show(expected)) throw new AssertionError(`${msg ? msg + ": " : ""}expected ${show(expected)}, got ${show(actual)}`);
}

export function includes(haystack: string, needle: string, msg = ""): void {
  assertions++;
  if (typeof haystack !== "string" || !haystack.includes(needle)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}expected ${show(haystack)} to include ${show(needle)}`);
  }
}

/**
 * Polls `fn` until it returns a truthy value (returned) or `timeoutMs` passes.
 * Errors thrown by `fn` count as "not yet"; the last one is reported on timeout.
 */
type Falsy = null | undefined | false | 0 | "";

export async function until<T>(what: string, fn: () => Promise<T | Falsy> | T | Falsy, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) {
        assertions++;
        return v as T;
      }
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      throw new AssertionError(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message ?? last})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface Result {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
  notes?: string[];
}

export async function runAll(filter: string, report: (r: Result) => void): Promise<Result[]> {
  const results: Result[] = [];
  for (const t of tests) {
    // "a|b" runs the tests whose names contain a or b.
    if (filter && !filter.split("|").some((f) => t.name.includes(f))) continue;
    assertions = 0;
    notes = [];
    const start = Date.now();
    let r: Result;
    try {
      await t.fn();
      if (assertions === 0) throw new AssertionError("test made no assertion");
      r = { name: t.name, ok: true, ms: Date.now() - start };
    } catch (err) {
      const e = err as Error;
      r = { name: t.name, ok: false, ms: Date.now() - start, error: `${e.name}: ${e.message}` };
    }
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        if (r.ok) r = { ...r, ok: false, error: `cleanup failed: ${(err as Error).message}` };
      }
    }
    if (notes.length) r.notes = notes;
    results.push(r);
    report(r);
  }
  return results;
}
