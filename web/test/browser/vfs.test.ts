import type { VfsChangeEvent } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, includes, ok, rejects, test } from "./harness.js";

/** Runs a synchronous function and returns the error code it throws. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

test("vfs: path normalisation", () => {
  const n = ctx.sdk.normalizePath;
  eq(n("/a//b/./c/"), "/a/b/c");
  eq(n("a/b.txt"), "/a/b.txt", "relative paths are taken from the root");
  eq(n("/"), "/");
  eq(n("//"), "/");
  eq(n("./x"), "/x");
  eq(n("/ spaced name/ü.md"), "/ spaced name/ü.md");
});

test("vfs: traversal, control characters and bad input are refused with EINVAL", () => {
  const n = ctx.sdk.normalizePath;
  for (const bad of ["/a/../b", "..", "/..", "a/..", "/a/b/.."]) {
    eq(codeOf(() => n(bad)), "EINVAL", bad);
  }
  try {
    n("/docs/../etc");
  } catch (err) {
    includes((err as Error).message, "'..' is not allowed");
  }
  eq(codeOf(() => n("/a\nb")), "EINVAL", "newline");
  eq(codeOf(() => n("/a\u0000")), "EINVAL", "NUL");
  eq(codeOf(() => n("/a\u007f")), "EINVAL", "DEL");
  eq(codeOf(() => n("")), "EINVAL", "empty");
  eq(codeOf(() => n(42)), "EINVAL", "number");
  eq(codeOf(() => n("/" + "x".repeat(256))), "ENAMETOOLONG");
  eq(codeOf(() => n("/a/..b/c")), undefined, "'..b' is an ordinary name");
});

test("vfs: the API rejects traversal too", async () => {
  const vfs = await freshVfs();
  await rejects(vfs.writeFile("/a/../b.txt", "x"), { code: "EINVAL" });
  await rejects(vfs.readFile("../etc/passwd"), { code: "EINVAL" });
  eq(await vfs.exists("/b.txt"), false);
});

test("vfs: write creates parent directories as real entries", async () => {
  const vfs = await freshVfs();
  const r = await vfs.writeFile("/docs/notes/today.md", "hello");
  eq(r, { path: "/docs/notes/today.md", bytes: 5, created: true });
  eq((await vfs.stat("/docs")).type, "dir");
  eq((await vfs.stat("/docs/notes")).type, "dir");
  const root = await vfs.readdir("/");
  eq(root.map((e) => [e.name, e.type]), [["docs", "dir"]]);
  eq(await vfs.readFile("docs/notes/today.md"), "hello");
  const again = await vfs.writeFile("/docs/notes/today.md", "hello again");
  eq(again.created, false);
  eq((await vfs.stat("/docs/notes/today.md")).version, 2);
});

test("vfs: mkdir, readdir sorting and type errors", async () => {
  const vfs = await freshVfs();
  eq((await vfs.mkdir("/a/b/c")).created, true);
  eq((await vfs.mkdir("/a/b")).created, false, "mkdir of an existing dir is a no-op");
  await vfs.writeFile("/a/z.txt", "z");
  await vfs.writeFile("/a/B.txt", "b");
  eq((await vfs.readdir("/a")).map((e) => e.name), ["B.txt", "b", "z.txt"]);
  await rejects(vfs.mkdir("/a/z.txt"), { code: "EEXIST" });
  await rejects(vfs.readdir("/a/z.txt"), { code: "ENOTDIR" });
  await rejects(vfs.readFile("/a/b"), { code: "EISDIR" });
  await rejects(vfs.writeFile("/a/b", "x"), { code: "EISDIR" });
  await rejects(vfs.writeFile("/", "x"), { code: "EISDIR" });
  await rejects(vfs.writeFile("/a/z.txt/inner.txt", "x"), { code: "ENOTDIR" });
  await rejects(vfs.readFile("/a/z.txt/inner.txt"), { code: "ENOTDIR" });
  await rejects(vfs.readFile("/nope.txt"), { code: "ENOENT", message: /no such file or directory: \/nope\.txt/ });
  await rejects(vfs.readdir("/nope"), { code: "ENOENT" });
  await rejects(vfs.writeFile("/x.txt", 5 as unknown as string), { code: "EINVAL" });
});

test("vfs: per-file limit counts UTF-8 bytes", async () => {
  const vfs = await freshVfs({ maxFileBytes: 100 });
  eq((await vfs.writeFile("/ok.txt", "é".repeat(50))).bytes, 100);
  const err = await rejects(vfs.writeFile("/big.txt", "é".repeat(51)), { code: "EFBIG" });
  includes(err.message, "the limit is 100 bytes per file");
  eq((await vfs.writeFile("/emoji.txt", "😀".repeat(25))).bytes, 100, "astral chars are 4 bytes");
  eq(await vfs.exists("/big.txt"), false);
  eq(ctx.sdk.utf8Length("aé€😀"), 1 + 2 + 3 + 4);
});

test("vfs: total limit, overwrite accounting and rollback", async () => {
  const vfs = await freshVfs({ maxFileBytes: 100, maxTotalBytes: 300 });
  for (const name of ["a", "b", "c"]) await vfs.writeFile(`/${name}.txt`, "x".repeat(100));
  eq((await vfs.usage()).totalBytes, 300);
  await vfs.writeFile("/a.txt", "y".repeat(100)); // same size: still fits
  const err = await rejects(vfs.writeFile("/deep/new/d.txt", "z"), { code: "ENOSPC" });
  includes(err.message, "the limit is 300 bytes");
  eq(await vfs.exists("/deep"), false, "a refused write leaves no parent directories behind");
  await vfs.writeFile("/a.txt", "short");
  eq((await vfs.usage()).totalBytes, 205);
  await vfs.remove("/b.txt");
  eq((await vfs.usage()).totalBytes, 105);
  await vfs.writeFile("/d.txt", "z".repeat(100));
  eq((await vfs.usage()).totalBytes, 205);
});

test("vfs: remove is recursive for directories and frees space", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/p/q/1.txt", "11");
  await vfs.writeFile("/p/q/r/2.txt", "222");
  await vfs.writeFile("/p.txt", "keep"); // shares the prefix "/p" but is not inside /p
  await vfs.writeFile("/p0/keep.txt", "keep"); // the key range upper bound "/p0" is exclusive
  const r = await vfs.remove("/p");
  eq(r.removed, 5, "p, q, 1.txt, r, 2.txt");
  eq(await vfs.exists("/p/q/r/2.txt"), false);
  eq(await vfs.readFile("/p.txt"), "keep");
  eq(await vfs.readFile("/p0/keep.txt"), "keep");
  eq((await vfs.usage()).totalBytes, 8);
  await rejects(vfs.remove("/"), { code: "EPERM" });
  await rejects(vfs.remove("/p"), { code: "ENOENT" });
});

test("vfs: rename moves files and whole trees", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/src/a.txt", "A");
  await vfs.writeFile("/src/sub/b.txt", "B");
  await vfs.rename("/src/a.txt", "/moved/a2.txt");
  eq(await vfs.readFile("/moved/a2.txt"), "A");
  eq(await vfs.exists("/src/a.txt"), false);
  await vfs.rename("/src", "/dst");
  eq(await vfs.readFile("/dst/sub/b.txt"), "B");
  eq((await vfs.readdir("/dst")).map((e) => e.name), ["sub"]);
  eq(await vfs.exists("/src"), false);
  await rejects(vfs.rename("/dst", "/moved"), { code: "EEXIST" });
  await rejects(vfs.rename("/dst", "/dst/inside"), { code: "EINVAL" });
  await rejects(vfs.rename("/missing", "/x"), { code: "ENOENT" });
  await rejects(vfs.rename("/", "/x"), { code: "EPERM" });
  eq((await vfs.usage()).totalBytes, 2, "moving does not change usage");
});

test("vfs: walk lists a subtree in path order", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/w/b.txt", "b");
  await vfs.writeFile("/w/a/x.txt", "x");
  await vfs.writeFile("/other.txt", "o");
  eq((await vfs.walk("/w")).map((e) => e.path), ["/w/a", "/w/a/x.txt", "/w/b.txt"]);
  eq((await vfs.walk("/w/b.txt")).map((e) => e.path), ["/w/b.txt"], "a file walks to itself");
  eq((await vfs.walk("/")).length, 5);
});

test("vfs: change events fire after commit, none for failed writes", async () => {
  const vfs = await freshVfs({ maxFileBytes: 10 });
  const events: VfsChangeEvent[] = [];
  let seenContent = "";
  const off = vfs.onChange((e) => {
    events.push(e);
    if (e.path === "/e/f.txt" && e.kind === "create") void vfs.readFile("/e/f.txt").then((c) => (seenContent = c));
  });
  await vfs.writeFile("/e/f.txt", "one");
  await vfs.writeFile("/e/f.txt", "two");
  await rejects(vfs.writeFile("/e/g.txt", "x".repeat(11)), { code: "EFBIG" });
  await vfs.rename("/e/f.txt", "/e/h.txt");
  await vfs.remove("/e");
  off();
  await vfs.mkdir("/after");
  eq(
    events.map((e) => `${e.kind} ${e.type} ${e.oldPath ? e.oldPath + "->" : ""}${e.path} ${e.local}`),
    [
      "create dir /e true",
      "create file /e/f.txt true",
      "update file /e/f.txt true",
      "rename file /e/f.txt->/e/h.txt true",
      "delete dir /e true",
    ],
  );
  await vfs.exists("/");
  eq(seenContent, "one", "a listener can read the committed content");
});

test("vfs: another instance of the namespace (another tab) hears changes as remote", async () => {
  const { VirtualFS } = ctx.sdk;
  const deviceId = `tabs-${Date.now()}`;
  const tabA = await VirtualFS.open({ userId: "tabs", deviceId });
  const tabB = await VirtualFS.open({ userId: "tabs", deviceId });
  const heard: VfsChangeEvent[] = [];
  tabB.onChange((e) => heard.push(e));
  await tabA.writeFile("/shared.txt", "from A");
  for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  eq(heard, [{ kind: "create", path: "/shared.txt", type: "file", local: false }]);
  eq(await tabB.readFile("/shared.txt"), "from A");
  tabA.close();
  tabB.close();
  await VirtualFS.deleteDatabase("tabs", deviceId);
});

test("vfs: namespaces are separate databases and data persists across reopen", async () => {
  const a = await freshVfs();
  const b = await freshVfs();
  await a.writeFile("/secret.txt", "a's");
  eq(await b.exists("/secret.txt"), false);
  ok(a.databaseName !== b.databaseName, "different database names");
  eq(ctx.sdk.VirtualFS.databaseNameFor("u/1", "d:2"), "rtc-agent-vfs/u%2F1/d%3A2");
  const { VirtualFS } = ctx.sdk;
  const userId = "persist-user";
  const deviceId = `persist-${Date.now()}`;
  const first = await VirtualFS.open({ userId, deviceId });
  await first.writeFile("/kept.txt", "still here");
  first.close();
  await rejects(first.readFile("/kept.txt"), { code: "EIO" });
  const second = await VirtualFS.open({ userId, deviceId });
  eq(await second.readFile("/kept.txt"), "still here");
  second.close();
  await VirtualFS.deleteDatabase(userId, deviceId);
});
