// A script allocating without bound stops at the run's memory cap (QuickJS's
// allocator refuses past it) with a MemoryLimitError; the page and the next
// script keep working. Prints the sandbox process's peak memory (from /proc, via
// the runner) for the reader; the cap, not the figure, is asserted.

import type { ScriptRunner } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, includes, note, ok, test } from "./harness.js";

declare global {
  interface Window {
    __rtcRendererMemory?: () => Promise<{ pid: number; rssKiB: number; peakKiB: number }[]>;
  }
}

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

type Proc = { pid: number; rssKiB: number; peakKiB: number };

/**
 * The renderer process whose peak grew most since `before`: the one running the
 * sandbox worker (Chromium may place the sandbox frame in an existing process).
 */
async function grewMost(before: Proc[]): Promise<Proc | undefined> {
  const now = (await window.__rtcRendererMemory?.()) ?? [];
  const base = new Map(before.map((p) => [p.pid, p.peakKiB]));
  let best: Proc | undefined;
  let growth = -1;
  for (const p of now) {
    const g = p.peakKiB - (base.get(p.pid) ?? 0);
    if (g > growth) [best, growth] = [p, g];
  }
  return best;
}

const show = (p: Proc | undefined) => (p ? `pid ${p.pid} rss ${mib(p.rssKiB)}, peak ${mib(p.peakKiB)}` : "? (no /proc access)");

test("memory: a memory bomb stops at the cap, the page and the next script keep working", async () => {
  const vfs = await freshVfs();
  const snapshot = async () => (await window.__rtcRendererMemory?.()) ?? [];
  const runner: ScriptRunner = new ctx.sdk.ScriptRunner({ vfs, timeoutMs: 60_000 });
  try {
    await runner.warm();
    eq((await runner.eval("1 + 1")).result, 2);
    const before = await snapshot();
    note(`option (b), measuring from outside: crossOriginIsolated=${String(globalThis.crossOriginIsolated)}, measureUserAgentSpecificMemory ${typeof (performance as { measureUserAgentSpecificMemory?: unknown }).measureUserAgentSpecificMemory}`);

    const t0 = performance.now();
    const strings = await runner.eval("const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length)");
    const ms = Math.round(performance.now() - t0);
    eq(strings.ok, false);
    eq(strings.out_of_memory, true, strings.error);
    includes(strings.error ?? "", "MemoryLimitError");
    includes(strings.error ?? "", "memory limit of 256 MiB");
    note(`string bomb stopped in ${ms} ms; sandbox process ${show(await grewMost(before))}`);

    const buffers = await runner.eval("const b = []; for (;;) b.push(new Uint8Array(16 << 20).fill(7))");
    eq(buffers.out_of_memory, true, buffers.error);
    note(`typed-array bomb (16 MiB arrays, written): sandbox process ${show(await grewMost(before))}`);
    const caught = await runner.eval("const c = []; try { for (;;) c.push(new Array(1e6).fill(1)) } catch (e) { return 'caught ' + e.message }");
    ok(caught.out_of_memory === true || String(caught.result).startsWith("caught"), `a script that catches the error cannot go past the cap: ${JSON.stringify(caught)}`);
    const peak = await grewMost(before);
    note(`after an array bomb that catches the error: sandbox process ${show(peak)}`);
    note(`all renderer processes: ${(await snapshot()).map(show).join("; ")}`);
    if (peak) ok(peak.peakKiB < 1536 * 1024, `the sandbox process stayed far below the unbounded case (peak ${mib(peak.peakKiB)})`);

    eq((await runner.eval("return [1, 2, 3].map((x) => x * 2)")).result, [2, 4, 6], "the next script works");
    eq(document.body !== null, true, "the page is alive");
  } finally {
    runner.dispose();
  }
});

test("memory: the cap is an option", async () => {
  const vfs = await freshVfs();
  const runner: ScriptRunner = new ctx.sdk.ScriptRunner({ vfs, timeoutMs: 30_000, memoryLimitBytes: 16 * 1024 * 1024 });
  try {
    const r = await runner.eval("const a = []; for (;;) a.push('y'.repeat(1 << 16) + a.length)");
    eq(r.out_of_memory, true, r.error);
    includes(r.error ?? "", "memory limit of 16 MiB");
    eq((await runner.eval("return 'x'.repeat(1 << 20).length")).result, 1 << 20, "1 MiB strings still fit");
    let threw = "";
    try {
      new ctx.sdk.ScriptRunner({ vfs, memoryLimitBytes: 1000 });
    } catch (err) {
      threw = (err as Error).message;
    }
    includes(threw, "memoryLimitBytes must be an integer of at least 1 MiB");
  } finally {
    runner.dispose();
  }
});
