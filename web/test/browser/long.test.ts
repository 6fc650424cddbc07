// Long sessions in the browser: the /compact command, /AGENT.md (read and cap),
// usage and cost figures, the idempotent call helper, and the chat UI fed with
// Topic updates (summary card, Retry, usage in the header, closed sessions,
// fork). The UI runs on a real Agent whose entity store receives the updates;
// the agent is not connected, so nothing here reaches a server.

import { AgentCore as Agent, callIdempotent } from "../../src/agent/agent.js";
import { AGENT_MD_MAX_BYTES, capAgentMd, readAgentMd, VIEW_CONTEXT_MAX, VIEW_CONTEXT_MAX_BYTES, viewsToSend } from "../../src/agent/context.js";
import { RpcError, type Message, type Rtc, type Session, type Turn, type Update } from "../../src/protocol/types.js";
import { EntityStore } from "../../src/realtime/entities.js";
import { Ui } from "../../src/ui/app.js";
import { parseCommand } from "../../src/ui/commands.js";
import { formatCost, formatTokens, sessionUsage } from "../../src/ui/usage.js";
import { VirtualFS } from "../../src/vfs/vfs.js";
import { sleep } from "./context.js";
import { freshDb, session } from "./entities.test.js";
import { eq, includes, ok, test } from "./harness.js";

const bytes = (s: string) => new TextEncoder().encode(s).length;

test("commands: /compact with and without what to keep; other text is a message", () => {
  eq(parseCommand("/compact"), { name: "compact" });
  eq(parseCommand("  /compact  "), { name: "compact" });
  eq(parseCommand("/compact keep the names\nand the dates"), { name: "compact", instruction: "keep the names\nand the dates" });
  eq(parseCommand("/compactly"), null, "only the whole word");
  eq(parseCommand("please /compact"), null, "only at the start");
  eq(parseCommand("/etc/hosts is missing"), null);
  eq(parseCommand("/COMPACT"), null, "commands are lower case");
});

test("AGENT.md: kept whole within 32 KiB; a longer file is cut at a character boundary and says so", () => {
  eq(AGENT_MD_MAX_BYTES, 32 * 1024);
  eq(capAgentMd("short"), "short");
  const exact = "a".repeat(AGENT_MD_MAX_BYTES);
  eq(capAgentMd(exact), exact, "exactly the limit is not cut");
  const long = "é".repeat(AGENT_MD_MAX_BYTES); // two bytes each: 64 KiB
  const cut = capAgentMd(long);
  ok(bytes(cut) <= AGENT_MD_MAX_BYTES, `within the limit: ${bytes(cut)}`);
  ok(bytes(cut) > AGENT_MD_MAX_BYTES - 200, "keeps almost everything that fits");
  ok(!cut.includes("\uFFFD"), "no broken character");
  const m = /\n\n\[AGENT\.md truncated: the first (\d+) of (\d+) bytes are shown; the rest is left out\.\]$/.exec(cut);
  ok(m, `the note ends the text: ${JSON.stringify(cut.slice(-120))}`);
  eq(Number(m![2]), bytes(long), "the note gives the full size");
  eq(bytes(cut.slice(0, cut.indexOf("\n\n[AGENT.md"))), Number(m![1]), "and how much is shown");
  const emoji = capAgentMd("😀".repeat(100), 101); // four bytes each
  ok(bytes(emoji) <= 101 && !emoji.includes("\uFFFD"), `tiny limits hold too: ${emoji}`);
});

test("views' contexts: the newest that fit the server's limits go, oldest first", () => {
  eq(viewsToSend(new Map()), [], "none kept: none sent");
  const kept = new Map<string, string>();
  for (let i = 0; i < VIEW_CONTEXT_MAX + 2; i++) kept.set(`r${i}`, `view ${i}`);
  const sent = viewsToSend(kept);
  eq(sent.length, VIEW_CONTEXT_MAX, "at most the server's number");
  eq(sent[0]!.rtc_id, "r2", "the oldest are left out");
  eq(sent.at(-1), { rtc_id: `r${VIEW_CONTEXT_MAX + 1}`, text: `view ${VIEW_CONTEXT_MAX + 1}` }, "the newest goes last");
  const big = new Map([
    ["old", "é".repeat(VIEW_CONTEXT_MAX_BYTES / 4)],
    ["mid", "a".repeat(VIEW_CONTEXT_MAX_BYTES / 2)],
    ["new", "b".repeat(VIEW_CONTEXT_MAX_BYTES / 4)],
  ]);
  eq(viewsToSend(big).map((v) => v.rtc_id), ["mid", "new"], "the newest within the bytes together (UTF-8)");
});

