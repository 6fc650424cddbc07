// In-page side of the rendering benchmark (test/bench.mjs drives it): a real
// Agent (no server: entities and Live deltas are fed the way the connection
// hands them over) and the real chat UI in a shadow root. prepare() builds a
// scenario's state untimed; run() streams its answer, one delta per task at a
// steady pace, then finishes the message and waits until the chat shows it.
// Scenarios with a run of their own: a step of many tool calls (their RTCs
// created, then ended, one update per task) and the Files panel opened on a
// large folder and scrolled to its end.

import { AgentCore as Agent } from "../../src/agent/agent.js";
import type { Delta, Message, Rtc, Session, Turn, Update } from "../../src/protocol/types.js";
import { openStateDb, stateDbName } from "../../src/state/db.js";
import { Ui } from "../../src/ui/app.js";
import { parse } from "../../src/ui/markdown.js";
import { VirtualFS } from "../../src/vfs/vfs.js";
import { longAnswer, longParagraph, longUrl, nestedBrackets, split, storedAnswer, strongRun } from "./content.js";
import { fillFolder } from "./vfsfill.js";

interface Scenario {
  /** The answer to stream. */
  text: () => string;
  deltas: number;
  /** Messages already in the session (half user, half assistant). */
  history: number;
  /** Untimed setup after the session is built (before the UI attaches). */
  setup?: (s: State) => Promise<void>;
  /** A run of its own instead of streaming `text`. */
  run?: (s: State) => Promise<Result>;
}

interface Result {
  /** Updates (deltas, entity updates) fed, and marks at a fifth of them (see bench.mjs). */
  deltas: number;
  fifth: number;
  bytes: number;
  shown: number;
  /** What the scenario ended showing, when not characters of text. */
  note?: string;
}

/** 1, or 0.1 for a smoke run (test/bench.mjs --smoke). */
declare const __RTC_BENCH_SCALE__: number;
const k = (n: number) => Math.max(2, Math.round(n * __RTC_BENCH_SCALE__));

const SCENARIOS: Record<string, Scenario> = {
  "80 KB answer, 2,000 deltas": { text: () => longAnswer(k(80_000)), deltas: k(2000), history: 0 },
  "80 KB of `**a `, 2,000 deltas": { text: () => strongRun(k(80_000)), deltas: k(2000), history: 0 },
  "10,000 nested `[`, 500 deltas": { text: () => nestedBrackets(k(10_000)), deltas: k(500), history: 0 },
  "10,000-character URL, 500 deltas": { text: () => longUrl(k(10_000)), deltas: k(500), history: 0 },
  "8 KB answer, 400 deltas, empty session": { text: () => longAnswer(k(8_000)), deltas: k(400), history: 0 },
  "8 KB answer, 400 deltas, 200-message session": { text: () => longAnswer(k(8_000)), deltas: k(400), history: k(200) & ~1 },
  "2 MB answer in one delta": { text: () => longAnswer(k(2_000_000)), deltas: 1, history: 0 },
  "80 KB paragraph, 2,000 deltas": { text: () => longParagraph(k(80_000)), deltas: k(2000), history: 0 },
  "500 tool calls in one step": { text: () => "", deltas: 0, history: 0, run: (s) => toolCalls(s, k(500)) },
  "Files panel, 20,000 entries": { text: () => "", deltas: 0, history: 0, setup: (s) => fillFolder(s.agent.vfs, "/big", k(20_000)).then(() => undefined), run: (s) => filesPanel(s, k(20_000)) },
};

/** Milliseconds between two deltas: about 500 a second, faster than models write. */
const PACE_MS = 2;
const EPOCH = "bench";
const now = () => new Date().toISOString();

interface State {
  agent: Agent;
  ui: Ui;
  host: HTMLElement;
  session: Session;
  turn: Turn;
  offset: number;
  scenario: Scenario;
}
let state: State | null = null;
let runs = 0;

