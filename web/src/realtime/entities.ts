// The entity store: sessions, turns, messages and RTCs as the Topic channel
// describes them, in memory for the UI and persisted in IndexedDB together with
// the Topic position, so a reloaded page resumes from its stored offset.
//
// Every entity carries the offset of the update that produced it (all entities
// one commit changed share that update's offset); a state is applied only when
// its offset is higher than the one held for that entity. That makes replays,
// overlapping refills and list results merged in any order harmless.
//
// When a write fails (storage full), the page goes on from memory: changes are
// still shown and reported, the failure is reported as `unsaved`, and from then
// on the stored position and hydration marks no longer move, so a reload
// refills from the last point whose updates were all stored.

import type { Message, Rtc, Session, Turn, Update } from "../protocol/types.js";
import { ENTITY_STORES, type EntityStoreName, type Position, S_HYDRATED, S_META, req, tx } from "../state/db.js";
import { StorageError } from "../state/storage-error.js";
import { Emitter } from "../util/emitter.js";

export type EntityKind = "session" | "turn" | "message" | "rtc";
export type Entity = Session | Turn | Message | Rtc;

export type EntityChange =
  | { kind: "session"; entity: Session }
  | { kind: "turn"; entity: Turn }
  | { kind: "message"; entity: Message }
  | { kind: "rtc"; entity: Rtc };

export interface EntityEvents {
  change: EntityChange;
  /** Local state was dropped and reloaded (epoch change, lost history). */
  reset: { epoch: string; offset: number };
  /** The lists of one session were loaded. */
  hydrated: string;
  /** A write failed; the state goes on in memory. */
  unsaved: StorageError;
}

const STORE_OF: Record<EntityKind, EntityStoreName> = { session: "sessions", turn: "turns", message: "messages", rtc: "rtcs" };

/** The entity kind a change's type names (`rtc.updated` → `rtc`), or null if unknown. */
export function kindOf(type: string): EntityKind | null {
  const k = type.slice(0, type.indexOf("."));
  return k === "session" || k === "turn" || k === "message" || k === "rtc" ? k : null;
}

function isEntity(v: unknown): v is Entity {
  return typeof v === "object" && v !== null && typeof (v as Entity).id === "string" && typeof (v as Entity).offset === "number";
}

export class EntityStore {
  readonly events = new Emitter<EntityEvents>();
  readonly sessions = new Map<string, Session>();
  readonly turns = new Map<string, Turn>();
  readonly messages = new Map<string, Message>();
  readonly rtcs = new Map<string, Rtc>();
  private readonly hydrated = new Set<string>();
  private pos: Position | null = null;
  /** `kind/sessionId` → ids of that session's entities of that kind. */
  private readonly bySession = new Map<string, Set<string>>();
  /** `kind/sessionId` → sorted entities, until one of them changes. */
  private readonly views = new Map<string, Entity[]>();
  private sessionList: Session[] | null = null;
  /** A write failed since the last full snapshot: IndexedDB lags behind memory. */
  private lagging = false;

  constructor(private readonly db: IDBDatabase) {}

  /** The position every applied update is covered by; null before the first snapshot. */
  position(): Position | null {
    return this.pos ? { ...this.pos } : null;
  }

  isHydrated(sessionId: string): boolean {
    return this.hydrated.has(sessionId);
  }

  /** Loads the persisted position and entities (one read transaction: consistent). */
  async load(): Promise<void> {
    await tx(this.db, [S_META, S_HYDRATED, ...ENTITY_STORES], "readonly", async (t) => {
      this.pos = ((await req(t.objectStore(S_META).get("position"))) as Position | undefined) ?? null;
      for (const id of (await req(t.objectStore(S_HYDRATED).getAllKeys())) as string[]) this.hydrated.add(id);
      for (const kind of Object.keys(STORE_OF) as EntityKind[]) {
        const rows = (await req(t.objectStore(STORE_OF[kind]).getAll())) as Entity[];
        for (const row of rows) {
          this.indexed(kind, row, this.mapOf(kind).get(row.id));
          this.mapOf(kind).set(row.id, row);
        }
      }
    });
  }