test("views' contexts: kept per chat, the latest of each view, sent once with the next message", async () => {
  const r = await rig();
  const agent = r.agent;
  const sent: unknown[] = [];
  (agent as unknown as { conn: { call: (m: string, p: unknown) => Promise<unknown> } }).conn.call = async (_m, p) => {
    sent.push(p);
    return { session_id: "s1", message_id: "m", turn_id: "t" };
  };
  try {
    ok(agent.setViewContext("s1", "r1", "first"));
    ok(agent.setViewContext("s1", "r1", "latest"));
    ok(agent.setViewContext("s2", "r9", "another chat's"));
    ok(!agent.setViewContext("s1", "r2", "x".repeat(VIEW_CONTEXT_MAX_BYTES + 1)), "too large to keep");
    await agent.send("hello", { sessionId: "s1" });
    await agent.send("again", { sessionId: "s1" });
    const ctx = (i: number) => (sent[i] as { context?: { views?: unknown } }).context?.views;
    eq(ctx(0), [{ rtc_id: "r1", text: "latest" }], "the latest of the chat's view");
    eq(ctx(1), undefined, "sent once");

    // Contexts the server refuses are dropped: the message goes without them.
    const conn = (agent as unknown as { conn: { call: (m: string, p: unknown) => Promise<unknown> } }).conn;
    const answer = conn.call;
    conn.call = async (m, p) => {
      if ((p as { context?: { views?: unknown } }).context?.views) {
        sent.push(p);
        throw new RpcError("invalid_argument", "context.views[0].rtc_id names no tool view of this chat", false);
      }
      return answer(m, p);
    };
    ok(agent.setViewContext("s1", "r3", "refused"));
    const res = await agent.send("still sent", { sessionId: "s1" });
    eq(res.session_id, "s1", "the message went");
    eq(ctx(2), [{ rtc_id: "r3", text: "refused" }], "first with the context");
    eq(ctx(3), undefined, "then without it");
    ok((sent[3] as { client_id: string }).client_id !== (sent[2] as { client_id: string }).client_id, "as a new message");
  } finally {
    await r.close();
  }
});

test("AGENT.md: read from the virtual file system (missing, empty, present, too long)", async () => {
  const device = `agentmd-${Date.now()}`;
  const vfs = await VirtualFS.open({ userId: "long-test", deviceId: device });
  try {
    eq(await readAgentMd(vfs), undefined, "no file: nothing to send");
    await vfs.writeFile("/AGENT.md", "  \n");
    eq(await readAgentMd(vfs), undefined, "blank: nothing to send");
    await vfs.writeFile("/AGENT.md", "# Shop\nPrices are in euros.");
    eq(await readAgentMd(vfs), "# Shop\nPrices are in euros.");
    await vfs.writeFile("/AGENT.md", "x".repeat(100_000));
    const capped = (await readAgentMd(vfs))!;
    ok(bytes(capped) <= AGENT_MD_MAX_BYTES, "capped");
    includes(capped, "of 100000 bytes are shown");
    await vfs.remove("/AGENT.md");
    await vfs.mkdir("/AGENT.md");
    eq(await readAgentMd(vfs), undefined, "a directory of that name is not read");
  } finally {
    vfs.close();
    await VirtualFS.deleteDatabase("long-test", device);
  }
});

test("usage: tokens and cost for people; the header line with and without a known cost", () => {
  eq([0, 950, 1000, 12_345, 123_456, 999_499, 999_500, 1_234_567].map(formatTokens), ["0", "950", "1k", "12.3k", "123k", "999k", "1M", "1.2M"]);
  eq([0, 0.00001, 0.0042, 0.01234567, 1.5, 12.345].map(formatCost), ["$0", "<$0.0001", "$0.0042", "$0.0123", "$1.50", "$12.35"]);
  const s = session("s1", 1);
  eq(sessionUsage(s), null, "nothing before the first model call");
  const known = sessionUsage({ ...s, usage: { input_tokens: 12_345, output_tokens: 678, cost_usd: 0.0123 }, context_tokens: 4500 })!;
  eq(known.text, "12.3k in · 678 out · $0.0123 · context 4.5k");
  includes(known.title, "12,345 in, 678 out");
  includes(known.title, "$0.012300");
  const unknown = sessionUsage({ ...s, usage: { input_tokens: 100, output_tokens: 20 }, context_tokens: 100 })!;
  eq(unknown.text, "100 in · 20 out · context 100", "no cost shown when the server does not know it");
  includes(unknown.title, "Cost: unknown");
});

