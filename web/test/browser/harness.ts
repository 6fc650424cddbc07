// A tiny in-page test harness: tests run one after another in the real page; each
// must make at least one assertion, so a test that checks nothing fails.

export type TestFn = () => Promise<void> | void;

export interface TestReport {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

const tests: { name: string; fn: TestFn }[] = [];
let assertions = 0;

export function test(name: string, fn: TestFn): void {
  tests.push({ name, fn });
}

export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

function fail(msg: string): never {
  throw new AssertionError(msg);
}

const show = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v));

export function ok(cond: unknown, msg = "expected a truthy value"): void {
  assertions++;
  if (!cond) fail(msg);
}

export function eq<T>(actual: T, expected: T, msg = ""): void {
  assertions++;
  if (show(actual) !== show(expected)) fail(`${msg ? msg + ": " : ""}expected ${show(expected)}, got ${show(actual)}`);
}

export function includes(haystack: string, needle: string, msg = ""): void {
  assertions++;
  if (typeof haystack !== "string" || !haystack.includes(needle)) {
    fail(`${msg ? msg + ": " : ""}expected ${show(haystack)} to include ${show(needle)}`);
  }
}

export function matches(s: string, re: RegExp, msg = ""): void {
  assertions++;
  if (typeof s !== "string" || !re.test(s)) fail(`${msg ? msg + ": " : ""}expected ${show(s)} to match ${re}`);
}

/** Awaits `p` and asserts it rejects with an error whose `code` (or message) matches. */
export async function rejects(p: Promise<unknown>, expected: { code?: string; message?: RegExp }): Promise<Error> {
  assertions++;
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (!(err instanceof Error)) return fail(`expected a rejection${expected.code ? " with " + expected.code : ""}, but it resolved`);
  const code = (err as Error & { code?: string }).code;
  if (expected.code && code !== expected.code) fail(`expected error code ${expected.code}, got ${code}: ${err.message}`);
  if (expected.message && !expected.message.test(err.message)) fail(`expected error matching ${expected.message}, got ${show(err.message)}`);
  return err;
}

export async function runAll(report: (r: TestReport) => void | Promise<void>, filter?: string): Promise<TestReport[]> {
  const results: TestReport[] = [];
  for (const t of tests) {
    if (filter && !t.name.includes(filter)) continue;
    assertions = 0;
    const start = performance.now();
    let r: TestReport;
    try {
      await t.fn();
      if (assertions === 0) throw new AssertionError("test made no assertion");
      r = { name: t.name, ok: true, ms: Math.round(performance.now() - start) };
    } catch (err) {
      const e = err as Error;
      r = { name: t.name, ok: false, ms: Math.round(performance.now() - start), error: `${e.name}: ${e.message}` };
    }
    results.push(r);
    await report(r);
  }
  return results;
}

/** Prints a figure under the test's result line (see run.mjs); for reading, not asserting. */
export function note(text: string): void {
  console.info(`[note] ${text}`);
}
