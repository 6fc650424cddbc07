// Loading one session's lists (messages, turns, RTCs) into the entity store. A
// reset reloads only the session list; a session's contents are loaded when a UI
// opens it. Runs on the Topic queue, so no update or reset interleaves with it;
// entities merge by offset, so the lists and later updates combine correctly.

import type { Message, MessageListResult, RtcListResult, TurnListResult } from "../protocol/types.js";
import type { Entity, EntityKind, EntityStore } from "../realtime/entities.js";
import type { Call } from "../realtime/topic.js";

const LIMIT = 200;

/** Returns the messages still streaming (their text so far must be fetched). */
export async function hydrateSession(store: EntityStore, call: Call, sessionId: string): Promise<Message[]> {
  if (store.isHydrated(sessionId)) return [];
  // The session first: its RTCs are only run when its device is known.
  await store.merge([{ kind: "session", entity: (await call("v1.session.get", { session_id: sessionId })).session }]);
  const entities: { kind: EntityKind; entity: Entity }[] = [];
  let offset = Infinity;

  let cursor: string | undefined;
  do {
    const page: MessageListResult = await call("v1.message.list", { session_id: sessionId, cursor, limit: LIMIT });
    offset = Math.min(offset, page.offset);
    for (const m of page.messages) entities.push({ kind: "message", entity: m });
    cursor = page.next_cursor || undefined;
  } while (cursor);

  // Turns are paged by seq; the server sends no next_cursor for them.
  let after = 0;
  for (;;) {
    const page: TurnListResult = await call("v1.turn.list", { session_id: sessionId, cursor: after ? String(after) : undefined, limit: LIMIT });
    offset = Math.min(offset, page.offset);
    for (const t of page.turns) entities.push({ kind: "turn", entity: t });
    const last = page.turns[page.turns.length - 1];
    if (page.turns.length < LIMIT || !last) break;
    after = last.seq;
  }

  cursor = undefined;
  do {
    const page: RtcListResult = await call("v1.rtc.list", { session_id: sessionId, cursor, limit: LIMIT });
    offset = Math.min(offset, page.offset);
    for (const r of page.rtcs) entities.push({ kind: "rtc", entity: r });
    cursor = page.next_cursor || undefined;
  } while (cursor);

  await store.merge(entities);
  await store.markHydrated(sessionId, Number.isFinite(offset) ? offset : 0);
  return entities.filter((e): e is { kind: "message"; entity: Message } => e.kind === "message" && (e.entity as Message).status === "streaming").map((e) => e.entity);
}
