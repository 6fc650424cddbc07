// Tool calls the model is writing (docs/protocol.md "Live channel",
// tool_call.delta): what the pieces of each call built so far, until the
// step's RTCs arrive (they all come in one Topic update) or the turn ends.
// Pieces are applied strictly by `seq`; after a lost piece the call keeps its
// name but no longer shows arguments, which come whole with its RTC. A step
// streamed again (another `attempt`) writes its calls anew: the calls of the
// earlier attempt go. Arguments are read when they are asked for.

import { jsonrepair } from "jsonrepair";
import type { CallDelta } from "../protocol/types.js";
import { Emitter } from "../util/emitter.js";

/** A tool call the model is writing, before it is an RTC. */
export interface WritingCall {
  readonly sessionId: string;
  readonly turnId: string;
  /** The turn's step its RTC will carry. */
  readonly step: number;
  /** Its place among the step's calls, from 0. */
  readonly index: number;
  /** The model's id of the call, once it said it. */
  readonly toolCallId?: string;
  /** The tool, once the model said it. */
  readonly name?: string;
  /** The arguments' JSON text so far (not yet valid JSON). */
  readonly argsText: string;
  /** What the arguments so far read as (a partial object), or undefined when they cannot be read yet. */
  readonly args: unknown;
  /** A piece was lost: the arguments show when the call arrives. */
  readonly broken: boolean;
}

export interface WritingEvents {
  /** The calls being written in a session changed. */
  change: { sessionId: string };
}

/** Bounds: calls kept per session, and bytes of a call's arguments. */
const MAX_CALLS = 64;
const MAX_ARGS = 16 << 10;

interface Entry {
  call: WritingCall;
  attempt: string;
  seq: number;
  /** `call.args` is read from `call.argsText` (done by `of`). */
  read: boolean;
}

export class WritingCalls {
  readonly events = new Emitter<WritingEvents>();
  private readonly bySession = new Map<string, Map<string, Entry>>();

  /** The calls being written in a session, by step and place. */
  of(sessionId: string): WritingCall[] {
    const m = this.bySession.get(sessionId);
    if (!m) return [];
    for (const e of m.values()) {
      if (!e.read) {
        e.call = { ...e.call, args: e.call.broken ? undefined : readPartial(e.call.argsText) };
        e.read = true;
      }
    }
    return [...m.values()].map((e) => e.call).sort((a, b) => a.step - b.step || a.index - b.index);
  }

  delta(d: CallDelta): void {
    if (typeof d.session_id !== "string" || typeof d.turn_id !== "string" || !Number.isInteger(d.step) || !Number.isInteger(d.index) ||
      !Number.isInteger(d.seq) || d.seq < 1 || typeof d.delta !== "string") return;
    const attempt = typeof d.attempt === "string" ? d.attempt : "";
    // Another attempt at the step: what the earlier one wrote goes.
    this.drop(d.session_id, (c, a) => c.turnId === d.turn_id && c.step <= d.step && a !== attempt);
    let m = this.bySession.get(d.session_id);
    const key = `${d.turn_id}/${d.step}/${d.index}`;
    let e = m?.get(key);
    if (!e) {
      if (!m) {
        m = new Map();
        this.bySession.set(d.session_id, m);
      }
      if (m.size >= MAX_CALLS) return;
      e = { attempt, seq: 0, read: true, call: { sessionId: d.session_id, turnId: d.turn_id, step: d.step, index: d.index, argsText: "", args: undefined, broken: false } };
      m.set(key, e);
    }
    if (d.seq <= e.seq) return; // a piece seen already
    const c = e.call;
    let { argsText, broken } = c;
    if (d.seq !== e.seq + 1) broken = true; // a piece was lost: the rest would not read
    else if (!broken) argsText = (argsText + d.delta).slice(0, MAX_ARGS);
    e.seq = d.seq;
    e.read = false;
    e.call = {
      ...c,
      toolCallId: typeof d.tool_call_id === "string" && d.tool_call_id ? d.tool_call_id : c.toolCallId,
      name: typeof d.name === "string" && d.name ? d.name : c.name,
      argsText: broken ? "" : argsText,
      broken,
    };
    this.events.emit("change", { sessionId: d.session_id });
  }

  /** A step's RTCs arrived: its calls (and earlier steps') are no longer being written. */
  settle(sessionId: string, turnId: string, step: number): void {
    this.drop(sessionId, (c) => c.turnId === turnId && c.step <= step);
  }

  /** The turn ended: none of its calls is being written. */
  endTurn(sessionId: string, turnId: string): void {
    this.drop(sessionId, (c) => c.turnId === turnId);
  }

  close(): void {
    const sessions = [...this.bySession.keys()];
    this.bySession.clear();
    for (const sessionId of sessions) this.events.emit("change", { sessionId });
  }

  private drop(sessionId: string, match: (c: WritingCall, attempt: string) => boolean): void {
    const m = this.bySession.get(sessionId);
    if (!m) return;
    let dropped = false;
    for (const [k, e] of m) {
      if (match(e.call, e.attempt)) {
        m.delete(k);
        dropped = true;
      }
    }
    if (m.size === 0) this.bySession.delete(sessionId);
    if (dropped) this.events.emit("change", { sessionId });
  }
}

/**
 * The arguments written so far as a value, if they read as one: the text
 * closed where it stops (a string, an array, an object; a key with no value
 * yet reads as null), then parsed.
 */
function readPartial(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}
