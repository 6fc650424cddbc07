// Test 7: recovery of the Topic channel after long absences.
//  a) Updates missed while the page was closed: a gap, filled with v1.update.list.
//  b) Missed updates no longer retained (the retention job pruned them): the
//     server answers reset; the page reloads its state with the list methods.
//  c) The epoch changed (history discarded, as after a restore) while the page is
//     open: it reconnects, sees the new epoch, resets, and goes on working.
// The history is changed with streamtool on the stopped server's data file; the
// server offers no way to force this from outside while it runs.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";
import type { BrowserContext } from "playwright-core";

const script = {
  name: "recovery",
  turns: [turn("(?i)offline", [{ text: "Offline reply." }]), turn("(?i).", [{ chunks: ["Reply to: ", "{{user}}"] }])],
};

type Top = { top: number; epoch: string };

async function top(go: GoServer, user: string): Promise<Top> {
  return go.rpc<Top>(user, "probe", "v1.update.list", { since_offset: 0, limit: 1 });
}

/** Another device of the same user talks while the page is closed. */
async function otherDeviceTalks(go: GoServer, user: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await go.rpc<{ session_id: string }>(user, "tablet", "v1.message.send", { client_id: `tablet-${i}`, content: { text: `offline note ${i}` } });
    await until("the tablet's turn to end", async () => !(await go.rpc<{ session: { active_turn_id?: string } }>(user, "tablet", "v1.session.get", { session_id: r.session_id })).session.active_turn_id);
  }
}

async function firstVisit(go: GoServer, ctx: BrowserContext, user: string): Promise<AgentPage> {
  const p = await AgentPage.open(ctx, host.url(go, { user }));
  await p.send("First visit");
  await p.waitForAnswer("Reply to: First visit");
  return p;
}

test("7a gap while the page was closed: filled from v1.update.list", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const user = "gap-user";
  await (await firstVisit(go, ctx, user)).page.close();
  await otherDeviceTalks(go, user, 3);
  const server = await top(go, user);
  const p = await AgentPage.open(ctx, host.url(go, { user }));
  const snap = await until("the page to catch up", async () => {
    const s = await p.snapshot();
    return s.position?.offset === server.top && s.stats.refills > 0 ? s : null;
  });
  eq(snap.stats.resets, 0, "no reset: the stored position was used");
  ok(snap.stats.refilled > 0, `refilled: ${JSON.stringify(snap.stats)}`);
  eq(snap.sessions.length, 4, "the other device's three sessions arrived");
  await p.openSession("offline note 2");
  includes(await p.waitForAnswer("Offline reply."), "Offline reply.");
  ok(await p.page.locator("rtc-agent aside.sessions li", { hasText: "other device" }).count(), "marked as another device's");
});

test("7b history beyond retention: reset, state reloaded, still working", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const user = "pruned-user";
  const first = await firstVisit(go, ctx, user);
  const mine = (await first.snapshot()).sessions[0]!;
  await first.page.close();
  await go.rpc(user, "tablet", "v1.session.update", { session_id: mine.id, title: "Renamed while away" });
  await otherDeviceTalks(go, user, 2);
  await go.kill("SIGTERM");
  const pos = await go.streamtool("-user", user, "prune", "0");
  eq(pos.Floor, pos.Top, "all history pruned");
  await go.start();
  const p = await AgentPage.open(ctx, host.url(go, { user }));
  const snap = await until("the reset", async () => {
    const s = await p.snapshot();
    return s.stats.resets === 1 && s.position?.offset === pos.Top ? s : null;
  });
  eq(snap.stats.lastReset, "history not available");
  eq(snap.sessions.find((s) => s.id === mine.id)?.title, "Renamed while away", "the change made while away is there");
  eq(snap.sessions.length, 3, "all sessions listed");
  await p.openSession("Renamed while away");
  await p.waitForAnswer("Reply to: First visit"); // the conversation was reloaded
  await p.send("After the reset");
  await p.waitForAnswer("Reply to: After the reset");
});

test("7c epoch change while the page is open: reset and continue", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const user = "epoch-user";
  const p = await firstVisit(go, ctx, user);
  const { position: before, stats } = await p.snapshot();
  eq(stats.resets, 1, "one reset so far: the first load");
  await go.kill("SIGTERM");
  const pos = await go.streamtool("-user", user, "reset");
  ok(pos.Epoch !== before!.epoch, "a new epoch");
  await go.start();
  const snap = await until("the reset to the new epoch", async () => {
    const s = await p.snapshot();
    return s.position?.epoch === pos.Epoch && s.stats.resets === 2 ? s : null;
  }, 20_000);
  eq(snap.stats.lastReset, "epoch changed");
  await p.waitForAnswer("Reply to: First visit"); // the conversation is still shown
  await p.send("In the new epoch");
  await p.waitForAnswer("Reply to: In the new epoch");
  const after = (await p.snapshot()).position!;
  eq(after.epoch, pos.Epoch, "stored epoch");
  ok(after.offset > pos.Top, "offsets go on in the new epoch");
});
