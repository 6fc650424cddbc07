import { ContentCache, DEFAULT_CONTENT_CACHE_BYTES } from "./cache.js";
import { VfsError } from "./errors.js";
import { ChangeHub, type VfsChangeEvent, type VfsChangeListener } from "./events.js";
import { gramFilter, mayContain, type GramQuery } from "./grams.js";
import {
  INDEX_PARENT,
  META_USAGE,
  STORE_CONTENTS,
  STORE_GRAMS,
  STORE_META,
  STORE_NODES,
  descendantsRange,
  inTransaction,
  openDatabase,
  request,
  toVfsError,
  type GramsRecord,
  type NodeRecord,
} from "./idb.js";
import { ancestorsOf, baseName, describeType, isWithin, normalizePath, parentOf } from "./path.js";

/** Default per-file limit: 1 MiB of UTF-8. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** Default limit on the sum of all file sizes in one namespace: 50 MiB. */
export const DEFAULT_MAX_TOTAL_BYTES = 50 * 1024 * 1024;

/** Options of {@link VirtualFS.open}. */
export interface VfsOptions {
  /** The signed-in user; with `deviceId` it names the database. */
  userId: string;
  /** This browser profile's device id (a UUID kept by the SDK). */
  deviceId: string;
  /** Largest accepted file, in UTF-8 bytes. Default 1 MiB. */
  maxFileBytes?: number;
  /** Largest accepted sum of file sizes, in UTF-8 bytes. Default 50 MiB. */
  maxTotalBytes?: number;
  /** IndexedDB factory; defaults to the global `indexedDB`. */
  indexedDB?: IDBFactory;
  /** Memory kept for recently read file contents (UTF-16 bytes). Default 32 MiB; 0 turns it off. */
  contentCacheBytes?: number;
}

/** Metadata of one entry, as returned by stat/readdir/walk. */
export interface VfsStat {
  path: string;
  /** Last path segment; `""` for the root. */
  name: string;
  type: "file" | "dir";
  /** UTF-8 bytes; 0 for directories. */
  size: number;
  /** Creation and last modification times, ms since the epoch. */
  ctime: number;
  mtime: number;
  /** Starts at 1, increases on every write of this path. */
  version: number;
}

/** One file of {@link VirtualFS.readFiles}. */
export interface VfsFile {
  path: string;
  content: string;
  /** With `mtime`, identifies this content: both change on every write. */
  version: number;
  mtime: number;
}

/** Result of {@link VirtualFS.writeFile}. */
export interface WriteResult {
  path: string;
  bytes: number;
  created: boolean;
}

/** Space used and the limits in force. */
export interface VfsUsage {
  totalBytes: number;
  maxTotalBytes: number;
  maxFileBytes: number;
}

const ALL_STORES = [STORE_NODES, STORE_CONTENTS, STORE_GRAMS, STORE_META];
/** Lookups, removal and the source of a move accept names stored before format characters were refused. */
const EXISTING = { existing: true };
type Change = Omit<VfsChangeEvent, "local">;

/**
 * A per-(user, device) file system stored in IndexedDB. Directories are real
 * entries; every mutation is one IndexedDB transaction, so it either fully
 * happens (and emits its change events after the commit) or not at all.
 */
export class VirtualFS {
  private closed = false;
  private readonly cache: ContentCache;
  /** Trigram filters read before, by path, valid while the node keeps that version and mtime. */
  private readonly filters = new Map<string, { version: number; mtime: number; filter: string }>();

  private constructor(
    private readonly db: IDBDatabase,
    /** The IndexedDB database name, derived from user and device. */
    readonly databaseName: string,
    readonly maxFileBytes: number,
    readonly maxTotalBytes: number,
    private readonly hub: ChangeHub,
    cacheBytes: number,
  ) {
    this.cache = new ContentCache(cacheBytes);
    hub.subscribe((ev) => {
      this.cache.deleteTree(ev.path);
      if (ev.oldPath) this.cache.deleteTree(ev.oldPath);
      for (const p of [ev.path, ev.oldPath]) {
        if (p === undefined) continue;
        const prefix = p === "/" ? "/" : p + "/";
        for (const k of [...this.filters.keys()]) if (k === p || k.startsWith(prefix)) this.filters.delete(k);
      }
    });
    // Let a newer SDK version in another tab upgrade the schema instead of
    // blocking forever; our later calls then fail with EIO.
    db.onversionchange = () => this.close();
  }