  /**
   * Applies a contiguous run of updates of the current epoch and persists them
   * with the new position in one transaction; then emits one `change` per
   * entity that changed, in the order of the updates and of their `changes`.
   * The caller (TopicSync) guarantees order and contiguity.
   */
  async apply(updates: Update[]): Promise<void> {
    if (updates.length === 0 || !this.pos) return;
    const epoch = this.pos.epoch;
    const changed: EntityChange[] = [];
    for (const u of updates) {
      // All changes of one update (one commit) apply together, in their order.
      // They share the update's offset: different entities all apply, and a
      // re-delivered update finds each of its entities already at that offset.
      for (const c of Array.isArray(u.changes) ? u.changes : []) {
        const kind = kindOf(c.type);
        if (kind && isEntity(c.data) && this.setMemory(kind, c.data)) {
          changed.push({ kind, entity: c.data } as EntityChange);
          if (c.type === "session.created") this.hydrated.add(c.data.id);
        }
      }
      this.pos = { epoch, offset: u.offset };
    }
    const pos = this.pos;
    await this.persist(async (t) => {
      const stored = (await req(t.objectStore(S_META).get("position"))) as Position | undefined;
      // Another tab reset the database to another epoch: our updates do not belong
      // there. This tab resets itself when it sees that epoch.
      if (stored && stored.epoch !== epoch) return;
      for (const c of changed) {
        await putIfNewer(t, STORE_OF[c.kind], c.entity);
        if (c.kind === "session" && this.hydrated.has(c.entity.id) && !this.lagging) t.objectStore(S_HYDRATED).put(pos.offset, c.entity.id);
      }
      if ((!stored || stored.offset < pos.offset) && !this.lagging) t.objectStore(S_META).put(pos, "position");
    });
    for (const c of changed) this.events.emit("change", c);
  }

  /**
   * Merges entities read with a list/get method (no position change). Used to
   * hydrate a session and for results of calls.
   */
  async merge(entities: { kind: EntityKind; entity: Entity }[]): Promise<void> {
    const epoch = this.pos?.epoch;
    const changed = entities.filter((e) => this.setMemory(e.kind, e.entity)) as EntityChange[];
    if (changed.length === 0) return;
    await this.persist(async (t) => {
      const stored = (await req(t.objectStore(S_META).get("position"))) as Position | undefined;
      if (stored && stored.epoch !== epoch) return;
      for (const c of changed) await putIfNewer(t, STORE_OF[c.kind], c.entity);
    });
    for (const c of changed) this.events.emit("change", c);
  }

  async markHydrated(sessionId: string, offset: number): Promise<void> {
    this.hydrated.add(sessionId);
    // While lagging, the lists just loaded may not all be stored: no mark, a reload loads them again.
    if (!this.lagging) await this.persist(async (t) => void t.objectStore(S_HYDRATED).put(offset, sessionId));
    this.events.emit("hydrated", sessionId);
  }

  /**
   * Drops all local state and starts over from a snapshot read at `offset` of
   * `epoch` (protocol rule 5). Sessions come from `v1.session.list`; the other
   * entities are loaded per session when needed (hydration).
   */
  async reset(epoch: string, offset: number, sessions: Session[]): Promise<void> {
    for (const kind of Object.keys(STORE_OF) as EntityKind[]) this.mapOf(kind).clear();
    this.clearIndex();
    this.hydrated.clear();
    this.pos = { epoch, offset };
    for (const s of sessions) this.sessions.set(s.id, s);
    this.sessionList = null;
    // A full snapshot stored: IndexedDB is up to date again.
    if (await this.persist(async (t) => {
      for (const name of [S_HYDRATED, ...ENTITY_STORES]) t.objectStore(name).clear();
      for (const s of sessions) t.objectStore("sessions").put(s);
      t.objectStore(S_META).put({ epoch, offset }, "position");
    })) this.lagging = false;
    this.events.emit("reset", { epoch, offset });
  }

