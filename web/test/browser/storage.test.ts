// Storage that fails (src/executor/journal.ts, src/state/): the journal keeps a
// call's claim and outcome in memory when IndexedDB refuses the write, so the
// result is still submitted and the call never claimed twice; persistent
// storage is asked for once.

import { Journal } from "../../src/executor/journal.js";
import { requestPersistence } from "../../src/state/persist.js";
import { StorageError, isQuotaError } from "../../src/state/storage-error.js";
import { freshDb } from "./entities.test.js";
import { eq, ok, test } from "./harness.js";

const ref = { id: "r1", session_id: "s1", tool_name: "write" };

test("storage: a journal whose writes fail keeps claims and outcomes in memory", async () => {
  const db = await freshDb();
  const j = new Journal(db);
  const errors: StorageError[] = [];
  j.events.on("unsaved", (e) => errors.push(e));
  ok(await j.prompting(ref, "t1"), "asked while storage works");
  db.close(); // from now on every transaction fails, as at the quota
  ok(await j.executing(ref, "t1"), "the claim holds in memory");
  eq(await j.executing(ref, "t2"), false, "and is not given twice");
  eq((await j.get("r1")).journal?.phase, "executing");
  const entry = await j.finish(ref, "t1", { kind: "result", ok: true, output: "done" });
  ok(entry, "the outcome is kept");
  eq(await j.finish(ref, "t1", { kind: "result", ok: false, error: "again" }), null, "one outcome per call");
  eq((await j.outbox()).map((e) => e.client_id), [entry!.client_id], "the outbox offers it for submission");
  eq((await j.entries()).map((e) => e.phase), ["finished"]);
  await j.acknowledge("r1");
  eq(await j.outbox(), [], "gone once the server has it");
  eq((await j.get("r1")).journal?.phase, "acknowledged");
  ok(errors.length >= 3 && errors.every((e) => e.what === "tool results"), `each failed write reported: ${errors.length}`);
});

test("storage: a quota error is told apart from other failures", () => {
  ok(new StorageError("files", new DOMException("full", "QuotaExceededError")).quota, "QuotaExceededError");
  ok(!new StorageError("files", new DOMException("closing", "InvalidStateError")).quota, "another DOMException");
  ok(isQuotaError({ name: "AbortError", cause: { name: "QuotaExceededError" } }), "a wrapped quota error");
});

test("storage: persistent storage is asked for once, and not when already granted", async () => {
  localStorage.removeItem("rtc-agent:storage-persist-asked");
  let asked = 0;
  let granted = false;
  const fake = { persisted: async () => granted, persist: async () => (asked++, false), estimate: async () => ({}) } as unknown as StorageManager;
  eq(await requestPersistence(fake), false, "refused");
  eq(await requestPersistence(fake), false, "not asked again after a refusal");
  eq(asked, 1);
  localStorage.removeItem("rtc-agent:storage-persist-asked");
  granted = true;
  eq(await requestPersistence(fake), true, "already persistent");
  eq(asked, 1, "nothing asked when already persistent");
  eq(await requestPersistence({} as StorageManager), null, "no API, no answer");
  localStorage.removeItem("rtc-agent:storage-persist-asked");
});