  /** Database name used for a (user, device) namespace. */
  static databaseNameFor(userId: string, deviceId: string): string {
    return `rtc-agent-vfs/${encodeURIComponent(userId)}/${encodeURIComponent(deviceId)}`;
  }

  /** Opens (creating if needed) the file system of one user on one device. */
  static async open(options: VfsOptions): Promise<VirtualFS> {
    for (const key of ["userId", "deviceId"] as const) {
      if (typeof options[key] !== "string" || options[key] === "") {
        throw new VfsError("EINVAL", `${key} must be a non-empty string`);
      }
    }
    const maxFile = positiveLimit(options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, "maxFileBytes");
    const maxTotal = positiveLimit(options.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, "maxTotalBytes");
    const factory = options.indexedDB ?? globalThis.indexedDB;
    if (!factory) throw new VfsError("EIO", "IndexedDB is not available in this browser");
    const name = VirtualFS.databaseNameFor(options.userId, options.deviceId);
    const db = await openDatabase(factory, name);
    const cacheBytes = options.contentCacheBytes ?? DEFAULT_CONTENT_CACHE_BYTES;
    if (!Number.isSafeInteger(cacheBytes) || cacheBytes < 0) throw new VfsError("EINVAL", "contentCacheBytes must be an integer >= 0");
    return new VirtualFS(db, name, maxFile, maxTotal, new ChangeHub(name), cacheBytes);
  }