test("idempotent calls: every attempt carries the same client_id; refusals are not repeated", async () => {
  const seen: string[] = [];
  let failures = 2;
  const flaky = async <R>(method: string, params: object): Promise<R> => {
    seen.push(`${method}:${(params as { client_id: string }).client_id}`);
    if (failures-- > 0) throw new RpcError("network", "the call did not reach the server", true);
    return { turn_id: "t2" } as R;
  };
  const res = await callIdempotent<{ turn_id: string }>(flaky, "v1.turn.retry", { client_id: "c-1", turn_id: "t1" }, { baseMs: 5 });
  eq(res.turn_id, "t2");
  eq(seen, ["v1.turn.retry:c-1", "v1.turn.retry:c-1", "v1.turn.retry:c-1"], "three attempts, one key");

  let calls = 0;
  const refusing = async <R>(): Promise<R> => {
    calls++;
    throw new RpcError("conflict", "the latest turn did not fail", false);
  };
  let err: unknown;
  await callIdempotent(refusing, "v1.turn.retry", { client_id: "c-2" }, { baseMs: 5 }).catch((e: unknown) => (err = e));
  ok(err instanceof RpcError && err.code === "conflict", "the refusal reaches the caller");
  eq(calls, 1, "a refusal is final");

  let attempts = 0;
  const down = async <R>(): Promise<R> => {
    attempts++;
    throw new RpcError("unavailable", "try again", true);
  };
  await callIdempotent(down, "v1.message.send", { client_id: "c-3" }, { baseMs: 1, attempts: 3 }).catch(() => undefined);
  eq(attempts, 3, "gives up after its attempts");
});

// ---- the chat UI on a real agent fed with Topic updates ------------------------

const T0 = Date.parse("2026-03-01T10:00:00Z");
export const at = (n: number) => new Date(T0 + n * 1000).toISOString();

export interface Rig {
  agent: Agent;
  ui: Ui;
  root: ShadowRoot;
  host: HTMLElement;
  /** Applies entities as the next Topic update: one commit, all at its offset. */
  push: (...items: [type: string, data: object][]) => Promise<void>;
  /** Polls `cond` on the rendered UI. */
  until: (what: string, cond: () => unknown) => Promise<void>;
  q: <E extends Element = HTMLElement>(sel: string) => E | null;
  qa: (sel: string) => HTMLElement[];
  mine: (id: string, offset: number, extra?: Partial<Session>) => Session;
  close: () => Promise<void>;
}

let rigs = 0;

export async function rig(): Promise<Rig> {
  const n = rigs++;
  const device = `ui-device-${Date.now()}-${n}`;
  const user = `ui-user-${n}`;
  const db = await freshDb();
  await new EntityStore(db).reset("e1", 0, []);
  const vfs = await VirtualFS.open({ userId: user, deviceId: device });
  // serverUrl points nowhere: the agent is never connected.
  const agent = new Agent({ getToken: async () => null, serverUrl: "http://127.0.0.1:9" }, user, device, db, vfs);
  for (let i = 0; i < 200 && !agent.store.position(); i++) await sleep(5);
  const host = document.createElement("div");
  host.style.cssText = "position: fixed; left: 0; top: 0; width: 1000px; height: 700px;";
  document.body.append(host);
  const root = host.attachShadow({ mode: "open" });
  const ui = new Ui(root);
  ui.attach(agent, "Test");
  let offset = 0;
  const r: Rig = {
    agent,
    ui,
    root,
    host,
    push: async (...items) => {
      offset++;
      const update: Update = { offset, epoch: "e1", changes: items.map(([type, data]) => ({ type, data: { ...data, offset } })) };
      await agent.store.apply([update]);
    },
    until: async (what, cond) => {
      for (let i = 0; i < 200; i++) {
        if (cond()) return ok(true);
        await sleep(10);
      }
      ok(false, `timed out waiting for ${what}`);
    },
    q: (sel) => root.querySelector(sel),
    qa: (sel) => [...root.querySelectorAll<HTMLElement>(sel)],
    mine: (id, o, extra = {}) => session(id, o, { device_id: device, user_id: user, ...extra }),
    close: async () => {
      ui.dispose();
      agent.destroy();
      host.remove();
      await VirtualFS.deleteDatabase(user, device);
    },
  };
  return r;
}

