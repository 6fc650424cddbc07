// Browser benchmark of the file tools (run by test/bench-tools.mjs), in three page
// loads on one namespace, so that "first" means what a person sees after opening
// the page: `setup` writes 1,000 files of ~10 KiB (10 MiB) to the VFS; `tools`
// (a fresh page) runs grep (literal, regex, ignore-case; first run and repeated),
// find, ls of 1,000 entries and a 1 MiB write and read through the tools;
// `breakdown` (another fresh page) repeats the first grep step by step, to show
// where its time goes. Timed in the page, on the SDK's internals
// (test/browser/sdk.ts). Prints figures; asserts nothing about them.

type Sdk = typeof import("../browser/sdk.js");
type Vfs = import("../browser/sdk.js").VirtualFS;

declare const __RTC_BENCH_SCALE__: number;
/** 1,000 files (100 in a smoke run). */
const FILES = Math.round(1000 * __RTC_BENCH_SCALE__);
const REPEAT = 3;
const DIR = "/bench";

async function main(): Promise<string> {
  const params = new URLSearchParams(location.search);
  const sdk = (await import(/* runtime URL */ `${params.get("sdkOrigin")}/sdk/rtc-agent-internal.js`)) as Sdk;
  const deviceId = params.get("device") ?? `bench-${Date.now()}`;
  const phase = params.get("phase") ?? "setup";
  const tOpen = performance.now();
  const vfs = await sdk.VirtualFS.open({ userId: "bench", deviceId });
  const openMs = performance.now() - tOpen;
  try {
    if (phase === "setup") return await setup(vfs);
    const search = new sdk.SearchClient();
    try {
      if (phase === "breakdown") return await breakdown(sdk, vfs, search, openMs);
      if (phase === "cleanup") {
        vfs.close();
        await new Promise((r) => {
          const req = indexedDB.deleteDatabase(vfs.databaseName);
          req.onsuccess = req.onerror = req.onblocked = r;
        });
        return "deleted";
      }
      return await tools(sdk, vfs, search);
    } finally {
      search.dispose();
    }
  } finally {
    vfs.close();
  }
}

async function setup(vfs: Vfs): Promise<string> {
  // Lines of words; one file in 100 has the marker the literal grep finds.
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"];
  const t0 = performance.now();
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    for (let l = 0; l < 380; l++) lines.push(`${words[(i + l) % 10]} ${l} ${words[(i * l) % 10]} value=${(i * 7919 + l) % 100000}`);
    if (i % 100 === 0) lines[200] = "marker NEEDLE_42 here";
    const content = lines.join("\n") + "\n";
    await vfs.writeFile(`${DIR}/d${i % 10}/file-${String(i).padStart(4, "0")}.txt`, content);
  }
  const setupMs = performance.now() - t0;
  const usage = await vfs.usage();
  for (let i = 0; i < FILES; i++) await vfs.writeFile(`/flat/f${String(i).padStart(4, "0")}.txt`, "x");
  return `setup: ${FILES} files, ${(usage.totalBytes / 1048576).toFixed(1)} MiB written in ${Math.round(setupMs)} ms`;
}