  /** Deletes a namespace's database (e.g. "forget this device"). Close it first. */
  static deleteDatabase(userId: string, deviceId: string, factory: IDBFactory = indexedDB): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = factory.deleteDatabase(VirtualFS.databaseNameFor(userId, deviceId));
      req.onsuccess = () => resolve();
      req.onerror = () => reject(toVfsError(req.error, "delete database"));
    });
  }

  /** Subscribes to committed changes; returns the unsubscribe function. */
  onChange(listener: VfsChangeListener): () => void {
    return this.hub.subscribe(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.filters.clear();
    this.db.close();
    this.hub.close();
  }

  async stat(path: string): Promise<VfsStat> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES], async (tx) => toStat(await mustGet(tx, p)));
  }

  /** True when an entry (file or directory) exists at `path`. */
  async exists(path: string): Promise<boolean> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES], async (tx) => (await getNode(tx, p)) !== undefined);
  }

  async readFile(path: string): Promise<string> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES, STORE_CONTENTS], async (tx) => {
      const node = await mustGet(tx, p);
      if (node.type === "dir") throw new VfsError("EISDIR", `${p} is a directory, not a file`, p);
      return this.content(tx, node);
    });
  }

  /**
   * Contents of many files, read in one transaction (one per file costs far more
   * than the reading). Given stats (e.g. from {@link walk}), files whose content
   * is cached for that version skip IndexedDB entirely. Paths that are missing
   * or directories are left out.
   */
  async readFiles(files: (string | VfsStat)[]): Promise<VfsFile[]> {
    const out: (VfsFile | null)[] = [];
    const misses: { i: number; path: string }[] = [];
    for (const f of files) {
      if (typeof f !== "string") {
        const hit = this.cache.get(f.path, f.version, f.mtime);
        if (hit !== undefined && f.type === "file") {
          out.push({ path: f.path, version: f.version, mtime: f.mtime, content: hit });
          continue;
        }
      }
      misses.push({ i: out.length, path: normalizePath(typeof f === "string" ? f : f.path, EXISTING) });
      out.push(null);
    }
    if (misses.length > 0) {
      await this.read([STORE_NODES, STORE_CONTENTS], (tx) =>
        // Issue every request at once: IndexedDB serves them in order without a
        // round trip to this thread between them.
        Promise.all(
          misses.map(async ({ i, path }) => {
            const node = await getNode(tx, path);
            if (node?.type === "file") out[i] = { path, version: node.version, mtime: node.mtime, content: await this.content(tx, node) };
          }),
        ),
      );
    }
    return out.filter((f): f is VfsFile => f !== null);
  }

  private async content(tx: IDBTransaction, node: NodeRecord): Promise<string> {
    const hit = this.cache.get(node.path, node.version, node.mtime);
    if (hit !== undefined) return hit;
    const raw = await request(tx.objectStore(STORE_CONTENTS).get(node.path));
    const content = typeof raw === "string" ? raw : "";
    this.cache.set(node.path, node.version, node.mtime, content);
    return content;
  }

  /** Creates or fully overwrites a file, creating missing parent directories. */
  async writeFile(path: string, content: string): Promise<WriteResult> {
    const p = normalizePath(path);
    if (typeof content !== "string") {
      throw new VfsError("EINVAL", `content must be a string, got ${describeType(content)}`, p);
    }
    if (p === "/") throw new VfsError("EISDIR", "/ is the root directory, not a file", p);
    const bytes = utf8Length(content);
    if (bytes > this.maxFileBytes) {
      throw new VfsError("EFBIG", `${p} would be ${bytes} bytes; the limit is ${this.maxFileBytes} bytes per file`, p);
    }
    // Computed before the transaction: it must not wait on this thread's work.
    const grams = gramFilter(content);
    return this.write(async (tx, changes) => {
      const now = Date.now();
      await ensureDirs(tx, ancestorsOf(p), now, changes);
      const old = await getNode(tx, p);
      if (old?.type === "dir") throw new VfsError("EISDIR", `${p} is a directory, not a file`, p);
      const usage = await getUsage(tx);
      const next = usage - (old?.size ?? 0) + bytes;
      if (next > this.maxTotalBytes) {
        throw new VfsError(
          "ENOSPC",
          `writing ${bytes} bytes to ${p} would use ${next} bytes in total; the limit is ${this.maxTotalBytes} bytes (free space by removing files)`,
          p,
        );
      }
      const node: NodeRecord = {
        path: p, parent: parentOf(p), type: "file", size: bytes,
        ctime: old?.ctime ?? now, mtime: now, version: (old?.version ?? 0) + 1,
      };
      tx.objectStore(STORE_NODES).put(node);
      tx.objectStore(STORE_CONTENTS).put(content, p);
      tx.objectStore(STORE_GRAMS).put({ path: p, filter: grams } satisfies GramsRecord);
      tx.objectStore(STORE_META).put(next, META_USAGE);
      changes.push({ kind: old ? "update" : "create", path: p, type: "file" });
      return { path: p, bytes, created: !old };
    });
  }

  /** Creates a directory and any missing parents; succeeds if it already exists. */
  async mkdir(path: string): Promise<{ path: string; created: boolean }> {
    const p = normalizePath(path);
    return this.write(async (tx, changes) => {
      if ((await getNode(tx, p))?.type === "file") throw new VfsError("EEXIST", `${p} already exists as a file`, p);
      const before = changes.length;
      await ensureDirs(tx, [...ancestorsOf(p), p], Date.now(), changes);
      return { path: p, created: changes.length > before };
    });
  }

  /** Entries directly inside a directory, sorted by name. */
  async readdir(path: string): Promise<VfsStat[]> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES], async (tx) => {
      const node = await mustGet(tx, p);
      if (node.type !== "dir") throw new VfsError("ENOTDIR", `${p} is a file, not a directory`, p);
      const rows = await request(tx.objectStore(STORE_NODES).index(INDEX_PARENT).getAll(p));
      return (rows as NodeRecord[]).map(toStat).sort((a, b) => compareNames(a.name, b.name));
    });
  }

  /**
   * The file itself if `path` is a file; otherwise every entry below the
   * directory (not the directory itself), in path order.
   */
  async walk(path: string): Promise<VfsStat[]> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES], async (tx) => {
      const node = await mustGet(tx, p);
      if (node.type === "file") return [toStat(node)];
      const rows = await request(tx.objectStore(STORE_NODES).getAll(descendantsRange(p)));
      return (rows as NodeRecord[]).map(toStat);
    });
  }

  /**
   * Of the files {@link walk} lists (the file itself, or every file below the
   * directory, in path order), those whose content may contain `query` (see
   * grams.ts; all of them when it is null): a file left out certainly does not.
   * `total` counts the files walked.
   */
  async walkFiles(path: string, query: GramQuery | null): Promise<{ files: VfsStat[]; total: number }> {
    const p = normalizePath(path, EXISTING);
    return this.read([STORE_NODES, STORE_GRAMS], async (tx) => {
      const node = await mustGet(tx, p);
      const range = node.type === "file" ? p : descendantsRange(p);
      const readFilters = () => request(tx.objectStore(STORE_GRAMS).getAll(range)) as Promise<GramsRecord[]>;
      // None kept yet (the first grep of this page): ask for both at once.
      const early = query !== null && this.filters.size === 0 ? readFilters() : null;
      early?.catch(() => undefined); // unused when there is no file; its failure fails the transaction anyway
      const rows = (await request(tx.objectStore(STORE_NODES).getAll(range))) as NodeRecord[];
      const all = rows.filter((n) => n.type === "file");
      if (query === null) return { files: all.map(toStat), total: all.length };
      const known = (n: NodeRecord) => {
        const f = this.filters.get(n.path);
        return f && f.version === n.version && f.mtime === n.mtime ? f.filter : undefined;
      };
      // Filters are read once (in this same transaction, so they match the nodes)
      // and kept: a repeated grep reads only the nodes.
      if (!all.every((n) => known(n) !== undefined)) {
        const read = await (early ?? readFilters());
        const byPath = new Map(read.map((g) => [g.path, g.filter]));
        for (const n of all) {
          const filter = byPath.get(n.path);
          if (filter !== undefined) this.filters.set(n.path, { version: n.version, mtime: n.mtime, filter });
        }
      }
      return { files: all.filter((n) => mayContain(known(n), query)).map(toStat), total: all.length };
    });
  }

  /** Removes a file, or a directory with everything below it. */
  async remove(path: string): Promise<{ path: string; removed: number }> {
    const p = normalizePath(path, EXISTING);
    if (p === "/") throw new VfsError("EPERM", "the root directory cannot be removed", p);
    return this.write(async (tx, changes) => {
      const node = await mustGet(tx, p);
      const nodes = tx.objectStore(STORE_NODES);
      const contents = tx.objectStore(STORE_CONTENTS);
      const grams = tx.objectStore(STORE_GRAMS);
      let freed = node.size;
      let removed = 1;
      if (node.type === "dir") {
        const range = descendantsRange(p);
        const below = (await request(nodes.getAll(range))) as NodeRecord[];
        for (const n of below) freed += n.size;
        removed += below.length;
        nodes.delete(range);
        contents.delete(range);
        grams.delete(range);
      }
      nodes.delete(p);
      contents.delete(p);
      grams.delete(p);
      tx.objectStore(STORE_META).put(Math.max(0, (await getUsage(tx)) - freed), META_USAGE);
      changes.push({ kind: "delete", path: p, type: node.type });
      return { path: p, removed };
    });
  }

  /**
   * Moves a file or a directory tree. The destination must not exist (no silent
   * overwrite); its missing parents are created.
   */
  async rename(from: string, to: string): Promise<{ from: string; to: string }> {
    const src = normalizePath(from, EXISTING);
    const dst = normalizePath(to);
    if (src === "/" || dst === "/") throw new VfsError("EPERM", "the root directory cannot be moved or replaced", "/");
    if (src === dst) return { from: src, to: dst };
    if (isWithin(dst, src)) throw new VfsError("EINVAL", `cannot move ${src} into itself (${dst})`, dst);
    return this.write(async (tx, changes) => {
      const node = await mustGet(tx, src);
      if (await getNode(tx, dst)) throw new VfsError("EEXIST", `${dst} already exists; remove it first or pick another name`, dst);
      const now = Date.now();
      await ensureDirs(tx, ancestorsOf(dst), now, changes);
      const nodes = tx.objectStore(STORE_NODES);
      const contents = tx.objectStore(STORE_CONTENTS);
      const grams = tx.objectStore(STORE_GRAMS);
      const moving = [node];
      if (node.type === "dir") moving.push(...((await request(nodes.getAll(descendantsRange(src)))) as NodeRecord[]));
      for (const n of moving) {
        const newPath = dst + n.path.slice(src.length);
        const moved: NodeRecord = { ...n, path: newPath, parent: parentOf(newPath), mtime: now, version: n.version + 1 };
        nodes.put(moved);
        nodes.delete(n.path);
        if (n.type === "file") {
          const content = await request(contents.get(n.path));
          contents.put(content ?? "", newPath);
          contents.delete(n.path);
          const g = (await request(grams.get(n.path))) as GramsRecord | undefined;
          grams.put({ path: newPath, filter: g?.filter ?? gramFilter(typeof content === "string" ? content : "") } satisfies GramsRecord);
          grams.delete(n.path);
        }
      }
      changes.push({ kind: "rename", path: dst, oldPath: src, type: node.type });
      return { from: src, to: dst };
    });
  }

  async usage(): Promise<VfsUsage> {
    const totalBytes = await this.read([STORE_META], (tx) => getUsage(tx));
    return { totalBytes, maxTotalBytes: this.maxTotalBytes, maxFileBytes: this.maxFileBytes };
  }

  private read<T>(stores: string[], fn: (tx: IDBTransaction) => Promise<T>): Promise<T> {
    this.assertOpen();
    return inTransaction(this.db, stores, "readonly", fn);
  }

  private async write<T>(fn: (tx: IDBTransaction, changes: Change[]) => Promise<T>): Promise<T> {
    this.assertOpen();
    const changes: Change[] = [];
    const result = await inTransaction(this.db, ALL_STORES, "readwrite", (tx) => fn(tx, changes));
    this.hub.emit(changes);
    return result;
  }

  private assertOpen(): void {
    if (this.closed) throw new VfsError("EIO", "the file system is closed (another tab may have upgraded it; reload the page)");
  }
}