async function prepare(name: string): Promise<void> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${name}`);
  await dispose();
  const userId = `bench-${Date.now()}-${runs++}`;
  const deviceId = "bench-device";
  const [db, vfs] = await Promise.all([openStateDb(stateDbName(userId, deviceId)), VirtualFS.open({ userId, deviceId })]);
  const agent = new Agent({ serverUrl: "http://127.0.0.1:9", getToken: async () => null, userId, deviceId, locks: null }, userId, deviceId, db, vfs);
  await agent.store.load();
  const sessions: Session[] = [];
  for (let i = 0; i < 40; i++) {
    sessions.push({ id: `s${i}`, user_id: userId, device_id: deviceId, title: `Conversation ${i}`, work_mode: "edit", status: "open", created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), updated_at: now(), offset: 1 });
  }
  const session = sessions[sessions.length - 1]!;
  await agent.store.reset(EPOCH, 1, sessions);
  await agent.store.markHydrated(session.id, 1);
  let offset = 1;
  const updates: Update[] = [];
  const upd = (type: string, data: { offset: number }) => {
    data.offset = ++offset;
    updates.push({ offset, epoch: EPOCH, changes: [{ type, data }] });
  };
  let seq = 0;
  for (let i = 0; i < scenario.history; i += 2) {
    const t = turn(session, `t${i}`, i / 2 + 1, "completed");
    upd("turn.created", t);
    upd("message.created", message(session, t, `m${i}`, ++seq, "user", `Question ${i}: what does step ${i} do?`, "complete"));
    upd("message.created", message(session, t, `m${i + 1}`, ++seq, "assistant", storedAnswer(i), "complete"));
  }
  const t = turn(session, "t-live", scenario.history / 2 + 1, "running");
  upd("turn.created", t);
  upd("message.created", message(session, t, "m-question", ++seq, "user", "Please explain it all in detail.", "complete"));
  await agent.store.apply(updates);
  await agent.store.merge([{ kind: "session", entity: { ...session, active_turn_id: t.id, offset: ++offset } }]);
  const st = { agent, session, turn: t, offset, scenario } as State;
  await scenario.setup?.(st);

  const host = document.getElementById("host")!;
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  localStorage.setItem(`rtc-agent:selected:${userId}`, session.id);
  const ui = new Ui(shadow);
  ui.attach(agent, "Benchmark");
  state = Object.assign(st, { ui, host });
  await settle();
}

async function run(): Promise<Result> {
  const s = state;
  if (!s) throw new Error("prepare first");
  const { agent, session, turn: t, scenario } = s;
  if (scenario.run) return scenario.run(s);
  const text = scenario.text();
  const m = message(session, t, "m-live", 1_000_000, "assistant", "", "streaming");
  m.offset = ++s.offset;
  await agent.store.apply([{ offset: m.offset, epoch: EPOCH, changes: [{ type: "message.created", data: m }] }]);
  const deltas = split(text, scenario.deltas);
  // The connection hands each Live publication to LiveStreams.delta in its own task.
  const live = (agent as unknown as { live: { delta(d: Delta): void } }).live;
  await paced(deltas.length, (i) => live.delta({ type: "message.delta", session_id: session.id, message_id: m.id, seq: i + 1, kind: "text", delta: deltas[i]! }));
  // The final message and the ended turn: one commit, one update.
  const final = { ...m, text, status: "complete" as const, offset: ++s.offset };
  await agent.store.apply([
    {
      offset: final.offset,
      epoch: EPOCH,
      changes: [
        { type: "message.updated", data: final },
        { type: "turn.updated", data: { ...t, status: "completed", offset: final.offset } },
      ],
    },
  ]);
  await settle();
  // A long text is formatted over several tasks: the run ends when no raw text is left.
  await until(() => !s.host.shadowRoot!.querySelector(`[data-id="${m.id}"] .md .plain`), 120_000);
  await settle();
  const node = s.host.shadowRoot!.querySelector(`[data-id="${m.id}"]`);
  return { deltas: deltas.length, bytes: text.length, shown: node?.textContent?.length ?? 0, fifth: Math.floor(deltas.length / 5) };
}

/**
 * Calls `step(i)` for i < n, one call per task at PACE_MS, with marks in the
 * trace at the first, after a fifth, at four fifths and after the last:
 * bench.mjs prints the main-thread time per step at the start and the end.
 */
async function paced(n: number, step: (i: number) => void | Promise<void>): Promise<void> {
  const start = performance.now();
  const marks = new Map([[0, "bench:start0"], [Math.floor(n / 5), "bench:start1"], [n - Math.floor(n / 5), "bench:end0"]]);
  for (let i = 0; i < n; i++) {
    const wait = start + i * PACE_MS - performance.now();
    await (wait >= 1 ? sleep(wait) : nextTask());
    const mark = marks.get(i);
    if (mark) performance.mark(mark);
    await step(i);
  }
  await nextTask();
  performance.mark("bench:end1");
}

/**
 * One model step of `n` tool calls: the assistant message with its calls, then
 * each call's RTC as the server creates it (sent to this device), then each one
 * completed with its output; one Topic update per task. Ends with the turn.
 */
async function toolCalls(s: State, n: number): Promise<Result> {
  const { agent, session, turn: t } = s;
  const calls = Array.from({ length: n }, (_, i) => ({ id: `call-${i}`, name: "read", arguments: { path: `/data/report-${i}.csv` } }));
  const m = { ...message(session, t, "m-live", 1_000_000, "assistant", "", "complete"), tool_calls: calls, offset: ++s.offset };
  await agent.store.apply([{ offset: m.offset, epoch: EPOCH, changes: [{ type: "message.created", data: m }] }]);
  const created = new Date().toISOString();
  const rtc = (i: number, status: Rtc["status"], extra: Partial<Rtc> = {}): Rtc => ({
    id: `rtc-${i}`, session_id: session.id, turn_id: t.id, user_id: session.user_id, message_id: m.id, tool_call_id: calls[i]!.id, seq: i + 1, step: 1,
    tool_name: "read", arguments: calls[i]!.arguments, status, needs_confirmation: false, timeout_ms: 300_000, created_at: created, updated_at: now(), offset: ++s.offset, ...extra,
  });
  await paced(2 * n, (i) => {
    const r = i < n ? rtc(i, "sent") : rtc(i - n, "completed", { output: `date,amount\n2024-01-01,${i}\n` });
    return agent.store.apply([{ offset: r.offset, epoch: EPOCH, changes: [{ type: "rtc.updated", data: r }] }]);
  });
  const end = ++s.offset; // the ended turn and the idle session: one commit, one update
  await agent.store.apply([
    {
      offset: end,
      epoch: EPOCH,
      changes: [
        { type: "turn.updated", data: { ...t, status: "completed", offset: end } },
        { type: "session.updated", data: { ...session, active_turn_id: undefined, offset: end } },
      ],
    },
  ]);
  await settle();
  const done = s.host.shadowRoot!.querySelectorAll(`[data-id="${m.id}"] .tool[data-status="completed"]`).length;
  return { deltas: 2 * n, fifth: Math.floor((2 * n) / 5), bytes: 0, shown: done, note: `${done}/${n} cards completed, ${2 * n} updates` };
}

/** Opens the Files panel on a folder of `n` files, then scrolls its list to the end and waits for the last file's row. */
async function filesPanel(s: State, n: number): Promise<Result> {
  const root = s.host.shadowRoot!;
  const last = `/big/file-${String(n - 1).padStart(6, "0")}.txt`;
  performance.mark("bench:start0");
  root.querySelector<HTMLElement>(".files-toggle")!.click();
  const tree = await until(() => (root.querySelector("aside.files li[data-path]") ? root.querySelector<HTMLElement>('aside.files [role="tree"]') : null));
  performance.mark("bench:start1");
  const opened = tree.querySelectorAll("li[data-path]").length;
  await nextTask();
  performance.mark("bench:end0");
  tree.scrollTop = tree.scrollHeight;
  await until(() => tree.querySelector(`li[data-path="${last}"]`));
  performance.mark("bench:end1");
  const rows = tree.querySelectorAll("li[data-path]").length;
  return { deltas: 0, fifth: 0, bytes: 0, shown: rows, note: `${opened} rows on opening, ${rows} at the end, ${n + 1} entries` };
}

/** Polls once a frame until `get` answers something (10 s at most). */
async function until<T>(get: () => T | null | undefined, ms = 10_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (performance.now() > end) throw new Error("timed out");
    await new Promise((r) => requestAnimationFrame(r));
  }
}

async function dispose(): Promise<void> {
  if (!state) return;
  const { agent, ui } = state;
  ui.dispose();
  agent.destroy();
  state = null;
}

function turn(s: Session, id: string, seq: number, status: Turn["status"]): Turn {
  return { id, session_id: s.id, user_id: s.user_id, seq, user_message_id: `${id}-q`, status, step: 0, created_at: now(), updated_at: now(), offset: 0 };
}

function message(s: Session, t: Turn, id: string, seq: number, role: Message["role"], text: string, status: Message["status"]): Message {
  return { id, session_id: s.id, turn_id: t.id, user_id: s.user_id, seq, role, text, status, created_at: now(), updated_at: now(), offset: 0 };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const channel = new MessageChannel();
const waiting: (() => void)[] = [];
channel.port1.onmessage = () => waiting.shift()?.();
/** Resolves in a new task (unlike setTimeout, not clamped to 4 ms when nested). */
function nextTask(): Promise<void> {
  return new Promise((r) => {
    waiting.push(r);
    channel.port2.postMessage(null);
  });
}

/** Waits until pending renders ran: two frames and the UI's render timer. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => requestAnimationFrame(r));
    await sleep(40);
  }
}

/** Milliseconds of one markdown-it parse of each long text (median of 5): the floor of a final render. */
function parseTimes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, text] of [["80 KB answer", longAnswer(k(80_000))], ["80 KB of `**a `", strongRun(k(80_000))]] as const) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      parse(text);
      times.push(performance.now() - t);
    }
    out[name] = times.sort((a, b) => a - b)[2]!;
  }
  return out;
}

declare global {
  interface Window {
    bench: { scenarios: string[]; prepare: typeof prepare; run: typeof run; dispose: typeof dispose; parseTimes: typeof parseTimes };
  }
}
window.bench = { scenarios: Object.keys(SCENARIOS), prepare, run, dispose, parseTimes };