export const msg = (id: string, seq: number, role: Message["role"], text: string, extra: Partial<Message> = {}): Message => ({
  id,
  session_id: "s1",
  turn_id: "t1",
  user_id: "ui-user",
  seq,
  role,
  text,
  status: "complete",
  created_at: at(seq),
  updated_at: at(seq),
  offset: 0,
  ...extra,
});

export const turnOf = (id: string, seq: number, status: Turn["status"], extra: Partial<Turn> = {}): Turn => ({
  id,
  session_id: "s1",
  user_id: "ui-user",
  seq,
  user_message_id: `u-${id}`,
  status,
  step: 1,
  created_at: at(seq),
  updated_at: at(seq),
  offset: 0,
  ...extra,
});

/** Selects a session through the session list, as a person would. */
export async function open(r: Rig, id: string): Promise<void> {
  await r.until("the session in the list", () => r.q(`aside.sessions li[data-id="${id}"]`));
  r.q(`aside.sessions li[data-id="${id}"]`)!.click();
  await r.until("the conversation shown", () => r.q(".messages .msg"));
}

test("UI: a compaction summary is a collapsed card below the messages it summarises", async () => {
  const r = await rig();
  try {
    await r.push(
      ["session.created", r.mine("s1", 0)],
      ["message.created", msg("m1", 1, "user", "Plan a trip to Lisbon")],
      ["message.created", msg("m2", 2, "assistant", "Here is a plan with **three days**.")],
      ["turn.created", turnOf("t1", 1, "completed")],
    );
    await open(r, "s1");
    await r.push(
      ["turn.created", turnOf("t2", 2, "running", { kind: "compact" })],
      ["session.updated", r.mine("s1", 0, { active_turn_id: "t2" })],
    );
    await r.until("the compaction shown as working", () => r.q(".thinking")?.textContent === "Summarising the conversation");
    await r.push(["message.created", msg("m3", 3, "summary", "The user plans **Lisbon**, three days.", { turn_id: "t2", summary_of_seq: 2 })]);
    await r.until("the summary card", () => r.q(".msg.summary"));
    const card = r.q<HTMLDetailsElement>("details.msg.summary")!;
    eq(card.open, false, "collapsed by default");
    eq(card.querySelector("summary .label")?.textContent, "Earlier conversation summarised");
    includes(card.querySelector("summary")!.textContent!, "instead of 2 earlier messages");
    eq(r.qa(".messages > .msg").map((e) => e.dataset.id), ["m1", "m2", "m3"], "the summarised messages stay above the card");
    card.querySelector("summary")!.click();
    eq(card.open, true, "opens on click");
    includes(card.querySelector(".md strong")?.textContent ?? "", "Lisbon", "the summary is Markdown");
    // An update of the card (the session, the turn end) keeps it open.
    await r.push(["turn.updated", turnOf("t2", 2, "completed", { kind: "compact" })], ["session.updated", r.mine("s1", 0)], ["message.updated", msg("m3", 3, "summary", "The user plans **Lisbon**, four days.", { turn_id: "t2", summary_of_seq: 2 })]);
    await r.until("the new summary text", () => r.q(".msg.summary .md")?.textContent?.includes("four days"));
    eq(r.q<HTMLDetailsElement>("details.msg.summary")!.open, true, "still open after a re-render");
    eq(r.q(".thinking"), null, "no longer working");
  } finally {
    await r.close();
  }
});

