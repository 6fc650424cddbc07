// Live deltas (docs/protocol.md "Live channel"): an in-memory overlay per
// streaming message, built from deltas applied strictly by `seq`. Lost chunks or a
// mid-stream join are repaired with `v1.message.get` (text so far + `delta_seq`).
// The final message on the Topic channel always wins: once the entity store holds
// a non-streaming state, the overlay is dropped and late deltas are ignored.

import type { Delta, Message } from "../protocol/types.js";
import { Emitter } from "../util/emitter.js";
import type { Call } from "./topic.js";

interface Stream {
  text: string;
  seq: number;
  /** A v1.message.get is in flight; deltas wait in `pending`. */
  fetching: boolean;
  pending: Delta[];
}

export interface LiveEvents {
  /** The streaming text of a message changed. */
  text: { messageId: string; sessionId: string; text: string };
}

export interface LiveOptions {
  /** Is this message final (not streaming) in the entity store? */
  isFinal: (messageId: string) => boolean;
  /** A message read by v1.message.get, to merge into the entity store. */
  onMessage?: (m: Message) => void;
  /** How long a streaming message may show no delta before its text is fetched. Default 400 ms. */
  joinDelayMs?: number;
}

export class LiveStreams {
  readonly events = new Emitter<LiveEvents>();
  private readonly streams = new Map<string, Stream>();
  private readonly sessionOf = new Map<string, string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly call: Call,
    private readonly opts: LiveOptions,
  ) {}

  /** The text streamed so far, or undefined when no delta has been seen. */
  text(messageId: string): string | undefined {
    return this.streams.get(messageId)?.text;
  }

  delta(d: Delta): void {
    if (d.type !== "message.delta" || typeof d.seq !== "number" || typeof d.message_id !== "string") return;
    if (this.opts.isFinal(d.message_id)) return;
    this.sessionOf.set(d.message_id, d.session_id);
    let s = this.streams.get(d.message_id);
    if (!s) {
      if (d.seq !== 1) {
        // Joined mid-stream or lost the first chunks: fetch the text so far.
        s = { text: "", seq: 0, fetching: false, pending: [d] };
        this.streams.set(d.message_id, s);
        void this.fetch(d.message_id);
        return;
      }
      s = { text: "", seq: 0, fetching: false, pending: [] };
      this.streams.set(d.message_id, s);
    }
    if (s.fetching) {
      s.pending.push(d);
      return;
    }
    this.applyDelta(d.message_id, s, d);
  }

  /**
   * A streaming message is known (created, or found streaming when a session was
   * loaded). If no delta shows up soon, join the stream with v1.message.get.
   * `immediately` for messages found while loading (their first deltas are long gone).
   */
  watch(m: Message, immediately = false): void {
    if (m.status !== "streaming") {
      this.finish(m.id);
      return;
    }
    this.sessionOf.set(m.id, m.session_id);
    if (this.streams.has(m.id) || this.timers.has(m.id)) return;
    if (immediately) {
      void this.fetch(m.id);
      return;
    }
    this.timers.set(
      m.id,
      setTimeout(() => {
        this.timers.delete(m.id);
        if (!this.streams.has(m.id) && !this.opts.isFinal(m.id)) void this.fetch(m.id);
      }, this.opts.joinDelayMs ?? 400),
    );
  }

  /** The message is final: its overlay is no longer needed. */
  finish(messageId: string): void {
    this.streams.delete(messageId);
    this.sessionOf.delete(messageId);
    const t = this.timers.get(messageId);
    if (t) clearTimeout(t);
    this.timers.delete(messageId);
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.streams.clear();
  }

  private applyDelta(id: string, s: Stream, d: Delta): void {
    if (d.seq <= s.seq) return; // duplicate
    if (d.seq > s.seq + 1) {
      s.pending.push(d);
      void this.fetch(id);
      return;
    }
    s.text += d.delta;
    s.seq = d.seq;
    this.emitText(id, s);
  }

  private async fetch(id: string): Promise<void> {
    let s = this.streams.get(id);
    if (!s) {
      s = { text: "", seq: 0, fetching: false, pending: [] };
      this.streams.set(id, s);
    }
    if (s.fetching) return;
    s.fetching = true;
    try {
      const res = await this.call("v1.message.get", { message_id: id });
      this.opts.onMessage?.(res.message);
      if (res.message.status !== "streaming" || this.opts.isFinal(id)) {
        this.finish(id);
        return;
      }
      if (res.delta_seq >= s.seq) {
        s.text = res.message.text;
        s.seq = res.delta_seq;
      }
    } catch {
      // Keep what we have; the next gap or the final message repairs it.
    } finally {
      s.fetching = false;
    }
    if (this.streams.get(id) !== s) return;
    const pending = s.pending.sort((a, b) => a.seq - b.seq);
    s.pending = [];
    for (const d of pending) {
      if (d.seq === s.seq + 1) {
        s.text += d.delta;
        s.seq = d.seq;
      }
    }
    this.emitText(id, s);
  }

  private emitText(id: string, s: Stream): void {
    this.events.emit("text", { messageId: id, sessionId: this.sessionOf.get(id) ?? "", text: s.text });
  }
}
