// Unit tests of the executor (src/executor/) with a fake server: the journal is
// written before the call is marked executing, a call runs at most once, an
// interrupted call is reported and never re-run, outbox results are resubmitted
// with the same client_id and backoff, refusals, askUser, and the single
// executing tab (Web Locks and the IndexedDB lease).

import { Executor } from "../../src/executor/executor.js";
import { INTERRUPTED, Journal } from "../../src/executor/journal.js";
import { LeaseLeadership, WebLockLeadership, type Leadership } from "../../src/executor/leader.js";
import { MAX_OUTPUT_CHARS, Outbox, resultOutcome } from "../../src/executor/outbox.js";
import { PromptBoard } from "../../src/executor/prompts.js";
import { RpcError, type Rtc, RTC_TERMINAL } from "../../src/protocol/types.js";
import { EntityStore } from "../../src/realtime/entities.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolContext } from "../../src/tools/types.js";
import { VirtualFS } from "../../src/vfs/vfs.js";
import { sleep } from "./context.js";
import { freshDb, rtc, session } from "./entities.test.js";
import { eq, includes, ok, test } from "./harness.js";

let n = 0;

/** A server that keeps RTC states and publishes them into the given stores. */
export class FakeServer {
  rtcs = new Map<string, Rtc>();
  offset = 100;
  stores: EntityStore[] = [];
  calls: { method: string; params: Record<string, unknown>; phase?: string }[] = [];
  journalAt?: Journal;
  call = async <T>(method: string, params: object): Promise<T> => {
    const p = params as Record<string, unknown>;
    const entry: { method: string; params: Record<string, unknown>; phase?: string } = { method, params: p };
    this.calls.push(entry);
    if (method === "v1.rtc.pending") return { rtcs: [...this.rtcs.values()].filter((r) => !RTC_TERMINAL.has(r.status)), offset: this.offset } as T;
    const r = this.rtcs.get(p.rtc_id as string);
    if (!r) throw new RpcError("not_found", "no rtc", false);
    if (method === "v1.rtc.update_status") {
      if (p.status === "executing" && this.journalAt) entry.phase = (await this.journalAt.get(r.id)).journal?.phase;
      if (RTC_TERMINAL.has(r.status)) throw new RpcError("conflict", "terminal", false);
      await this.set(r, { status: p.status as Rtc["status"], ...(p.status === "rejected" ? { error: p.reason as string } : {}) });
    } else if (method === "v1.rtc.submit_result") {
      if (!RTC_TERMINAL.has(r.status)) await this.set(r, p.ok ? { status: "completed", output: p.output, client_id: p.client_id as string } : { status: "failed", error: p.error as string, client_id: p.client_id as string });
    }
    return { rtc: this.rtcs.get(r.id) } as T;
  };
  async deliver(r: Rtc): Promise<void> {
    await this.set(r, {});
  }
  private async set(r: Rtc, change: Partial<Rtc>): Promise<void> {
    const next = { ...r, ...change, offset: ++this.offset };
    this.rtcs.set(r.id, next);
    for (const s of this.stores) await s.merge([{ kind: "rtc", entity: next }]);
  }
  count(method: string, rtcId?: string): number {
    return this.calls.filter((c) => c.method === method && (!rtcId || c.params.rtc_id === rtcId)).length;
  }
}

export interface Tab {
  ex: Executor;
  store: EntityStore;
  journal: Journal;
  prompts: PromptBoard;
  leadership: Leadership;
  runs: string[];
  vfs: VirtualFS;
}

/**
 * One tab's executor on `db`. Sessions s1 and s2 are in bypass mode (nothing asks
 * unless the server says so), s3 in manual and s4 in edit mode.
 */