  /**
   * Writes in one transaction; false (and `unsaved`) when it failed. The caller's
   * memory state stands either way: what is shown never waits for storage.
   */
  private async persist(fn: (t: IDBTransaction) => Promise<void>): Promise<boolean> {
    try {
      await tx(this.db, [S_META, S_HYDRATED, ...ENTITY_STORES], "readwrite", fn);
      return true;
    } catch (err) {
      this.lagging = true;
      this.events.emit("unsaved", new StorageError("conversation history", err));
      return false;
    }
  }

  /** Sessions that are not deleted, newest first. Cached until a session changes: do not modify. */
  listSessions(): readonly Session[] {
    this.sessionList ??= [...this.sessions.values()].filter((s) => !s.deleted).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    return this.sessionList;
  }

  /** A session's messages by seq. Cached until one of them changes: do not modify. */
  messagesOf(sessionId: string): readonly Message[] {
    return this.view("message", sessionId, (a: Message, b: Message) => a.seq - b.seq);
  }

  /** A session's turns by seq. Cached until one of them changes: do not modify. */
  turnsOf(sessionId: string): readonly Turn[] {
    return this.view("turn", sessionId, (a: Turn, b: Turn) => a.seq - b.seq);
  }

  /** A session's RTCs in call order. Cached until one of them changes: do not modify. */
  rtcsOf(sessionId: string): readonly Rtc[] {
    return this.view("rtc", sessionId, (a: Rtc, b: Rtc) => (a.turn_id === b.turn_id ? a.seq - b.seq : a.created_at < b.created_at ? -1 : 1));
  }

  /**
   * The sorted entities of one kind of one session. The UI asks on every render,
   * so the answer is kept until an entity of that kind and session changes, and
   * built from a per-session index, not from every stored entity.
   */
  private view<T extends Message | Turn | Rtc>(kind: "message" | "turn" | "rtc", sessionId: string, order: (a: T, b: T) => number): readonly T[] {
    const key = `${kind}/${sessionId}`;
    let v = this.views.get(key) as T[] | undefined;
    if (!v) {
      v = [...(this.bySession.get(key)?.values() ?? [])].map((id) => this.mapOf(kind).get(id) as T).sort(order);
      this.views.set(key, v);
    }
    return v;
  }

  /** Index and cache upkeep after an entity was set. */
  private indexed(kind: EntityKind, e: Entity, old: Entity | undefined): void {
    if (kind === "session") {
      this.sessionList = null;
      return;
    }
    const sid = (e as Message | Turn | Rtc).session_id;
    const oldSid = (old as Message | Turn | Rtc | undefined)?.session_id;
    if (oldSid !== undefined && oldSid !== sid) {
      this.bySession.get(`${kind}/${oldSid}`)?.delete(e.id);
      this.views.delete(`${kind}/${oldSid}`);
    }
    const key = `${kind}/${sid}`;
    let ids = this.bySession.get(key);
    if (!ids) this.bySession.set(key, (ids = new Set()));
    ids.add(e.id);
    this.views.delete(key);
  }

  private clearIndex(): void {
    this.bySession.clear();
    this.views.clear();
    this.sessionList = null;
  }

  private mapOf(kind: EntityKind): Map<string, Entity> {
    switch (kind) {
      case "session":
        return this.sessions as Map<string, Entity>;
      case "turn":
        return this.turns as Map<string, Entity>;
      case "message":
        return this.messages as Map<string, Entity>;
      case "rtc":
        return this.rtcs as Map<string, Entity>;
    }
  }

  /** Sets the in-memory entity when newer; reports whether it changed. */
  private setMemory(kind: EntityKind, e: Entity): boolean {
    const map = this.mapOf(kind);
    const cur = map.get(e.id);
    if (cur && cur.offset >= e.offset) return false;
    map.set(e.id, e);
    this.indexed(kind, e, cur);
    return true;
  }
}

async function putIfNewer(t: IDBTransaction, store: string, e: Entity): Promise<void> {
  const os = t.objectStore(store);
  const cur = (await req(os.get(e.id))) as Entity | undefined;
  if (!cur || cur.offset < e.offset) os.put(e);
}
