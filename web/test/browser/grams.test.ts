// The trigram filters grep reads first (vfs/grams.ts, tools/search/literals.ts):
// a database of schema 1 opens with every file and gets its filters, filters are
// written, moved and removed with their files in the same transaction, and grep
// prints exactly what a search of every file prints.

import type { ToolResult, VirtualFS } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, ok, rejects, test } from "./harness.js";

async function grep(vfs: VirtualFS, pattern: string, path = "/", ignoreCase = false): Promise<string> {
  const r: ToolResult = await new ctx.sdk.ToolRegistry().execute("grep", { pattern, path, ignore_case: ignoreCase }, { vfs });
  return r.ok ? r.output : `error: ${r.error}`;
}

/** What grep printed before filters: every file below `path` searched. */
async function grepAll(vfs: VirtualFS, pattern: string, path = "/", ignoreCase = false): Promise<string> {
  const all = (await vfs.walk(path)).filter((e) => e.type === "file");
  const files = await vfs.readFiles(all);
  const { lines, capped } = ctx.sdk.grepFiles({ pattern, ignoreCase, files, maxMatches: ctx.sdk.GREP_MAX_MATCHES, maxLineChars: ctx.sdk.GREP_MAX_LINE_CHARS });
  const n = all.length;
  if (lines.length === 0) return `No matches for /${pattern}/ in ${n} file${n === 1 ? "" : "s"} under ${path}`;
  if (capped) lines.push("", `[Stopped after ${ctx.sdk.GREP_MAX_MATCHES} matches; narrow the pattern or the path to see the rest.]`);
  return lines.join("\n");
}

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** Opens a database by name at whatever version it has, for looking inside. */
async function rawOpen(name: string, version?: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  const r = indexedDB.open(name, version);
  if (upgrade) r.onupgradeneeded = () => upgrade(r.result);
  return req(r);
}

async function gramPaths(name: string): Promise<string[]> {
  const db = await rawOpen(name);
  try {
    return (await req(db.transaction("grams").objectStore("grams").getAllKeys())) as string[];
  } finally {
    db.close();
  }
}

test("grams: a schema 1 database opens with all its files, which get filters", async () => {
  const userId = "migrate";
  const deviceId = `v1-${Date.now()}`;
  const name = ctx.sdk.VirtualFS.databaseNameFor(userId, deviceId);
  // The layout of schema 1, written the way version 1 of the SDK wrote it.
  const files: Record<string, string> = {
    "/docs/readme.md": "# Title\nSome NEEDLE text\n",
    "/docs/deep/notes.txt": "first\r\nsecond line with needle\r\n",
    "/src/main.ts": "export const x = 1;\n",
    "/é/ünïcode.txt": "\u212Aelvin and \u017Fmall\n",
    "/empty.txt": "",
  };
  const db = await rawOpen(name, 1, (d) => {
    const nodes = d.createObjectStore("nodes", { keyPath: "path" });
    nodes.createIndex("parent", "parent", { unique: false });
    d.createObjectStore("contents");
    d.createObjectStore("meta");
  });
  const tx = db.transaction(["nodes", "contents", "meta"], "readwrite");
  const now = 1_700_000_000_000;
  const dirs = ["/", "/docs", "/docs/deep", "/src", "/é"];
  for (const d of dirs) {
    tx.objectStore("nodes").put({ path: d, parent: d === "/" ? "" : d.slice(0, d.lastIndexOf("/")) || "/", type: "dir", size: 0, ctime: now, mtime: now, version: 1 });
  }
  let usage = 0;
  for (const [p, c] of Object.entries(files)) {
    const size = ctx.sdk.utf8Length(c);
    usage += size;
    tx.objectStore("nodes").put({ path: p, parent: p.slice(0, p.lastIndexOf("/")) || "/", type: "file", size, ctime: now, mtime: now + 1, version: 3 });
    tx.objectStore("contents").put(c, p);
  }
  tx.objectStore("meta").put(usage, "usage");
  await new Promise((r) => (tx.oncomplete = r));
  db.close();

  const vfs = await ctx.sdk.VirtualFS.open({ userId, deviceId });
  try {
    for (const [p, c] of Object.entries(files)) {
      eq(await vfs.readFile(p), c, p);
      const st = await vfs.stat(p);
      eq([st.version, st.mtime], [3, now + 1], `${p} keeps its version and mtime`);
    }
    eq((await vfs.usage()).totalBytes, usage, "usage kept");
    eq((await vfs.walk("/")).map((e) => e.path), [...dirs.slice(1), ...Object.keys(files)].sort(), "every entry is there");
    eq((await gramPaths(name)).sort(), Object.keys(files).sort(), "every file got a filter");
    const { files: hits, total } = await vfs.walkFiles("/", ctx.sdk.gramQuery([["needle"]]));
    eq([hits.map((f) => f.path), total], [["/docs/deep/notes.txt", "/docs/readme.md"], 5], "filters of the old contents (letters folded)");
    eq(await grep(vfs, "needle", "/", true), "/docs/deep/notes.txt:2: second line with needle\n/docs/readme.md:2: Some NEEDLE text");
    eq(await grep(vfs, "kelvin", "/", true), "/é/ünïcode.txt:1: \u212Aelvin and \u017Fmall", "RE2 folds K (Kelvin) to k");
    eq(await grep(vfs, "(?i)smal"), "/é/ünïcode.txt:1: \u212Aelvin and \u017Fmall", "and ſ (long s) to s");
    await vfs.writeFile("/docs/readme.md", "rewritten\n");
    eq(await grep(vfs, "NEEDLE"), "No matches for /NEEDLE/ in 5 files under /", "writes work after the upgrade");
    const check = await rawOpen(name);
    eq(check.version, 2, "the database is at schema 2");
    check.close();
  } finally {
    vfs.close();
    await ctx.sdk.VirtualFS.deleteDatabase(userId, deviceId);
  }
});

