// Unit tests of the entity store (src/realtime/entities.ts) on real IndexedDB:
// persistence with the position, the per-entity offset rule, updates carrying
// several entities (one commit), the epoch guard between tabs, and reset.

import type { Message, Rtc, Session, Turn, Update } from "../../src/protocol/types.js";
import { EntityStore } from "../../src/realtime/entities.js";
import { TopicSync } from "../../src/realtime/topic.js";
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

export const message = (id: string, offset: number, extra: Partial<Message> = {}): Message => ({
  id,
  session_id: "s1",
  turn_id: "t1",
  user_id: "u",
  seq: 1,
  role: "assistant",
  text: "done",
  status: "complete",
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  offset,
  ...extra,
});

export const turn = (id: string, offset: number, extra: Partial<Turn> = {}): Turn => ({
  id,
  session_id: "s1",
  user_id: "u",
  seq: 1,
  user_message_id: "m0",
  status: "running",
  step: 1,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  offset,
  ...extra,
});

/** An update of one change. */
const u = (offset: number, type: string, data: object, epoch = "e1"): Update => ({ offset, epoch, changes: [{ type, data }] });
/** An update of several changes (one commit). */
const commit = (offset: number, ...changes: [type: string, data: object][]): Update => ({ offset, epoch: "e1", changes: changes.map(([type, data]) => ({ type, data })) });

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

test("entities: one update carrying a message, an RTC and a turn applies all three; its re-delivery changes nothing", async () => {
  const db = await freshDb();
  const s = new EntityStore(db);
  await s.reset("e1", 0, []);
  await s.apply([commit(1, ["session.created", session("s1", 1)], ["turn.created", turn("t1", 1)], ["rtc.updated", rtc("r1", 1)])]);
  const changes: string[] = [];
  s.events.on("change", (c) => changes.push(`${c.kind}:${c.entity.id}@${c.entity.offset}`));
  const one = commit(
    2,
    ["message.updated", message("m1", 2, { tool_calls: [{ id: "call-r1", name: "write", arguments: {} }] })],
    ["rtc.updated", rtc("r1", 2, { status: "completed", output: "ok" })],
    ["turn.updated", turn("t1", 2, { status: "completed" })],
    ["later.kind", { id: "x", offset: 2 }],
  );
  // Through the Topic rules, as a publication; a fake server, never called here.
  const sync = new TopicSync(s, async () => {
    throw new Error("no call expected");
  });
  const duplicates: number[] = [];
  const errors: unknown[] = [];
  sync.events.on("duplicate", (o) => duplicates.push(o));
  sync.events.on("error", (e) => errors.push(e));
  await sync.publication(one);
  eq(changes, ["message:m1@2", "rtc:r1@2", "turn:t1@2"], "all three, together, in the update's order (the unknown type ignored)");
  eq(s.position(), { epoch: "e1", offset: 2 });
  eq(s.messages.get("m1")?.text, "done");
  eq(s.rtcs.get("r1")?.status, "completed");
  eq(s.turns.get("t1")?.status, "completed");
  eq(s.messagesOf("s1").map((m) => m.id), ["m1"]);
  eq(s.rtcsOf("s1").map((r) => r.id), ["r1"]);
  eq(s.turnsOf("s1").map((t) => t.status), ["completed"]);

  // Re-delivered: dropped by the Topic rules as a duplicate…
  await sync.publication(structuredClone(one));
  eq(duplicates, [2]);
  // …and, applied again (an overlapping refill), it changes no entity.
  await s.apply([structuredClone(one)]);
  // Older states of those entities (a list read before the commit) do not win either.
  await s.merge([{ kind: "rtc", entity: rtc("r1", 1) }, { kind: "turn", entity: turn("t1", 1) }]);
  eq(changes.length, 3, `no change event after the first delivery: ${changes.join(", ")}`);
  eq(s.position(), { epoch: "e1", offset: 2 });
  eq(errors, []);
  sync.close();

  const again = new EntityStore(db);
  await again.load();
  eq(again.position(), { epoch: "e1", offset: 2 });
  eq(again.messages.get("m1")?.offset, 2, "all three persisted with the position");
  eq(again.rtcs.get("r1")?.status, "completed");
  eq(again.turns.get("t1")?.status, "completed");
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
