// Unit tests of Live deltas (src/realtime/live.ts): applied by seq, duplicates
// ignored, a gap or a mid-stream join repaired with v1.message.get, and the
// final message always wins over late deltas.

import type { Delta, Message } from "../../src/protocol/types.js";
import { LiveStreams } from "../../src/realtime/live.js";
import { sleep } from "./context.js";
import { eq, test } from "./harness.js";

const d = (seq: number, delta: string, id = "m1"): Delta => ({ type: "message.delta", session_id: "s1", message_id: id, seq, kind: "text", delta });
const msg = (text: string, status: Message["status"] = "streaming"): Message =>
  ({ id: "m1", session_id: "s1", turn_id: "t1", user_id: "u", seq: 2, role: "assistant", text, status, created_at: "", updated_at: "", offset: 5 }) as Message;

function setup(server: { text: string; seq: number; status?: Message["status"] }) {
  const final = new Set<string>();
  const gets: string[] = [];
  const live = new LiveStreams(
    async <T>(_m: string, p: object) => {
      gets.push((p as { message_id: string }).message_id);
      await sleep(5);
      return { message: msg(server.text, server.status ?? "streaming"), delta_seq: server.seq } as T;
    },
    { isFinal: (id) => final.has(id), joinDelayMs: 20 },
  );
  return { live, final, gets };
}

test("live: deltas apply in seq order; duplicates are ignored", () => {
  const { live, gets } = setup({ text: "", seq: 0 });
  for (const x of [d(1, "Hel"), d(2, "lo"), d(2, "lo"), d(3, " world")]) live.delta(x);
  eq(live.text("m1"), "Hello world");
  eq(gets.length, 0, "no fetch needed");
});

test("live: a lost delta is repaired with v1.message.get, then later deltas continue", async () => {
  const { live, gets } = setup({ text: "Hello wor", seq: 3 });
  live.delta(d(1, "Hel"));
  live.delta(d(3, " wor")); // seq 2 lost
  live.delta(d(4, "ld"));
  for (let i = 0; i < 50 && live.text("m1") !== "Hello world"; i++) await sleep(5);
  eq(live.text("m1"), "Hello world");
  eq(gets, ["m1"]);
});

test("live: joining mid-stream fetches the text so far", async () => {
  const { live, gets } = setup({ text: "Once upon", seq: 7 });
  live.delta(d(8, " a time"));
  for (let i = 0; i < 50 && gets.length === 0; i++) await sleep(5);
  for (let i = 0; i < 50 && live.text("m1") !== "Once upon a time"; i++) await sleep(5);
  eq(live.text("m1"), "Once upon a time");
  const w = setup({ text: "Already here", seq: 2 });
  w.live.watch(msg(""), false); // announced on Topic, no delta seen: join after a short delay
  for (let i = 0; i < 50 && w.live.text("m1") !== "Already here"; i++) await sleep(5);
  eq(w.live.text("m1"), "Already here");
});

test("live: the final message wins; late deltas are ignored", () => {
  const { live, final } = setup({ text: "", seq: 0 });
  live.delta(d(1, "draft"));
  final.add("m1");
  live.finish("m1");
  live.delta(d(2, " late"));
  eq(live.text("m1"), undefined, "no overlay once final");
});
