// grep and find on hostile input: RE2 keeps matching linear, the work runs in a
// worker of the sandbox frame, and a request past its deadline is stopped and its
// worker replaced. Main-thread stalls are printed, not asserted (timing depends on
// the machine).

import type { SearchClient, ToolResult, VirtualFS } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, includes, note, test } from "./harness.js";

const clients: SearchClient[] = [];

function client(timeoutMs = 5000): SearchClient {
  const c = new ctx.sdk.SearchClient({ timeoutMs });
  clients.push(c);
  return c;
}

/** A test whose search clients (and their frames) are gone when it ends. */
function searchTest(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    try {
      await fn();
    } finally {
      for (const c of clients.splice(0)) c.dispose();
    }
  });
}

async function call(vfs: VirtualFS, search: SearchClient | undefined, name: string, args: unknown): Promise<ToolResult> {
  return new ctx.sdk.ToolRegistry().execute(name, args, { vfs, search });
}

/**
 * Longest gap between 5 ms heartbeats on this thread while `fn` runs, plus the
 * longest "longtask" Chromium reports: how long the page could not respond.
 */
async function mainThreadStall<T>(fn: () => Promise<T>): Promise<{ value: T; maxGapMs: number; longestTaskMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 5);
  let longest = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longest = Math.max(longest, e.duration);
  });
  obs.observe({ type: "longtask" });
  try {
    const value = await fn();
    await new Promise((r) => setTimeout(r, 20));
    return { value, maxGapMs: Math.round(maxGap), longestTaskMs: Math.round(longest) };
  } finally {
    clearInterval(beat);
    obs.disconnect();
  }
}

const frames = () => document.querySelectorAll("iframe[sandbox]").length;

searchTest("search: grep (a+)+$ over a 40 KB line ends without freezing the page", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/evil.txt", "a".repeat(40_000) + "b\n" + "a".repeat(100) + "\n");
  const search = client();
  await search.warm();
  const { value, maxGapMs, longestTaskMs } = await mainThreadStall(() => call(vfs, search, "grep", { pattern: "(a+)+$" }));
  eq(value.ok, true, value.ok ? "" : value.error);
  eq(value.ok && value.output, `/evil.txt:2: ${"a".repeat(100)}`);
  note(`grep (a+)+$ over 40 KB: main thread max heartbeat gap ${maxGapMs} ms, longest task ${longestTaskMs} ms`);
  const inPage = await mainThreadStall(() => call(vfs, undefined, "grep", { pattern: "(a+)+$" }));
  eq(inPage.value.ok, true, "the in-page fallback is linear too");
  note(`same in the page (fallback without a frame): max gap ${inPage.maxGapMs} ms`);
});

searchTest("search: find *a*a*…*b over a 250-character name ends without freezing the page", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile(`/${"a".repeat(250)}`, "x");
  await vfs.writeFile("/ab", "x");
  const search = client();
  await search.warm();
  const pattern = "*a".repeat(30) + "*b";
  const { value, maxGapMs, longestTaskMs } = await mainThreadStall(() => call(vfs, search, "find", { pattern }));
  eq(value.ok, true, value.ok ? "" : value.error);
  eq(value.ok && value.output, `No files or directories match ${JSON.stringify(pattern)} under /`);
  eq((await call(vfs, search, "find", { pattern: "*a*b" })).ok && "found", "found");
  note(`find ${pattern.length}-char *a*…*b over a 250-char name: max heartbeat gap ${maxGapMs} ms, longest task ${longestTaskMs} ms`);
});

searchTest("search: a search past its deadline ends with a timeout error and a fresh worker serves the next", async () => {
  const vfs = await freshVfs();
  // 16 MiB where the pattern matches nowhere: a scan at 3 GB/s would still take
  // longer than the 5 ms deadline (the deadline starts once the contents are sent).
  const line = "abcdefghij".repeat(100) + "\n";
  for (let i = 0; i < 16; i++) await vfs.writeFile(`/big/${i}.txt`, line.repeat(1000));
  const search = client(5);
  await search.warm();
  const framesBefore = frames();
  const { value, maxGapMs, longestTaskMs } = await mainThreadStall(() => call(vfs, search, "grep", { pattern: "[a-j]{1,100}[a-j]{1,100}k" }));
  eq(value.ok ? value.output : value.error, "grep timed out after 5 ms and was stopped; use a simpler pattern or a narrower path");
  eq(search.restarts, 1, "the worker was replaced");
  eq(frames(), framesBefore - 1, "the timed-out worker's frame is gone");
  const files = [{ path: "/small.txt", content: "needle\n" }];
  const next = await search.grep({ pattern: "needle", ignoreCase: false, files, maxMatches: 10, maxLineChars: 100 }, 5000);
  eq(next.lines, ["/small.txt:1: needle"], "the next search works");
  note(`timed-out grep: main thread max heartbeat gap ${maxGapMs} ms, longest task ${longestTaskMs} ms`);
});

