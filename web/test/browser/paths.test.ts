// Names that display as other names: Unicode format characters (bidi overrides
// and isolates, zero-width characters, BOM) are refused in new paths; entries
// stored before the rule can still be listed, read and removed, and the file
// explorer and tool cards show them escaped.

import type { VirtualFS } from "./sdk.js";
import { toolCard } from "../../src/ui/toolcard.js";
import { FilesView } from "../../src/ui/files.js";
import { ctx, freshVfs, sleep } from "./context.js";
import { eq, includes, ok, rejects, test } from "./harness.js";

const FORMAT = [0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff, 0x061c, 0x00ad, 0x2028, 0xe0001];

test("paths: format and bidi characters are refused with EINVAL", async () => {
  const vfs = await freshVfs();
  for (const cp of FORMAT) {
    const ch = String.fromCodePoint(cp);
    let code = "";
    try {
      ctx.sdk.normalizePath(`/a${ch}b`);
    } catch (err) {
      code = (err as { code?: string }).code ?? "";
    }
    eq(code, "EINVAL", `U+${cp.toString(16)}`);
  }
  const err = await rejects(vfs.writeFile("/invoice\u202Etxt.exe", "x"), { code: "EINVAL" });
  includes(err.message, "\\u202E");
  includes(err.message, "/invoice\\u202Etxt.exe");
  await rejects(vfs.mkdir("/dir\u200B"), { code: "EINVAL" });
  await vfs.writeFile("/ok.txt", "x");
  await rejects(vfs.rename("/ok.txt", "/\u2066ok.txt"), { code: "EINVAL" });
  const r = await new ctx.sdk.ToolRegistry().execute("write", { path: "/a\uFEFF.md", content: "x" }, { vfs });
  ok(!r.ok && r.error.includes("EINVAL"), "the write tool reports EINVAL");
  eq(ctx.sdk.normalizePath("/ünïcødé/日本語 ok.md"), "/ünïcødé/日本語 ok.md", "other Unicode stays allowed");
});

/** Stores an entry the way an older SDK could have: straight into IndexedDB. */
async function storeLegacy(vfs: VirtualFS, path: string, content: string): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(vfs.databaseName);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const now = Date.now();
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction(["nodes", "contents"], "readwrite");
    tx.objectStore("nodes").put({ path, parent: "/", type: "file", size: content.length, ctime: now, mtime: now, version: 1 });
    tx.objectStore("contents").put(content, path);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

test("paths: stored names with format characters are listed, read, removed and shown escaped", async () => {
  const vfs = await freshVfs();
  const bad = "/invoice\u202Etxt.exe";
  await storeLegacy(vfs, bad, "pay me");
  eq(await vfs.readFile(bad), "pay me", "an existing entry can be read");
  eq((await vfs.readdir("/")).map((e) => e.name), ["invoice\u202Etxt.exe"]);
  eq(ctx.sdk.showInvisible(bad), "/invoice\\u202Etxt.exe");
  eq(ctx.sdk.showInvisible("a\u200Bb\tc\nd"), "a\\u200Bb\tc\nd", "tabs and newlines stay");
  eq(ctx.sdk.showInvisible("x\u{E0001}"), "x\\u{E0001}");

  const view = new FilesView(vfs);
  document.body.append(view.root);
  try {
    view.setVisible(true);
    await view.refresh();
    const item = view.root.querySelector<HTMLElement>(`li[data-path="${bad}"]`);
    ok(item, "the entry is listed");
    eq(item?.textContent, "invoice\\u202Etxt.exe", "the explorer shows the override escaped");
    ok(!item?.textContent?.includes("\u202E"), "no raw override in the explorer");
    await view.view(bad);
    eq(view.root.querySelector(".path")?.textContent, "/invoice\\u202Etxt.exe");
  } finally {
    view.dispose();
    view.root.remove();
  }

  const card = toolCard({ id: "c1", name: "read", arguments: { path: bad } } as never, undefined, null);
  eq(card.querySelector(".summary")?.textContent, "/invoice\\u202Etxt.exe", "the tool card summary is escaped");
  includes(card.querySelector("pre")?.textContent ?? "", "\\u202E");
  ok(!card.textContent?.includes("\u202E"), "no raw override in the card");

  await vfs.remove(bad);
  eq(await vfs.exists(bad), false, "an existing entry can be removed");
  await sleep(0);
});

test("paths: invisible fillers are shown escaped, a long run once with its count; emoji keep their variation selector in text", async () => {
  const { showInvisible, showPath } = await import("../../src/vfs/path.js");
  eq(showInvisible("todo.md\u3164 \u115F\u1160\uFFA0\u2800"), "todo.md\\u3164 \\u115F\\u1160\\uFFA0\\u2800");
  eq(showInvisible(`a${"\u200B".repeat(50)}b`), "a\\u200B×50b", "a run is written once with its count");
  eq(showInvisible("I \u2764\uFE0F it, 10\u00A0km"), "I \u2764\uFE0F it, 10\u00A0km", "emoji and no-break spaces in text stay");
  eq(showPath(`/a\uFE0F/todo.md / x\u00A0y/${"\u00A0".repeat(3874)}.exe`), "/a\\uFE0F/todo.md\\u0020/\\u0020x\\u00A0y/\\u00A0×3874.exe", "a path escapes them all, and spaces at a name's ends");
});
