// Unit tests of the Topic channel rules (src/realtime/topic.ts) against a fake
// server: duplicates, gaps, buffering during a refill, epoch changes, reset from
// v1.update.list, the subscribed rules and retries after a failure.

import type { Session, Update } from "../../src/protocol/types.js";
import { RpcError } from "../../src/protocol/types.js";
import type { Position } from "../../src/state/db.js";
import { TopicSync, type Call, type TopicTarget } from "../../src/realtime/topic.js";
import { eq, ok, test } from "./harness.js";
import { sleep } from "./context.js";

const upd = (offset: number, epoch = "e1"): Update => ({ offset, epoch, changes: [{ type: "turn.updated", data: { id: `t${offset}`, offset } }] });

class Target implements TopicTarget {
  applied: number[] = [];
  resets: { epoch: string; offset: number; sessions: number }[] = [];
  constructor(public pos: Position | null) {}
  position(): Position | null {
    return this.pos ? { ...this.pos } : null;
  }
  async apply(us: Update[]): Promise<void> {
    for (const u of us) {
      if (!this.pos || u.offset !== this.pos.offset + 1) throw new Error(`apply out of order: ${u.offset} at ${this.pos?.offset}`);
      this.applied.push(u.offset);
      this.pos = { epoch: this.pos.epoch, offset: u.offset };
    }
  }
  async reset(epoch: string, offset: number, sessions: Session[]): Promise<void> {
    this.resets.push({ epoch, offset, sessions: sessions.length });
    this.pos = { epoch, offset };
  }
}

class Server {
  epoch = "e1";
  top = 0;
  floor = 0;
  delayMs = 0;
  failNext = 0;
  calls: { method: string; params: Record<string, unknown> }[] = [];
  constructor(top: number) {
    this.top = top;
  }
  call = async <T>(method: string, params: object): Promise<T> => {
    const p = params as Record<string, unknown>;
    this.calls.push({ method, params: p });
    if (this.delayMs) await sleep(this.delayMs);
    if (this.failNext > 0) {
      this.failNext--;
      throw new RpcError("network", "disconnected", true);
    }
    if (method === "v1.update.list") {
      const since = p.since_offset as number;
      const limit = (p.limit as number) ?? 200;
      const reset = (typeof p.epoch === "string" && p.epoch !== this.epoch) || since < this.floor || since > this.top;
      const updates: Update[] = [];
      for (let o = since + 1; !reset && o <= this.top && updates.length < limit; o++) updates.push(upd(o, this.epoch));
      return { epoch: this.epoch, top: this.top, updates, reset } as T;
    }
    if (method === "v1.session.list") return { sessions: [{ id: "s1" }, { id: "s2" }], offset: this.top } as T;
    throw new Error(`unexpected ${method}`);
  };
  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }
}

test("topic: in-order updates applied, duplicates dropped, no calls", async () => {
  const t = new Target({ epoch: "e1", offset: 5 });
  const s = new Server(7);
  const sync = new TopicSync(t, s.call);
  let dups = 0;
  sync.events.on("duplicate", () => dups++);
  for (const o of [6, 6, 5, 7, 3]) await sync.publication(upd(o));
  eq(t.applied, [6, 7]);
  eq(dups, 3, "duplicates");
  eq(s.calls.length, 0, "no server calls");
});

test("topic: a gap is filled from v1.update.list with the stored offset and epoch", async () => {
  const t = new Target({ epoch: "e1", offset: 5 });
  const s = new Server(10);
  const sync = new TopicSync(t, s.call);
  await sync.publication(upd(9));
  eq(s.calls[0], { method: "v1.update.list", params: { since_offset: 5, epoch: "e1", limit: 200 } });
  eq(t.applied, [6, 7, 8, 9, 10], "everything the server had, in order");
  await sync.publication(upd(10));
  await sync.publication(upd(8));
  eq(t.applied, [6, 7, 8, 9, 10], "later copies dropped");
});

