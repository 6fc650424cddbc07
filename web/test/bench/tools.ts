// Browser benchmark of the file tools (run by test/bench-tools.mjs): 1,000 files
// of ~10 KiB (10 MiB) in the VFS, then grep (literal, regex, ignore-case; first
// run and repeated), find, ls of 1,000 entries and a 1 MiB write and read, each
// timed in the page, on the SDK's internals (test/browser/sdk.ts). Prints
// figures; asserts nothing about them.

type Sdk = typeof import("../browser/sdk.js");

const FILES = 1000;
const REPEAT = 3;

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const sdk = (await import(/* runtime URL */ `${params.get("sdkOrigin")}/sdk/rtc-agent-internal.js`)) as Sdk;
  const vfs = await sdk.VirtualFS.open({ userId: "bench", deviceId: `bench-${Date.now()}` });
  const SearchClient = (sdk as Partial<Sdk>).SearchClient;
  const search = SearchClient ? new SearchClient() : undefined;
  const ctx = { vfs, search } as Parameters<InstanceType<Sdk["ToolRegistry"]>["execute"]>[2];
  const reg = new sdk.ToolRegistry();
  const rows: { op: string; ms: number[]; note: string }[] = [];

  // Lines of words; one file in 100 has the marker the literal grep finds.
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"];
  const dir = "/bench";
  const t0 = performance.now();
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    for (let l = 0; l < 380; l++) lines.push(`${words[(i + l) % 10]} ${l} ${words[(i * l) % 10]} value=${(i * 7919 + l) % 100000}`);
    if (i % 100 === 0) lines[200] = "marker NEEDLE_42 here";
    const content = lines.join("\n") + "\n";
    await vfs.writeFile(`${dir}/d${i % 10}/file-${String(i).padStart(4, "0")}.txt`, content);
  }
  const setupMs = performance.now() - t0;
  const usage = await vfs.usage();
  for (let i = 0; i < FILES; i++) await vfs.writeFile(`/flat/f${String(i).padStart(4, "0")}.txt`, "x");

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
  await time("grep literal NEEDLE_42", () => tool("grep", { pattern: "NEEDLE_42", path: dir }));
  await time("grep regex value=9\\d{4}$", () => tool("grep", { pattern: "value=9\\d{4}$", path: dir }));
  await time("grep ignore-case needle_42", () => tool("grep", { pattern: "needle_42", path: dir, ignore_case: true }));
  await time("find *-0[0-4]?7.txt", () => tool("find", { pattern: "*-0[0-4]?7.txt", path: dir }));
  await time("ls 1,000 entries", () => tool("ls", { path: "/flat" }));
  const mib = "0123456789abcdef".repeat(65536);
  await time("write 1 MiB", async () => `${(await vfs.writeFile("/big.txt", mib)).bytes} bytes`);
  await time("read 1 MiB", async () => `${(await vfs.readFile("/big.txt")).length} chars`);

  const out = [
    `setup: ${FILES} files, ${(usage.totalBytes / 1048576).toFixed(1)} MiB written in ${Math.round(setupMs)} ms; search worker: ${search ? "yes" : "no"}`,
    `${"operation".padEnd(30)} ${"1st ms".padStart(8)} ${"2nd ms".padStart(8)} ${"3rd ms".padStart(8)}  result`,
    ...rows.map((r) => `${r.op.padEnd(30)} ${r.ms.map((m) => m.toFixed(0).padStart(8)).join(" ")}  ${r.note}`),
  ];
  search?.dispose();
  vfs.close();
  indexedDB.deleteDatabase(vfs.databaseName);
  await (window as unknown as { __benchDone: (s: string) => Promise<void> }).__benchDone(out.join("\n"));
}

main().catch((err) => (window as unknown as { __benchDone: (s: string) => Promise<void> }).__benchDone(`bench failed: ${String(err)}`));
