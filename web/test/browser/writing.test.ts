// Unit tests of the calls the model is writing (src/realtime/writing.ts): pieces
// applied by seq and read as partial arguments, a lost piece keeps the call's
// name but drops its arguments, a step streamed again starts its calls anew,
// bounds, and the calls go once their step's RTCs arrive or their turn ends.

import type { CallDelta } from "../../src/protocol/types.js";
import { WritingCalls } from "../../src/realtime/writing.js";
import { eq, test } from "./harness.js";

const piece = (seq: number, delta: string, over: Partial<CallDelta> = {}): CallDelta => ({
  type: "tool_call.delta", session_id: "s1", turn_id: "t1", step: 2, index: 0, tool_call_id: "call_1", name: "weather", attempt: "a1", seq, delta, ...over,
});

test("writing: pieces join in seq order and read as partial arguments", () => {
  const w = new WritingCalls();
  const changes: string[] = [];
  w.events.on("change", (c) => changes.push(c.sessionId));
  w.delta(piece(1, ""));
  eq(w.of("s1")[0]?.args, undefined, "no arguments yet");
  w.delta(piece(2, '{"city": "Pa'));
  eq(w.of("s1")[0]?.args, { city: "Pa" }, "a string cut short reads as far as it goes");
  w.delta(piece(2, '{"city": "Pa')); // again: ignored
  w.delta(piece(3, 'ris", "days": [1, 2'));
  const [c] = w.of("s1");
  eq(c?.argsText, '{"city": "Paris", "days": [1, 2');
  eq(c?.args, { city: "Paris", days: [1, 2] });
  eq([c?.name, c?.toolCallId, c?.step, c?.index, c?.broken], ["weather", "call_1", 2, 0, false]);
  eq(changes.length, 3, "one change per new piece");
});

test("writing: a lost piece keeps the call's name and drops its arguments", () => {
  const w = new WritingCalls();
  w.delta(piece(1, '{"city": "Pa'));
  w.delta(piece(3, 'is"}'));
  const [c] = w.of("s1");
  eq([c?.name, c?.broken, c?.argsText, c?.args], ["weather", true, "", undefined]);
  w.delta(piece(4, "more"));
  eq(w.of("s1")[0]?.argsText, "", "nothing after the loss is joined");
});

test("writing: calls of a step go when its RTCs arrive, all of a turn when it ends; bounds hold", () => {
  const w = new WritingCalls();
  w.delta(piece(1, "{", { index: 1 }));
  w.delta(piece(1, "{", { index: 0 }));
  w.delta(piece(1, "{", { step: 3 }));
  w.delta(piece(1, "{", { session_id: "s2" }));
  eq(w.of("s1").map((c) => `${c.step}/${c.index}`), ["2/0", "2/1", "3/0"], "by step and place");
  w.settle("s1", "t1", 2);
  eq(w.of("s1").map((c) => `${c.step}/${c.index}`), ["3/0"]);
  w.endTurn("s1", "t1");
  eq(w.of("s1"), []);
  eq(w.of("s2").length, 1, "another session's call stays");
  w.delta(piece(1, "x".repeat(20000), { session_id: "s3" }));
  eq(w.of("s3")[0]?.argsText.length, 16384, "a call's arguments are bounded");
  for (let i = 0; i < 70; i++) w.delta(piece(1, "{", { session_id: "s4", index: i }));
  eq(w.of("s4").length, 64, "a session's calls are bounded");
  w.delta({ ...piece(1, "{"), seq: 0 });
  w.delta({ ...piece(1, "{"), step: 1.5 } as CallDelta);
  eq(w.of("s1"), [], "malformed pieces are left out");
  w.close();
  eq(w.of("s2"), []);
});

test("writing: a step streamed again writes its calls anew; the earlier attempt's go", () => {
  const w = new WritingCalls();
  w.delta(piece(1, '{"city": "Pa'));
  w.delta(piece(2, "ris"));
  w.delta(piece(1, "{", { index: 1, name: "ls" }));
  w.delta(piece(1, '{"city": "Ly', { attempt: "a2" }));
  const calls = w.of("s1");
  eq(calls.length, 1, "the earlier attempt's other call went");
  eq(calls[0]?.args, { city: "Ly" }, "the call restarted with the new attempt's pieces");
  w.delta(piece(2, "on", { attempt: "a2" }));
  eq(w.of("s1")[0]?.args, { city: "Lyon" });
});