test("topic: publications arriving during a refill wait and apply once, in order", async () => {
  const t = new Target({ epoch: "e1", offset: 1 });
  const s = new Server(12);
  s.delayMs = 30;
  const sync = new TopicSync(t, s.call);
  await Promise.all([sync.publication(upd(10)), sync.publication(upd(11)), sync.publication(upd(12)), sync.publication(upd(11))]);
  eq(t.applied, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  ok(s.count("v1.update.list") >= 1, "refilled");
});

test("topic: large gaps are fetched in pages", async () => {
  const t = new Target({ epoch: "e1", offset: 0 });
  const s = new Server(451);
  const sync = new TopicSync(t, s.call, { pageLimit: 200 });
  let refill: unknown;
  sync.events.on("refill", (r) => (refill = r));
  await sync.publication(upd(451));
  eq(t.applied.length, 451);
  eq(s.count("v1.update.list"), 3, "pages of 200, 200, 51");
  eq(refill, { from: 0, to: 451, count: 451 });
});

test("topic: another epoch on a publication resets: lists reloaded, new epoch and offset stored", async () => {
  const t = new Target({ epoch: "e1", offset: 5 });
  const s = new Server(3);
  s.epoch = "e2";
  const sync = new TopicSync(t, s.call);
  const reasons: string[] = [];
  sync.events.on("reset", (r) => reasons.push(r.reason));
  await sync.publication(upd(4, "e2"));
  eq(t.resets, [{ epoch: "e2", offset: 3, sessions: 2 }]);
  eq(reasons, ["epoch changed"]);
  eq(t.applied, [4], "the publication after the snapshot is applied");
  eq(t.pos, { epoch: "e2", offset: 4 });
});

test("topic: history no longer retained: v1.update.list says reset, state is reloaded", async () => {
  const t = new Target({ epoch: "e1", offset: 2 });
  const s = new Server(10);
  s.floor = 8;
  const sync = new TopicSync(t, s.call);
  const reasons: string[] = [];
  sync.events.on("reset", (r) => reasons.push(r.reason));
  await sync.publication(upd(10));
  eq(reasons, ["history not available"]);
  eq(t.pos, { epoch: "e1", offset: 10 }, "the snapshot covers 10: the publication is a duplicate");
  eq(t.applied, []);
});

test("topic: subscribed without recovery compares positions (equal, ahead, behind, other epoch, none)", async () => {
  const cases: [Position | null, Position, string][] = [
    [{ epoch: "e1", offset: 7 }, { epoch: "e1", offset: 7 }, "in sync"],
    [{ epoch: "e1", offset: 4 }, { epoch: "e1", offset: 7 }, "refill"],
    [{ epoch: "e1", offset: 9 }, { epoch: "e1", offset: 7 }, "reset:server behind the local position"],
    [{ epoch: "e0", offset: 7 }, { epoch: "e1", offset: 7 }, "reset:epoch changed"],
    [null, { epoch: "e1", offset: 7 }, "reset:no local state"],
  ];
  for (const [stored, sp, want] of cases) {
    const t = new Target(stored);
    const s = new Server(7);
    const sync = new TopicSync(t, s.call);
    let got = "in sync";
    sync.events.on("reset", (r) => (got = `reset:${r.reason}`));
    sync.events.on("refill", () => (got = "refill"));
    await sync.subscribed(false, sp);
    eq(got, want, `stored ${JSON.stringify(stored)} vs server ${JSON.stringify(sp)}`);
    eq(t.pos, { epoch: "e1", offset: 7 }, "position after");
  }
  const t = new Target({ epoch: "e1", offset: 3 });
  const s = new Server(7);
  await new TopicSync(t, s.call).subscribed(true, { epoch: "e1", offset: 7 });
  eq(s.calls.length, 0, "recovered: the missed publications follow, nothing to fetch");
});

test("topic: a failed refill is retried until caught up", async () => {
  const t = new Target({ epoch: "e1", offset: 1 });
  const s = new Server(5);
  s.failNext = 2;
  const sync = new TopicSync(t, s.call, { retryBaseMs: 10 });
  const errors: unknown[] = [];
  sync.events.on("error", (e) => errors.push(e));
  await sync.publication(upd(5));
  eq(errors.length, 1, "the first attempt failed");
  for (let i = 0; i < 100 && t.pos!.offset < 5; i++) await sleep(10);
  eq(t.applied, [2, 3, 4, 5], "caught up by the retries");
  eq(errors.length, 2, "one more failure on the way");
  sync.close();
});

test("topic: the SDK's internal calls are typed by the method map of agent.call", async () => {
  const server = new Server(3);
  const call: Call = server.call;
  // These lines are checked by `npm run typecheck`: a misspelt method or a wrong
  // parameter does not compile, and a result has its method's type.
  // @ts-expect-error no such method
  const misspelt = () => call("v1.update.lst", { since_offset: 0 });
  // @ts-expect-error v1.update.list takes since_offset
  const wrongParam = () => call("v1.update.list", { since: 0 });
  void misspelt;
  void wrongParam;
  const res = await call("v1.update.list", { since_offset: 1, limit: 10 });
  const top: number = res.top;
  eq(top, 3);
  eq(res.updates.map((u) => u.offset), [2, 3]);
});