test("UI: the summary counts the messages it stands for turn by turn, not by seq alone", async () => {
  const r = await rig();
  try {
    // m3 was sent while t1 ran: a lower seq than t1's last answer, but in turn t2.
    await r.push(
      ["session.created", r.mine("s1", 0)],
      ["turn.created", turnOf("t1", 1, "completed")],
      ["turn.created", turnOf("t2", 2, "completed")],
      ["message.created", msg("m1", 1, "user", "one")],
      ["message.created", msg("m2", 2, "assistant", "working on one")],
      ["message.created", msg("m3", 3, "user", "two", { turn_id: "t2" })],
      ["message.created", msg("m4", 4, "assistant", "one is done")],
      ["message.created", msg("m5", 5, "assistant", "two is done", { turn_id: "t2" })],
      ["turn.created", turnOf("t3", 3, "completed", { kind: "compact" })],
      ["message.created", msg("m6", 6, "summary", "One was done.", { turn_id: "t3", summary_of_seq: 4 })],
    );
    await open(r, "s1");
    await r.until("the card", () => r.q(".msg.summary"));
    includes(r.q(".msg.summary summary")!.textContent!, "instead of 3 earlier messages", "m1, m2 and m4; m3 and m5 stay for the model");
  } finally {
    await r.close();
  }
});

test("UI: Retry on the latest failed turn when its error is retryable; a stopped turn gets a line of its own", async () => {
  const r = await rig();
  try {
    const err = (retryable: boolean) => ({ category: "model_error", message: "The model provider is unavailable right now. Try again in a moment.", retryable });
    await r.push(
      ["session.created", r.mine("s1", 0)],
      ["message.created", msg("m1", 1, "user", "first")],
      ["turn.created", turnOf("t1", 1, "failed", { error: err(true) })],
      ["message.created", msg("m2", 2, "assistant", err(true).message, { status: "error", error: err(true) })],
    );
    await open(r, "s1");
    await r.until("the Retry button", () => r.q(".msg[data-id='m2'] button.retry"));
    eq(r.q(".msg[data-id='m2'] button.retry")!.dataset.turn, "t1", "bound to its turn");
    includes(r.q(".msg[data-id='m2'] .note.bad")!.textContent!, "unavailable right now");

    // A running turn: no Retry while something runs.
    await r.push(["session.updated", r.mine("s1", 0, { active_turn_id: "t9" })]);
    await r.until("no Retry while a turn runs", () => !r.q("button.retry"));
    await r.push(["session.updated", r.mine("s1", 0)]);
    await r.until("Retry again", () => r.q("button.retry"));

    // A later turn that succeeded: the old error is history, not retryable.
    await r.push(["message.created", msg("m3", 3, "user", "second", { turn_id: "t2" })], ["turn.created", turnOf("t2", 2, "completed")], ["message.created", msg("m4", 4, "assistant", "fine", { turn_id: "t2" })]);
    await r.until("no Retry on an older turn", () => !r.q("button.retry"));

    // A failure that a retry cannot fix.
    await r.push(
      ["message.created", msg("m5", 5, "user", "third", { turn_id: "t3" })],
      ["turn.created", turnOf("t3", 3, "failed", { error: err(false) })],
      ["message.created", msg("m6", 6, "assistant", "auth", { turn_id: "t3", status: "error", error: err(false) })],
    );
    await r.until("the error shown", () => r.q(".msg[data-id='m6'] .note.bad"));
    eq(r.q("button.retry"), null, "no Retry for a non-retryable error");

    // A stopped turn: the line at the end carries the Retry button.
    await r.push(["message.created", msg("m7", 7, "user", "fourth", { turn_id: "t4" })], ["turn.created", turnOf("t4", 4, "stopped")]);
    await r.until("the stopped line", () => r.q(".turn-end button.retry"));
    includes(r.q(".turn-end")!.textContent!, "stopped");
    eq(r.q(".turn-end button.retry")!.dataset.turn, "t4");
    eq(r.qa(".messages > *").at(-1)!.className, "turn-end", "at the end of the conversation");

    // A failed turn whose error message is not there: the line carries the turn's error.
    await r.push(["message.created", msg("m8", 8, "user", "fifth", { turn_id: "t5" })], ["turn.created", turnOf("t5", 5, "failed", { error: err(true) })]);
    await r.until("the line for the failed turn", () => r.q(".turn-end button.retry")?.dataset.turn === "t5");
    includes(r.q(".turn-end")!.textContent!, "unavailable right now");

    // Closed, or another device's: no Retry.
    await r.push(["session.updated", r.mine("s1", 0, { status: "closed" })]);
    await r.until("no Retry in a closed session", () => !r.q("button.retry"));
    await r.push(["session.updated", r.mine("s1", 0, { device_id: "another-device" })]);
    await sleep(40);
    eq(r.q("button.retry"), null, "not on another device's session");
  } finally {
    await r.close();
  }
});