test("grams: a filter is written, moved and removed with its file, or not at all", async () => {
  const vfs = await freshVfs({ maxFileBytes: 1000, maxTotalBytes: 500 });
  await vfs.writeFile("/a/one.txt", "alpha BRAVO\n");
  await vfs.writeFile("/a/two.txt", "charlie\n");
  eq(await grep(vfs, "BRAVO"), "/a/one.txt:1: alpha BRAVO");
  // Over the total limit: the write's transaction aborts and neither content nor filter changes.
  await rejects(vfs.writeFile("/a/one.txt", "delta ".repeat(100)), { code: "ENOSPC" });
  eq(await grep(vfs, "BRAVO"), "/a/one.txt:1: alpha BRAVO", "the old filter stays with the old content");
  eq(await grep(vfs, "delta"), "No matches for /delta/ in 2 files under /");
  await vfs.writeFile("/a/one.txt", "echo\n");
  eq(await grep(vfs, "BRAVO"), "No matches for /BRAVO/ in 2 files under /", "an overwrite replaces the filter");
  eq(await grep(vfs, "echo"), "/a/one.txt:1: echo");
  await vfs.rename("/a", "/b");
  eq(await grep(vfs, "charlie"), "/b/two.txt:1: charlie", "a moved tree keeps its filters");
  eq((await gramPaths(vfs.databaseName)).sort(), ["/b/one.txt", "/b/two.txt"]);
  await vfs.remove("/b/one.txt");
  eq(await gramPaths(vfs.databaseName), ["/b/two.txt"], "removing a file removes its filter");
  await vfs.remove("/b");
  eq(await gramPaths(vfs.databaseName), [], "and removing a tree, theirs");
});

test("grams: required literals are read conservatively", () => {
  const lit = ctx.sdk.requiredLiterals;
  eq(lit("NEEDLE_42"), [["NEEDLE_42"]]);
  eq(lit("TODO|FIXME"), [["TODO"], ["FIXME"]]);
  eq(lit("TODO|x"), null, "an alternative without a literal reads every file");
  eq(lit("value=9\\d{4}$"), [["value=9"]]);
  eq(lit("colou?r"), [["colo"]], "an optional letter is taken back and ends the run");
  eq(lit("colours?x"), [["colour"]]);
  eq(lit("ab+cd"), [["bcd"]], "a repeated character starts the next run");
  eq(lit("abc{0,2}def"), [["def"]]);
  eq(lit("abc{2}def"), [["abc", "cdef"]]);
  eq(lit("abc{2"), [["abc"]], "a { that is not a repetition claims nothing itself");
  eq(lit("foo(bar|baz)qux"), [["foo", "qux"]], "groups are skipped");
  eq(lit("(?i)error"), [["error"]]);
  eq(lit("a\\.b\\.c"), [["a.b.c"]], "escaped punctuation is literal");
  eq(lit("\\x41BC"), null, "an escape by number is not read");
  eq(lit("\\x{41}bcd"), [["bcd"]]);
  eq(lit("\\Qa.b|c\\Edef"), [["def"]], "quoted text is skipped whole");
  eq(lit("[abc]def[)|(]ghi"), [["def", "ghi"]], "classes are skipped whole");
  eq(lit("été"), null, "only ASCII counts");
  eq(lit("a.*?bcd"), [["bcd"]]);
});