searchTest("search: RE2 syntax errors and glob errors are argument errors", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/a.txt", "x\n");
  const search = client();
  const back = await call(vfs, search, "grep", { pattern: "(a)\\1" });
  includes(!back.ok ? back.error : "", 'Invalid regular expression "(a)\\\\1"');
  const look = await call(vfs, undefined, "grep", { pattern: "a(?=b)" });
  includes(!look.ok ? look.error : "", "Invalid regular expression");
  const glob = await call(vfs, search, "find", { pattern: "[z-a]" });
  includes(!glob.ok ? glob.error : "", "range z-a is reversed");
});

searchTest("search: grep multi-line rules hold on the whole-file pass", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/crlf.txt", "first\r\nend here\r\nlast");
  await vfs.writeFile("/lf.txt", "a\nb\nc\n");
  const search = client();
  const grep = async (pattern: string, path = "/") => {
    const r = await call(vfs, search, "grep", { pattern, path });
    return r.ok ? r.output : r.error;
  };
  eq(await grep("here$"), "/crlf.txt:2: end here", "$ before a CRLF");
  eq(await grep("^end"), "/crlf.txt:2: end here", "^ after a line break");
  eq(await grep("a\\s+b"), "No matches for /a\\s+b/ in 2 files under /", "a match across lines is not a line match");
  eq(await grep("^b$", "/lf.txt"), "/lf.txt:2: b");
  eq(await grep("(?i)FIRST"), "/crlf.txt:1: first", "inline flags");
});

searchTest("search: glob classes never match '/' and Unicode names match", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/d/x", "1");
  await vfs.writeFile("/d-x", "1");
  await vfs.writeFile("/notes/été.md", "1");
  const search = client();
  const find = async (pattern: string) => {
    const r = await call(vfs, search, "find", { pattern });
    return r.ok ? r.output : r.error;
  };
  eq(await find("/d[!a]x"), "/d-x", "a negated class does not match /");
  eq(await find("/d[+-0]x"), "/d-x", "a range spanning / leaves it out");
  eq(await find("/d[/]x"), 'No files or directories match "/d[/]x" under /');
  eq(await find("?t?.md"), "/notes/été.md");
  eq(await find("**/*.{md,txt}"), "/notes/été.md");
});

searchTest("search: repeated greps see every change (VFS cache and worker copy follow versions)", async () => {
  const vfs = await freshVfs();
  const search = client();
  await vfs.writeFile("/c/a.txt", "old line\n");
  await vfs.writeFile("/c/b.txt", "other\n");
  const grep = async (pattern: string) => {
    const r = await call(vfs, search, "grep", { pattern, path: "/c" });
    return r.ok ? r.output : r.error;
  };
  eq(await grep("line"), "/c/a.txt:1: old line");
  await vfs.writeFile("/c/a.txt", "new line\n");
  eq(await grep("line"), "/c/a.txt:1: new line", "an overwrite");
  await vfs.remove("/c/a.txt");
  await vfs.writeFile("/c/a.txt", "fresh line\n");
  eq(await grep("line"), "/c/a.txt:1: fresh line", "removed and created again");
  await vfs.rename("/c/b.txt", "/c/d.txt");
  eq(await grep("other"), "/c/d.txt:1: other", "a rename");
  const stale = (await vfs.walk("/c")).filter((e) => e.path === "/c/a.txt");
  await vfs.writeFile("/c/a.txt", "newest\n");
  eq((await vfs.readFiles(stale)).map((f) => f.content), ["newest\n"], "stale stats read the current content");
});
