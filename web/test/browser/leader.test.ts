// ConnectedLeadership: only a connected tab competes for the executor role; one
// offline past the grace gives it up, but not while a tool body of it runs.

import { ConnectedLeadership, WebLockLeadership } from "../../src/executor/leader.js";
import { eq, ok, test } from "./harness.js";
import { sleep } from "./context.js";
import { waitFor } from "./executor.test.js";

let n = 0;

function pair(busy: { a: boolean }) {
  const name = `test-connected-lock-${n++}-${Math.random()}`;
  const a = new ConnectedLeadership(new WebLockLeadership(navigator.locks, name), { graceMs: 50, busy: async () => busy.a });
  const b = new ConnectedLeadership(new WebLockLeadership(navigator.locks, name), { graceMs: 50 });
  return { a, b };
}

test("leader: a tab that never connects does not take the role from one that does", async () => {
  const { a, b } = pair({ a: false });
  a.start(); // first, but offline
  await sleep(100);
  eq(a.isLeader, false, "offline: not the executor");
  b.start();
  b.setOnline(true);
  await waitFor("the connected tab to lead", () => b.isLeader);
  a.setOnline(true);
  await sleep(100);
  eq(a.isLeader, false, "still one executor");
  b.setOnline(false); // b loses its connection: a takes over after the grace
  await waitFor("the hand-over", () => a.isLeader);
  eq(b.isLeader, false, "b gave the role up");
  a.stop();
  b.stop();
});

test("leader: a short outage keeps the role; a running tool body holds it until it ends", async () => {
  const busy = { a: false };
  const { a, b } = pair(busy);
  a.start();
  a.setOnline(true);
  await waitFor("a leads", () => a.isLeader);
  b.start();
  b.setOnline(true);
  a.setOnline(false);
  a.setOnline(true); // back within the grace
  await sleep(150);
  ok(a.isLeader && !b.isLeader, "a blip changes nothing");
  busy.a = true;
  a.setOnline(false);
  await sleep(300);
  ok(a.isLeader && !b.isLeader, "kept while its tool runs");
  busy.a = false;
  await waitFor("the hand-over once the tool ended", () => b.isLeader, 3000);
  eq(a.isLeader, false, "one executor");
  a.stop();
  b.stop();
});