async function tools(sdk: Sdk, vfs: Vfs, search: InstanceType<Sdk["SearchClient"]>): Promise<string> {
  const ctx = { vfs, search } as Parameters<InstanceType<Sdk["ToolRegistry"]>["execute"]>[2];
  const reg = new sdk.ToolRegistry();
  const rows: { op: string; ms: number[]; note: string }[] = [];
  const time = async (op: string, fn: () => Promise<string>) => {
    const ms: number[] = [];
    let note = "";
    for (let r = 0; r < REPEAT; r++) {
      const t = performance.now();
      note = await fn();
      ms.push(performance.now() - t);
    }
    rows.push({ op, ms, note });
  };
  const tool = async (name: string, args: object) => {
    const r = await reg.execute(name, args, ctx);
    if (!r.ok) throw new Error(`${name} failed: ${r.error}`);
    return `${r.output.split("\n").length} lines`;
  };
  await time("grep literal NEEDLE_42", () => tool("grep", { pattern: "NEEDLE_42", path: DIR }));
  await time("grep regex value=9\\d{4}$", () => tool("grep", { pattern: "value=9\\d{4}$", path: DIR }));
  await time("grep ignore-case needle_42", () => tool("grep", { pattern: "needle_42", path: DIR, ignore_case: true }));
  await time("find *-0[0-4]?7.txt", () => tool("find", { pattern: "*-0[0-4]?7.txt", path: DIR }));
  await time(`ls ${FILES.toLocaleString("en")} entries`, () => tool("ls", { path: "/flat" }));
  const mib = "0123456789abcdef".repeat(65536);
  await time("write 1 MiB", async () => `${(await vfs.writeFile("/big.txt", mib)).bytes} bytes`);
  await time("read 1 MiB", async () => `${(await vfs.readFile("/big.txt")).length} chars`);
  await vfs.remove("/big.txt");
  return [
    `tools, in a freshly loaded page (the first grep is the first after the page load):`,
    `${"operation".padEnd(30)} ${"1st ms".padStart(8)} ${"2nd ms".padStart(8)} ${"3rd ms".padStart(8)}  result`,
    ...rows.map((r) => `${r.op.padEnd(30)} ${r.ms.map((m) => m.toFixed(0).padStart(8)).join(" ")}  ${r.note}`),
  ].join("\n");
}

/** The first grep after a page load, step by step as the grep tool takes them. */
async function breakdown(sdk: Sdk, vfs: Vfs, search: InstanceType<Sdk["SearchClient"]>, openMs: number): Promise<string> {
  const steps: [string, number][] = [];
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const v = await fn();
    steps.push([name, performance.now() - t]);
    return v;
  };
  const pattern = "NEEDLE_42";
  const t0 = performance.now();
  const literals = await step("literals of the pattern", async () => sdk.requiredLiterals(pattern));
  const walked = await step("walkFiles (nodes and trigram filters)", () => vfs.walkFiles(DIR, literals && sdk.gramQuery(literals)));
  const files = await step(`readFiles (${walked.files.length} of ${walked.total} files from IndexedDB)`, () => vfs.readFiles(walked.files));
  const req = {
    pattern,
    ignoreCase: false,
    files: files.map((f) => ({ path: f.path, key: `${f.version}:${f.mtime}`, content: f.content })),
    maxMatches: sdk.GREP_MAX_MATCHES,
    maxLineChars: sdk.GREP_MAX_LINE_CHARS,
  };
  const first = await step("search (in the page; this starts the worker)", () => search.grep(req));
  const total = performance.now() - t0;
  await step("(the worker then starts, after the grep)", () => search.warm());
  const again = await step("repeat: search in the worker (contents sent)", () => search.grep(req));
  if (again.lines.length !== first.lines.length) throw new Error("breakdown: repeated search differs");
  const all = await vfs.readFiles(await vfs.walk(DIR));
  const allReq = { ...req, files: all.filter((f) => f.content !== undefined).map((f) => ({ path: f.path, key: `${f.version}:${f.mtime}`, content: f.content })) };
  await step(`without filters: send all ${all.length} files + search in the worker`, () => search.grep(allReq));
  return [
    `first grep /${pattern}/ after a page load, step by step (${first.lines.length} matches; opening the VFS took ${openMs.toFixed(0)} ms before):`,
    ...steps.map(([name, ms]) => `  ${name.padEnd(46)} ${ms.toFixed(0).padStart(6)} ms`),
    `  ${"total of the first grep".padEnd(46)} ${total.toFixed(0).padStart(6)} ms`,
  ].join("\n");
}

const done = (window as unknown as { __benchDone: (s: string) => Promise<void> }).__benchDone;
main().then(done, (err) => done(`bench failed: ${String(err)}`));