export async function tab(server: FakeServer, db: IDBDatabase, ns: string, leadership?: Leadership, extra: Partial<ToolContext> = {}): Promise<Tab> {
  const store = new EntityStore(db);
  await store.load();
  if (!store.position()) {
    await store.reset("e1", 0, [session("s1", 1, { work_mode: "bypass" }), session("s2", 2, { work_mode: "bypass" }), session("s3", 3, { work_mode: "manual" }), session("s4", 4, { work_mode: "edit" })]);
  }
  server.stores.push(store);
  const journal = new Journal(db);
  server.journalAt = journal;
  const tools = new ToolRegistry();
  const runs: string[] = [];
  tools.registerHostTool({ name: "counter", description: "counts", parameters: { type: "object" }, handler: (a) => (runs.push(JSON.stringify(a)), `ran ${runs.length}`) });
  const vfs = await VirtualFS.open({ userId: "u", deviceId: `exec-${ns}` });
  const prompts = new PromptBoard(`test-prompts-${ns}`);
  const lead = leadership ?? new WebLockLeadership(navigator.locks, `test-lock-${ns}`);
  const ex = new Executor({ journal, outbox: new Outbox(journal, server.call, { baseMs: 10, capMs: 40 }), call: server.call, store, deviceId: "d1", tabId: `tab-${n++}`, tools, context: () => ({ vfs, ...extra }), prompts, leadership: lead });
  ex.start();
  return { ex, store, journal, prompts, leadership: lead, runs, vfs };
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export const counterCall = (id: string, extra: Partial<Rtc> = {}) => rtc(id, 0, { tool_name: "counter", arguments: { id }, ...extra });
export const done = (t: Tab) => {
  t.ex.stop();
  t.vfs.close();
  t.prompts.dispose();
};

test("executor: journal first, then executing, then the tool once, then the result", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `a${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  await server.deliver(counterCall("r1"));
  await waitFor("the result", () => server.rtcs.get("r1")?.status === "completed");
  eq(t.runs.length, 1, "ran once");
  eq(server.calls.find((c) => c.method === "v1.rtc.update_status")?.phase, "executing", "journal said executing when the server was told");
  eq(server.count("v1.rtc.submit_result", "r1"), 1);
  eq(server.rtcs.get("r1")?.output, "ran 1");
  // The result carries this page's timing of the run, for the server's trace and audit record.
  const ex = server.calls.find((c) => c.method === "v1.rtc.submit_result")?.params.execution as { started_at: string; ended_at: string; outcome: string } | undefined;
  eq(ex?.outcome, "ok", "execution outcome");
  eq(Date.parse(ex!.started_at) <= Date.parse(ex!.ended_at), true, "execution starts before it ends");
  // Seen again (a replayed update, a re-delivery): not run again.
  await t.store.merge([{ kind: "rtc", entity: { ...server.rtcs.get("r1")!, status: "pending", offset: 9999 } }]);
  await t.ex.refresh();
  await sleep(50);
  eq(t.runs.length, 1, "still once");
  done(t);
});

test("executor: a read-only tool runs without update_status executing, once", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `ro${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  await t.vfs.writeFile("/notes.txt", "hello");
  await server.deliver(rtc("r-ls", 0, { tool_name: "ls", arguments: { path: "/" } }));
  await waitFor("the result", () => server.rtcs.get("r-ls")?.status === "completed");
  eq(server.count("v1.rtc.update_status", "r-ls"), 0, "no executing report for ls");
  eq(server.count("v1.rtc.submit_result", "r-ls"), 1);
  includes(String(server.rtcs.get("r-ls")?.output), "notes.txt");
  await waitFor("the acknowledgement", async () => (await t.journal.get("r-ls")).journal?.phase === "acknowledged");
  done(t);
});

test("executor: a call started before a reload is reported interrupted, never re-run", async () => {
  const server = new FakeServer();
  const db = await freshDb();
  const r = counterCall("r2", { status: "executing" });
  server.rtcs.set(r.id, r);
  await new Journal(db).executing({ id: r.id, session_id: r.session_id, tool_name: r.tool_name }, "a tab that died");
  const t = await tab(server, db, `b${n}`);
  await waitFor("the report", () => server.rtcs.get("r2")?.status === "failed");
  eq(server.rtcs.get("r2")?.error, INTERRUPTED);
  eq(t.runs.length, 0, "not run");
  done(t);
});

test("executor: an outcome waiting in the outbox is resubmitted after a reload with its client_id", async () => {
  const server = new FakeServer();
  const db = await freshDb();
  const r = counterCall("r3", { status: "executing" });
  server.rtcs.set(r.id, r);
  const entry = await new Journal(db).finish({ id: r.id, session_id: r.session_id, tool_name: r.tool_name }, "old tab", { kind: "result", ok: true, output: "kept" });
  const t = await tab(server, db, `c${n}`);
  await waitFor("the resubmission", () => server.rtcs.get("r3")?.status === "completed");
  eq(server.rtcs.get("r3")?.client_id, entry!.client_id, "the same client_id");
  eq(server.rtcs.get("r3")?.output, "kept");
  eq(t.runs.length, 0, "not run again");
  // The server's state changes before its answer reaches the outbox, which then drops the entry.
  await waitFor("the acknowledgement", async () => (await t.journal.outbox()).length === 0);
  eq((await t.journal.outbox()).length, 0, "acknowledged: the outbox is empty");
  done(t);
});

test("outbox: text is cut to fit, a host tool's data goes as data, data past the limit fails the call", () => {
  const big = "x".repeat(MAX_OUTPUT_CHARS * 2);
  const cut = resultOutcome({ ok: true, output: big });
  ok(cut.kind === "result" && cut.ok && typeof cut.output === "string" && cut.output.length < big.length, "text cut");
  includes(String(cut.kind === "result" && cut.ok ? cut.output : ""), "characters cut to fit the submission limit");
  eq(resultOutcome({ ok: true, output: '{"n":1}', value: { n: 1 } }), { kind: "result", ok: true, output: { n: 1 } }, "data as data");
  const huge = resultOutcome({ ok: true, output: JSON.stringify([big]), value: [big] }, { started_at: "a", ended_at: "b", outcome: "ok" });
  ok(huge.kind === "result" && !huge.ok, "data past the limit fails");
  includes(huge.kind === "result" && !huge.ok ? huge.error : "", "ask for less");
  eq(huge.kind === "result" ? huge.execution?.outcome : undefined, "error", "and its execution says so");
});

test("outbox: retried with growing backoff and the same client_id until acknowledged", async () => {
  const db = await freshDb();
  const journal = new Journal(db);
  const attempts: { at: number; id: unknown }[] = [];
  const call = async <T>(_m: string, p: object): Promise<T> => {
    attempts.push({ at: performance.now(), id: (p as { client_id: unknown }).client_id });
    if (attempts.length < 4) throw new RpcError("network", "offline", true);
    return {} as T;
  };
  const box = new Outbox(journal, call, { baseMs: 20, capMs: 1000 });
  await journal.finish({ id: "o1", session_id: "s1", tool_name: "write" }, "t", { kind: "result", ok: true, output: "x" });
  const acked = new Promise<void>((resolve) => box.events.on("acknowledged", () => resolve()));
  box.start();
  await acked;
  box.stop();
  eq(attempts.length, 4);
  eq(new Set(attempts.map((a) => a.id)).size, 1, "one client_id");
  const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
  ok(gaps[0]! >= 18 && gaps[1]! >= 38 && gaps[2]! >= 78, `backoff 20, 40, 80 ms: ${gaps.map(Math.round)}`);
  eq((await journal.outbox()).length, 0);
});

test("outbox: an outcome nobody can take (conflict) is dropped; a too large one becomes an error", async () => {
  const db = await freshDb();
  const journal = new Journal(db);
  const sent: Record<string, unknown>[] = [];
  const call = async <T>(_m: string, p: object): Promise<T> => {
    const params = p as Record<string, unknown>;
    sent.push(params);
    if (params.rtc_id === "gone") throw new RpcError("conflict", "ended", false);
    if (params.ok === true) throw new RpcError("too_large", "too big", false);
    return {} as T;
  };
  const box = new Outbox(journal, call, { baseMs: 10 });
  const dropped: string[] = [];
  box.events.on("acknowledged", (a) => dropped.push(`${a.rtcId}:${a.dropped ? "dropped" : "ok"}`));
  await journal.finish({ id: "gone", session_id: "s", tool_name: "x" }, "t", { kind: "reject", reason: "no" });
  await journal.finish({ id: "big", session_id: "s", tool_name: "x" }, "t", { kind: "result", ok: true, output: "…" });
  box.start();
  await waitFor("both settled", () => dropped.length === 2);
  box.stop();
  eq(dropped.sort(), ["big:ok", "gone:dropped"]);
  const big = sent.filter((s) => s.rtc_id === "big");
  eq(big.map((s) => s.ok), [true, false], "resent as a failure");
  includes(String(big[1]!.error), "too large");
});

test("executor: a refused confirmation is reported rejected; the tool never runs", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `d${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  await server.deliver(counterCall("r4", { needs_confirmation: true }));
  await waitFor("the prompt", () => t.prompts.list().length === 1);
  eq(server.rtcs.get("r4")?.status, "sent", "marked sent while the person decides");
  t.prompts.answer("r4", { type: "confirm", approved: false });
  await waitFor("the refusal", () => server.rtcs.get("r4")?.status === "rejected");
  includes(server.rtcs.get("r4")!.error!, "declined");
  eq(t.runs.length, 0);
  done(t);
});

test("executor: askUser answers become the output", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `e${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const questions = [{ question: "Size?", options: [{ label: "Small" }, { label: "Large" }] }];
  await server.deliver(rtc("r5", 0, { tool_name: "askUser", arguments: { questions } }));
  await waitFor("the form", () => t.prompts.list().length === 1);
  eq(t.prompts.get("r5")?.questions, questions, "the prompt carries its checked questions (typed AskQuestion[])");
  t.prompts.answer("r5", { type: "ask", answers: [{ question: "Size?", selected: ["Large"], other: "extra large" }] });
  await waitFor("the answer", () => server.rtcs.get("r5")?.status === "completed");
  eq(server.rtcs.get("r5")?.output, "The user answered:\nQ: Size?\nA: Large, (other) extra large");
  await server.deliver(rtc("r6", 0, { tool_name: "askUser", arguments: { questions: [] } }));
  await waitFor("the invalid call to fail", () => server.rtcs.get("r6")?.status === "failed");
  includes(server.rtcs.get("r6")!.error!, "Invalid arguments for askUser");
  done(t);
});

test("executor: two tabs with Web Locks: only the holder executes; the other takes over", async () => {
  const server = new FakeServer();
  const db = await freshDb();
  const ns = `f${n}`;
  const a = await tab(server, db, ns);
  const b = await tab(server, db, ns, new WebLockLeadership(navigator.locks, `test-lock-${ns}`));
  await waitFor("one leader", () => a.ex.isLeader !== b.ex.isLeader);
  const [lead, other] = a.ex.isLeader ? [a, b] : [b, a];
  for (const id of ["r7", "r8"]) await server.deliver(counterCall(id, { session_id: id === "r7" ? "s1" : "s2" }));
  await waitFor("both done", () => server.rtcs.get("r7")?.status === "completed" && server.rtcs.get("r8")?.status === "completed");
  eq([lead.runs.length, other.runs.length], [2, 0]);
  lead.ex.stop();
  await waitFor("the hand-over", () => other.ex.isLeader);
  await server.deliver(counterCall("r9"));
  await waitFor("run by the new leader", () => server.rtcs.get("r9")?.status === "completed");
  eq([lead.runs.length, other.runs.length], [2, 1]);
  // Executions are exactly one per call (above). Submissions may repeat: a result
  // whose acknowledgement the old leader had not yet recorded when it stopped is
  // resubmitted by the new leader with the same client_id, which the server
  // answers with the stored outcome.
  const submits = server.count("v1.rtc.submit_result");
  ok(submits >= 3 && submits <= 5, `submissions ${submits}: at least one per call, resubmits bounded`);
  done(a);
  done(b);
});

test("leader: without Web Locks the IndexedDB lease elects one tab and hands over", async () => {
  const db = await freshDb();
  const opts = { ttlMs: 300, renewMs: 40 };
  const a = new LeaseLeadership(db, "lease", "tab-a", opts);
  const b = new LeaseLeadership(db, "lease", "tab-b", opts);
  a.start();
  b.start();
  await waitFor("a leader", () => a.isLeader || b.isLeader);
  for (let i = 0; i < 10; i++) {
    ok(a.isLeader !== b.isLeader, "never both, never none");
    await sleep(30);
  }
  const [lead, other] = a.isLeader ? [a, b] : [b, a];
  lead.stop();
  await waitFor("the hand-over", () => other.isLeader, 2000);
  ok(!lead.isLeader, "the stopped tab is not leader");
  other.stop();
});

test("executor: malformed arguments end as tool errors; the executor goes on", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `m${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const huge = "x".repeat(2 * 1024 * 1024); // over the 1 MiB file limit
  const cases: [string, string, unknown, string][] = [
    // id, tool, arguments, what the error says
    ["bad-json", "write", '{"path": ', "expected a JSON object, got string"], // invalid JSON from the model arrives as a string
    ["array", "read", [1, 2], "expected a JSON object, got array"],
    ["number", "ls", 42, "expected a JSON object, got number"],
    ["wrong-type", "write", { path: 7, content: "x" }, '"path" must be a string'],
    ["missing", "edit", {}, '"path" is required'],
    ["bad-int", "read", { path: "/a.txt", offset: 1e300 }, '"offset" must be an integer'],
    ["bad-bool", "edit", { path: "/a.txt", old_string: "a", new_string: "b", replace_all: "yes" }, '"replace_all" must be true or false'],
    ["bad-regex", "grep", { pattern: "(" }, "Invalid"],
    ["huge-content", "write", { path: "/big.txt", content: huge }, "EFBIG"],
    ["huge-path", "write", { path: "/" + "p".repeat(100_000), content: "x" }, "ENAMETOOLONG"],
    ["traversal", "read", { path: "/../etc/passwd" }, "EINVAL"],
    ["unknown", "noSuchTool", {}, "unknown tool"],
    // Arguments the server cut (docs/protocol.md): a JSON string; a host tool's handler never sees it.
    ["host-cut", "counter", '{"id": "host-cut", "pad": "xxxx… [cut: 300000 bytes more]', "Invalid arguments for counter: expected a JSON object, got string"],
    ["ask", "askUser", { questions: "what?" }, "Invalid arguments for askUser"],
  ];
  for (const [id, tool, args] of cases) await server.deliver(rtc(id, 0, { tool_name: tool, arguments: args as Rtc["arguments"] }));
  await server.deliver(counterCall("after"));
  await waitFor("every call to end", () => [...cases.map((c) => c[0]), "after"].every((id) => RTC_TERMINAL.has(server.rtcs.get(id)?.status ?? "pending")), 15_000);
  for (const [id, tool, , says] of cases) {
    const r = server.rtcs.get(id)!;
    eq(r.status, "failed", `${id} (${tool}) failed`);
    includes(r.error ?? "", says);
  }
  eq(server.rtcs.get("after")?.status, "completed", "the executor still runs calls after the malformed ones");
  eq(t.runs.length, 1, "the host tool ran once");
  ok(!(await t.vfs.exists("/big.txt")), "nothing was written");
  done(t);
});

test("executor: a chat continued on another device takes its open question there; one moved here is asked here", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `mv${n}`);
  await waitFor("leadership", () => t.ex.isLeader);
  // s4 (edit mode) is this device's: a write asks here.
  await server.deliver(rtc("m1", 0, { session_id: "s4", tool_name: "write", arguments: { path: "/a.md", content: "x" }, needs_confirmation: true }));
  await waitFor("the question", () => t.prompts.list().some((p) => p.id === "m1"));
  await t.store.merge([{ kind: "session", entity: session("s4", 600, { work_mode: "edit", device_id: "d2" }) }]);
  await waitFor("the question to go", () => !t.prompts.list().some((p) => p.id === "m1"));
  eq(server.count("v1.rtc.update_status", "m1") <= 1, true, "nothing was claimed or answered for it here");
  eq(server.rtcs.get("m1")?.status !== "rejected", true, "the question was withdrawn here, not declined");
  await waitFor("its work here to end", () => !(t.ex as unknown as { inFlight: Set<string> }).inFlight.has("m1"));
  // Moved back: the open call is asked here again.
  await t.store.merge([{ kind: "session", entity: session("s4", 601, { work_mode: "edit", device_id: "d1" }) }]);
  await waitFor("asked here again", () => t.prompts.list().some((p) => p.id === "m1"));
  t.prompts.answer("m1", { type: "confirm", approved: true });
  await waitFor("the write", () => server.rtcs.get("m1")?.status === "completed");
  done(t);
});