test("UI: the header shows the session's tokens, cost and context, live from session.updated", async () => {
  const r = await rig();
  try {
    await r.push(["session.created", r.mine("s1", 0)], ["message.created", msg("m1", 1, "user", "hi")]);
    await open(r, "s1");
    const usage = () => r.q(".bar .usage")!;
    eq(usage().hidden, true, "hidden before the first model call");
    await r.push(["session.updated", r.mine("s1", 0, { usage: { input_tokens: 1200, output_tokens: 300 }, context_tokens: 900 })]);
    await r.until("the usage", () => !usage().hidden);
    eq(usage().textContent, "1.2k in · 300 out · context 900");
    includes(usage().title, "Cost: unknown");
    await r.push(["session.updated", r.mine("s1", 0, { usage: { input_tokens: 5400, output_tokens: 700, cost_usd: 0.0215 }, context_tokens: 3100 })]);
    await r.until("the new figures", () => usage().textContent === "5.4k in · 700 out · $0.0215 · context 3.1k");
    r.q<HTMLButtonElement>("aside.sessions button.new")!.click();
    await r.until("no usage without a conversation", () => usage().hidden);
  } finally {
    await r.close();
  }
});

test("UI: a closed session disables the composer and offers Reopen; an update reopens it", async () => {
  const r = await rig();
  try {
    await r.push(["session.created", r.mine("s1", 0)], ["message.created", msg("m1", 1, "user", "hi")]);
    await open(r, "s1");
    const input = () => r.q<HTMLTextAreaElement>("textarea[aria-label='Message']")!;
    const bar = () => r.q(".closed-bar")!;
    const closeBtn = () => r.q<HTMLButtonElement>(".bar button.close-session")!;
    await r.until("the open state", () => !input().disabled && !closeBtn().hidden && bar().hidden);
    await r.push(["session.updated", r.mine("s1", 0, { status: "closed" })]);
    await r.until("the closed state", () => input().disabled && closeBtn().hidden && !bar().hidden);
    includes(bar().textContent!, "closed");
    ok(bar().querySelector("button.reopen"), "a Reopen button");
    eq(r.q<HTMLButtonElement>("button.send")!.disabled, true, "Send disabled");
    includes(r.q(`aside.sessions li[data-id="s1"] .meta`)!.textContent!, "closed", "the list says so too");
    await r.push(["session.updated", r.mine("s1", 0, { status: "open" })]);
    await r.until("open again", () => !input().disabled && bar().hidden && !closeBtn().hidden);
    // Another device's closed session: read-only anyway, no Reopen offered.
    await r.push(["session.updated", r.mine("s1", 0, { status: "closed", device_id: "another-device" })]);
    await r.until("read-only", () => input().disabled);
    eq(bar().hidden, true, "no Reopen for another device's session");
    eq(closeBtn().hidden, true, "no Close either");
  } finally {
    await r.close();
  }
});

test("UI: Fork turns a user message into an editor; Cancel and Escape restore it", async () => {
  const r = await rig();
  try {
    await r.push(["session.created", r.mine("s1", 0)], ["message.created", msg("m1", 1, "user", "Plan a trip\nto Lisbon")], ["message.created", msg("m2", 2, "assistant", "Sure.")]);
    await open(r, "s1");
    const fork = r.q<HTMLButtonElement>(".msg.user[data-id='m1'] button.fork")!;
    eq(fork.textContent, "Fork");
    eq(r.q(".msg.user[data-id='m1'] .text")!.textContent, "Plan a trip\nto Lisbon", "the bubble shows the text as text");
    fork.click();
    await r.until("the fork editor", () => r.q("form.forking"));
    const box = r.q<HTMLTextAreaElement>("form.forking textarea")!;
    eq(box.value, "Plan a trip\nto Lisbon", "prefilled with the message");
    box.value = "Plan a trip to Porto";
    await r.push(["message.updated", msg("m2", 2, "assistant", "Sure, here it is.")]);
    await r.until("the other message updated", () => r.q(".msg[data-id='m2'] .md")?.textContent === "Sure, here it is.");
    eq(r.q<HTMLTextAreaElement>("form.forking textarea")!.value, "Plan a trip to Porto", "typing survives a re-render");
    [...r.qa("form.forking button")].find((b) => b.textContent === "Cancel")!.click();
    await r.until("the bubble back", () => !r.q("form.forking") && r.q(".msg.user[data-id='m1'] .text"));
    r.q<HTMLButtonElement>(".msg.user[data-id='m1'] button.fork")!.click();
    await r.until("the editor again", () => r.q("form.forking"));
    r.q("form.forking textarea")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await r.until("closed by Escape", () => !r.q("form.forking"));
  } finally {
    await r.close();
  }
});