test("grams: grep prints exactly what a search of every file prints", async () => {
  const vfs = await freshVfs();
  const contents = [
    "alpha beta\nGamma DELTA\n",
    "Kelvin \u212Aelvin kelvin\nlong \u017Fs and ss\n",
    "crlf line\r\nsecond\r\n",
    "TODO: fix\nFIXME later\nnothing\n",
    "colour color colouur\n",
    "a.b.c and axbxc\nabbbcd abcd\n",
    "value=91234\nvalue=81234\nvalue=9123\n",
    "ab",
    "",
    "émoji 😀 text ü\nmixed CASE Text\n",
  ];
  for (let i = 0; i < 30; i++) await vfs.writeFile(`/t/d${i % 3}/f${i}.txt`, contents[i % contents.length]! + (i % 7 === 0 ? "needle here\n" : ""));
  const patterns = [
    "needle", "NEEDLE", "kelvin", "(?i)kelvin", "(?i)LONG \u017FS", "long ss", "(?i)ss and", "crlf line$", "^second$",
    "TODO|FIXME", "TODO|nothing", "colou?r", "colou+r", "a\\.b\\.c", "a.b.c", "ab+cd", "ab{2,}cd", "value=9\\d{4}$",
    "(?i)mixed case", "mixed CASE", "😀 text", "\\Qa.b\\E", "[Gg]amma DELTA", "foo(bar|baz)qux", "ab", "xyz nowhere",
  ];
  for (const p of patterns) {
    for (const ic of [false, true]) {
      eq(await grep(vfs, p, "/t", ic), await grepAll(vfs, p, "/t", ic), `${p} ignore_case=${ic}`);
    }
  }
  // Random lines and patterns cut from them, folded or not.
  const alphabet = ["a", "b", "A", "B", "k", "K", "\u212A", "s", "S", "\u017F", ".", "-", " ", "é", "1"];
  let seed = 42;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  const word = (n: number) => Array.from({ length: n }, () => alphabet[rnd(alphabet.length)]).join("");
  for (let i = 0; i < 20; i++) await vfs.writeFile(`/r/${i}.txt`, Array.from({ length: 5 }, () => word(30)).join("\n"));
  for (let i = 0; i < 60; i++) {
    const raw = word(3 + rnd(4)).replace(/[.]/g, "\\.");
    const p = [raw, `${raw}|${word(3)}`, `(?i)${raw}`, `${raw}+x?`][i % 4]!;
    eq(await grep(vfs, p, "/r", i % 2 === 0), await grepAll(vfs, p, "/r", i % 2 === 0), `${p} ignore_case=${i % 2 === 0}`);
  }
});

test("grams: a large tree reads only the files that may match", async () => {
  const vfs = await freshVfs();
  const n = 3000;
  for (let i = 0; i < n; i++) {
    const body = `file ${i}\n${"lorem ipsum dolor sit amet ".repeat(10)}\n${i % 500 === 7 ? "the RARE_TOKEN is here\n" : ""}`;
    await vfs.writeFile(`/big/p${i % 10}/q${i % 7}/f${String(i).padStart(4, "0")}.txt`, body);
  }
  const t = performance.now();
  const { files, total } = await vfs.walkFiles("/big", ctx.sdk.gramQuery(ctx.sdk.requiredLiterals("RARE_TOKEN")!));
  const ms = performance.now() - t;
  eq(total, n);
  ok(files.length >= 6 && files.length < n / 10, `only a few files pass the filters: ${files.length}`);
  const out = await grep(vfs, "RARE_TOKEN", "/big");
  eq(out.split("\n").length, 6);
  eq(out, await grepAll(vfs, "RARE_TOKEN", "/big"));
  eq(await grep(vfs, "no_such_token", "/big"), `No matches for /no_such_token/ in ${n} files under /big`);
  console.info(`[note] ${n} files: walkFiles kept ${files.length} in ${ms.toFixed(0)} ms`);
});

test("grams: grep read in chunks stops at the cap and prints what one search prints", async () => {
  const vfs = await freshVfs({ maxTotalBytes: 10 * 1024 * 1024 });
  const filler = "lorem ipsum dolor sit amet\n".repeat(4000); // ~105 KB: several files per chunk
  for (let i = 0; i < 12; i++) {
    const extra = [
      i % 2 === 0 ? "hit here\n".repeat(30) : "",
      i === 1 || i === 10 ? "twohundred\n".repeat(100) : "",
      i === 1 ? "twohundredone\n" : "",
      i === 11 ? "only_in_last\n" : "",
    ].join("");
    await vfs.writeFile(`/c/f${String(i).padStart(2, "0")}.txt`, filler + extra);
  }
  for (const p of ["hit", "twohundred$", "twohundred", "only_in_last", "lorem ipsum", "nothing here", "[0-9]"]) {
    const out = await grep(vfs, p, "/c");
    eq(out, await grepAll(vfs, p, "/c"), p);
  }
  eq((await grep(vfs, "twohundred$", "/c")).split("\n").length, 200, "exactly 200 matches are not capped");
  ok((await grep(vfs, "twohundred", "/c")).endsWith("narrow the pattern or the path to see the rest.]"), "201 are");
});
