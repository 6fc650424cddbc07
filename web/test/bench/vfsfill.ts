// Fills a folder of the virtual file system with many empty files in one
// IndexedDB transaction (writeFile would take one transaction each: minutes for
// 20,000). Records are written as VirtualFS writes them; for tests and the
// benchmark only.

import { type NodeRecord, openDatabase, STORE_CONTENTS, STORE_NODES } from "../../src/vfs/idb.js";
import type { VirtualFS } from "../../src/vfs/vfs.js";

/** Writes `dir` and `n` empty files in it, named `name(i)`; returns the paths in path order. */
export async function fillFolder(vfs: VirtualFS, dir: string, n: number, name = (i: number) => `file-${String(i).padStart(6, "0")}.txt`): Promise<string[]> {
  await vfs.mkdir(dir);
  const db = await openDatabase(indexedDB, vfs.databaseName);
  const paths: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction([STORE_NODES, STORE_CONTENTS], "readwrite");
      const nodes = tx.objectStore(STORE_NODES);
      const contents = tx.objectStore(STORE_CONTENTS);
      const now = Date.now();
      for (let i = 0; i < n; i++) {
        const path = `${dir}/${name(i)}`;
        paths.push(path);
        const rec: NodeRecord = { path, parent: dir, type: "file", size: 0, ctime: now, mtime: now, version: 1 };
        nodes.put(rec);
        contents.put("", path);
      }
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("aborted"));
    });
  } finally {
    db.close();
  }
  return paths.sort();
}