test("UI: /compact without a conversation is refused in the banner, nothing is sent", async () => {
  const r = await rig();
  try {
    const input = r.q<HTMLTextAreaElement>("textarea[aria-label='Message']")!;
    includes(input.placeholder, "/compact");
    input.value = "/compact keep the dates";
    r.q<HTMLFormElement>("form.composer")!.requestSubmit();
    await r.until("the banner", () => !r.q(".banner")!.hidden);
    includes(r.q(".banner")!.textContent!, "Nothing to compact yet");
    eq(input.value, "/compact keep the dates", "the text stays for the person to change");
  } finally {
    await r.close();
  }
});

test("UI: a running server call's progress updates its card, and sections the person opened stay open", async () => {
  const r = await rig();
  try {
    const call = { id: "c1", name: "files__copy", arguments: { from: "/a", to: "/b" } };
    const rtc = (extra: Partial<Rtc>): Rtc => ({
      id: "r1", session_id: "s1", turn_id: "t1", user_id: "ui-user", message_id: "m2", tool_call_id: "c1", seq: 1, step: 1,
      tool_name: call.name, arguments: call.arguments, status: "executing", needs_confirmation: false, executor: "server",
      timeout_ms: 300000, created_at: at(2), updated_at: at(2), offset: 0, ...extra,
    });
    await r.push(
      ["session.created", r.mine("s1", 0, { active_turn_id: "t1" })],
      ["turn.created", turnOf("t1", 1, "waiting")],
      ["message.created", msg("m1", 1, "user", "Copy it")],
      ["message.created", msg("m2", 2, "assistant", "", { tool_calls: [call] })],
      ["rtc.updated", rtc({})],
    );
    await open(r, "s1");
    await r.until("the running card", () => r.q('.tool[data-rtc="r1"][data-status="executing"]'));
    eq(r.q('.tool[data-rtc="r1"] .progress'), null, "no progress before the server reports some");
    r.q<HTMLDetailsElement>('.tool[data-rtc="r1"] > details.args')!.open = true;

    await r.push(["rtc.updated", rtc({ progress: { progress: 3, total: 10, message: "copying b" } })]);
    await r.until("the progress", () => r.q('.tool[data-rtc="r1"] .progress .count')?.textContent === "3 / 10");
    eq(r.q<HTMLProgressElement>('.tool[data-rtc="r1"] .progress progress')?.value, 3);
    eq(r.q('.tool[data-rtc="r1"] .progress .message')?.textContent, "copying b");
    eq(r.q<HTMLDetailsElement>('.tool[data-rtc="r1"] > details.args')?.open, true, "the arguments the person opened stay open");

    await r.push(["rtc.updated", rtc({ progress: { progress: 7, total: 10 } })]);
    await r.until("the next progress", () => r.q('.tool[data-rtc="r1"] .progress .count')?.textContent === "7 / 10");
    eq(r.q('.tool[data-rtc="r1"] .progress .message'), null);
    eq(r.q<HTMLDetailsElement>('.tool[data-rtc="r1"] > details.args')?.open, true, "still open");

    // A task's status: the message alone, no count.
    await r.push(["rtc.updated", rtc({ task_id: "task-1", progress: { progress: 0, message: "step 2 of 12" } })]);
    await r.until("the task's status", () => r.q('.tool[data-rtc="r1"] .progress .message')?.textContent === "step 2 of 12");
    eq(r.q('.tool[data-rtc="r1"] .progress .count'), null, "no count for a status");

    await r.push(["rtc.updated", rtc({ status: "completed", output: "copied", progress: { progress: 7, total: 10 } })]);
    await r.until("the ended card", () => r.q('.tool[data-rtc="r1"][data-status="completed"]'));
    eq(r.q('.tool[data-rtc="r1"] .progress'), null, "an ended call shows no progress");
  } finally {
    await r.close();
  }
});
