// Unit tests of the entity store (src/realtime/entities.ts) on real IndexedDB:
// persistence with the position, the per-entity offset rule, the epoch guard
// between tabs, and reset.

import type { Rtc, Session, Update } from "../../src/protocol/types.js";
import { EntityStore } from "../../src/realtime/entities.js";
import { deleteDb, openStateDb } from "../../src/state/db.js";
import { eq, ok, test } from "./harness.js";

let n = 0;
const dbs: string[] = [];

export async function freshDb(): Promise<IDBDatabase> {
  const name = `test-state-${Date.now()}-${n++}`;
  dbs.push(name);
  return openStateDb(name);
}

export async function dropDbs(): Promise<void> {
  for (const name of dbs.splice(0)) await deleteDb(name);
}

export const session = (id: string, offset: number, extra: Partial<Session> = {}): Session => ({
  id,
  user_id: "u",
  device_id: "d1",
  title: `session ${id}`,
  work_mode: "edit",
  status: "open",
  created_at: new Date(1_700_000_000_000 + offset).toISOString(),
  updated_at: new Date(1_700_000_000_000 + offset).toISOString(),
  offset,
  ...extra,
});

export const rtc = (id: string, offset: number, extra: Partial<Rtc> = {}): Rtc => ({
  id,
  session_id: "s1",
  turn_id: "t1",
  user_id: "u",
  message_id: "m1",
  tool_call_id: `call-${id}`,
  seq: 1,
  step: 1,
  tool_name: "write",
  arguments: { path: "/x.txt", content: "x" },
  status: "pending",
  needs_confirmation: false,
  timeout_ms: 300_000,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  offset,
  ...extra,
});

const u = (offset: number, type: string, data: object, epoch = "e1"): Update => ({ offset, epoch, type, data });

test("entities: updates and the position persist together; a new store loads them", async () => {
  const db = await freshDb();
  const a = new EntityStore(db);
  await a.reset("e1", 0, []);
  await a.apply([u(1, "session.created", session("s1", 1)), u(2, "rtc.updated", rtc("r1", 2)), u(3, "rtc.updated", rtc("r1", 3, { status: "executing" }))]);
  const b = new EntityStore(db);
  await b.load();
  eq(b.position(), { epoch: "e1", offset: 3 });
  eq(b.rtcs.get("r1")?.status, "executing");
  eq(b.listSessions().map((s) => s.id), ["s1"]);
  ok(b.isHydrated("s1"), "a session created while connected needs no list loading");
  db.close();
});

test("entities: a state is applied only when its offset is higher", async () => {
  const db = await freshDb();
  const s = new EntityStore(db);
  await s.reset("e1", 0, []);
  const changes: string[] = [];
  s.events.on("change", (c) => changes.push(`${c.kind}:${(c.entity as Rtc).status}`));
  await s.apply([u(1, "rtc.updated", rtc("r1", 1)), u(2, "rtc.updated", rtc("r1", 2, { status: "completed" }))]);
  await s.merge([{ kind: "rtc", entity: rtc("r1", 1, { status: "pending" }) }]);
  eq(s.rtcs.get("r1")?.status, "completed", "an older state from a list does not win");
  eq(changes, ["rtc:pending", "rtc:completed"]);
  const again = new EntityStore(db);
  await again.load();
  eq(again.rtcs.get("r1")?.status, "completed", "nor in IndexedDB");
  db.close();
});

test("entities: a tab on an old epoch does not write over a reset made by another tab", async () => {
  const db = await freshDb();
  const tabA = new EntityStore(db);
  const tabB = new EntityStore(db);
  await tabA.reset("e1", 0, []);
  await tabB.load();
  await tabA.reset("e2", 10, [session("s9", 10)]);
  await tabB.apply([u(1, "session.created", session("s1", 1))]);
  const check = new EntityStore(db);
  await check.load();
  eq(check.position(), { epoch: "e2", offset: 10 });
  eq(check.listSessions().map((s) => s.id), ["s9"], "tab B's update of the old epoch was not persisted");
  db.close();
});

test("entities: reset drops everything and keeps the snapshot", async () => {
  const db = await freshDb();
  const s = new EntityStore(db);
  await s.reset("e1", 0, []);
  await s.apply([u(1, "session.created", session("s1", 1)), u(2, "rtc.updated", rtc("r1", 2))]);
  let resets = 0;
  s.events.on("reset", () => resets++);
  await s.reset("e2", 50, [session("s2", 40), session("s3", 45, { deleted: true })]);
  eq(resets, 1);
  eq(s.rtcs.size, 0);
  eq(s.listSessions().map((x) => x.id), ["s2"], "deleted sessions are not listed");
  ok(!s.isHydrated("s2"), "lists are loaded again when needed");
  const again = new EntityStore(db);
  await again.load();
  eq(again.position(), { epoch: "e2", offset: 50 });
  eq(again.rtcs.size, 0);
  db.close();
});