async function getNode(tx: IDBTransaction, path: string): Promise<NodeRecord | undefined> {
  return (await request(tx.objectStore(STORE_NODES).get(path))) as NodeRecord | undefined;
}

async function mustGet(tx: IDBTransaction, path: string): Promise<NodeRecord> {
  const node = await getNode(tx, path);
  if (node) return node;
  // Name the first missing or non-directory ancestor: "no such directory /a" helps
  // more than "no such file /a/b/c.txt" when the model guessed a wrong folder.
  for (const dir of ancestorsOf(path)) {
    const anc = await getNode(tx, dir);
    if (!anc) break;
    if (anc.type === "file") throw new VfsError("ENOTDIR", `${dir} is a file, so ${path} cannot exist`, path);
  }
  throw new VfsError("ENOENT", `no such file or directory: ${path}`, path);
}

async function getUsage(tx: IDBTransaction): Promise<number> {
  const v = await request(tx.objectStore(STORE_META).get(META_USAGE));
  return typeof v === "number" ? v : 0;
}

/** Creates each missing directory of `dirs` (ordered root first). */
async function ensureDirs(tx: IDBTransaction, dirs: string[], now: number, changes: Change[]): Promise<void> {
  const nodes = tx.objectStore(STORE_NODES);
  for (const dir of dirs) {
    const node = await getNode(tx, dir);
    if (node?.type === "dir") continue;
    if (node) throw new VfsError("ENOTDIR", `${dir} is a file, not a directory`, dir);
    const rec: NodeRecord = { path: dir, parent: parentOf(dir), type: "dir", size: 0, ctime: now, mtime: now, version: 1 };
    nodes.put(rec);
    changes.push({ kind: "create", path: dir, type: "dir" });
  }
}

function toStat(n: NodeRecord): VfsStat {
  return { path: n.path, name: baseName(n.path), type: n.type, size: n.size, ctime: n.ctime, mtime: n.mtime, version: n.version };
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function positiveLimit(v: number | undefined, def: number, name: string): number {
  if (v === undefined) return def;
  if (!Number.isSafeInteger(v) || v <= 0) throw new VfsError("EINVAL", `${name} must be a positive integer`);
  return v;
}

/** UTF-8 length without allocating an encoded copy (files can be 1 MiB). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // BMP char, or a lone surrogate (encoded as U+FFFD, 3 bytes)
  }
  return n;
}
