// One Centrifuge connection (JSON protocol) per tab: connect with a token and
// `{device_id}`, server-side subscriptions to topic:u=<id> and live:u=<id>
// arriving as client-level events, RPC calls, token refresh and re-login, and a
// status a UI can show: offline until when, and why.
//
// The deadline of attempts and calls grows after each timeout: a connect reply
// carries the missed Topic updates (up to a page, 1 MiB, docs/protocol.md), and
// on a slow link a page may take longer than the configured deadline. With a
// fixed one the client would give up on the same page over and over, never
// getting its own history; doubled after each timeout (up to 16 times the
// configured value), an attempt soon lasts as long as the page takes.

import { Centrifuge, UnauthorizedError } from "centrifuge";
import type { CallDelta, Delta, Update } from "../protocol/types.js";
import { RpcTimeout, toRpcError } from "../protocol/types.js";
import type { Position } from "../state/db.js";
import { Emitter } from "../util/emitter.js";

export type ConnectionState = "connecting" | "connected" | "disconnected";

/**
 * Why the last connection attempt failed, in terms a person can act on:
 * - `unreachable`: the server could not be reached (network, server down);
 * - `token`: `getToken` (the host's token endpoint) failed;
 * - `token-rejected`: the server refused the token (e.g. its secret changed);
 * - `origin`: the server does not accept this page's origin (no retry: the page
 *   cannot change its origin);
 * - `connect-data`: the server refused the connection's data (the device id, e.g.
 *   a `deviceId` option it does not accept; no retry: the same data fails again);
 * - `refused`: the server ended the connection for another reason;
 * - `relogin`: the user must log in again.
 */
export type ConnectionProblemKind = "unreachable" | "token" | "token-rejected" | "origin" | "connect-data" | "refused" | "relogin";

export interface ConnectionProblem {
  kind: ConnectionProblemKind;
  message: string;
}

export interface ConnectionStatus {
  state: ConnectionState;
  /** When the next attempt starts (ms since the epoch), while offline and waiting to retry. */
  retryAt?: number;
  /** Why the last attempt failed; cleared once connected. */
  problem?: ConnectionProblem;
}

/**
 * Thrown (or returned as null/"" ) by a host's `getToken` when the user must log in
 * again: the SDK stops reconnecting and emits `relogin`.
 */
export class ReloginRequired extends Error {
  override readonly name = "ReloginRequired";
}

export interface ConnectionOptions {
  /** ws(s)://host/connection/websocket */
  url: string;
  deviceId: string;
  getToken: () => Promise<string | null | undefined>;
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Deadline of calls and connection attempts. Default 10 s; grows after timeouts (see above). */
  timeoutMs?: number;
}

export interface ConnectionEvents {
  state: ConnectionState;
  status: ConnectionStatus;
  subscribed: { channel: string; recovered: boolean; position: Position | undefined };
  topic: Update;
  delta: Delta;
  callDelta: CallDelta;
  relogin: { reason: string };
}

// Disconnect codes of the server (Centrifuge's and internal/realtime's) and of
// the centrifuge client.
const UNAUTHORIZED = 1;
const DISCONNECT_CALLED = 0;
const INVALID_TOKEN = 3500;
const ORIGIN_REFUSED = 4503;
const BAD_CONNECT_DATA = 4501;
const TOKEN_EXPIRED = 109;
/** centrifuge-js's code of a call or connect command that got no reply in time. */
const TIMEOUT = 1;
/** The deadline grows up to this many times the configured one. */
const MAX_TIMEOUT_FACTOR = 16;

/**
 * The client's connection. After a failed attempt it waits for a delay it chose
 * itself (exponential backoff with jitter) instead of Centrifuge's internal one,
 * so the UI can count down to the next attempt ("Offline, retrying in 4 s") and
 * name what went wrong.
 */
export class Connection {
  readonly events = new Emitter<ConnectionEvents>();
  private readonly client: Centrifuge;
  private stateValue: ConnectionState = "disconnected";
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryAt: number | undefined;
  private problem: ConnectionProblem | undefined;
  private closed = false;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private readonly baseTimeout: number;
  private timeout: number;
  /** Connection attempts started (diagnostics, tests). */
  attempts = 0;

  constructor(private readonly opts: ConnectionOptions) {
    this.minDelay = opts.minReconnectDelayMs ?? 500;
    this.maxDelay = opts.maxReconnectDelayMs ?? 20_000;
    this.baseTimeout = this.timeout = opts.timeoutMs ?? 10_000;
    this.client = new Centrifuge(opts.url, {
      data: { device_id: opts.deviceId },
      getToken: () => this.token(),
      minReconnectDelay: this.minDelay,
      maxReconnectDelay: this.maxDelay,
      timeout: this.timeout,
    });
    this.client.on("state", (ctx) => {
      if (ctx.newState === "connecting") this.attempts++;
      this.setState(ctx.newState as ConnectionState);
    });
    this.client.on("connected", () => {
      this.failures = 0;
      this.problem = undefined;
      this.emitStatus();
    });
    this.client.on("error", (ctx) => {
      if (this.closed || this.client.state !== "connecting") return;
      const message = ctx.error?.message || ctx.type;
      // No socket or no connect reply in time: the next attempt gets longer.
      if ((ctx.type === "transport" && message === "connect timeout") || (ctx.type === "connect" && ctx.error?.code === TIMEOUT)) this.grow();
      if (ctx.type === "transport") this.offline({ kind: "unreachable", message: "the server cannot be reached" });
      else if (ctx.type === "connectToken") this.offline({ kind: "token", message });
      // An expired token: Centrifuge fetches a new one and tries again at once.
      else if (ctx.type === "connect" && ctx.error?.code !== TOKEN_EXPIRED) this.offline({ kind: "unreachable", message });
    });
    this.client.on("disconnected", (ctx) => {
      if (this.closed || ctx.code === DISCONNECT_CALLED) return;
      if (ctx.code === UNAUTHORIZED) {
        this.problem = { kind: "relogin", message: ctx.reason || "unauthorized" };
        this.emitStatus();
        this.events.emit("relogin", { reason: ctx.reason || "unauthorized" });
      }
      // Centrifuge does not reconnect after "invalid token" (e.g. the server restarted
      // with a new secret). A fresh token may well be valid: try again with backoff.
      else if (ctx.code === INVALID_TOKEN) this.offline({ kind: "token-rejected", message: ctx.reason || "invalid token" }, true);
      else if (ctx.code === ORIGIN_REFUSED) {
        this.problem = { kind: "origin", message: ctx.reason || "origin not allowed" };
        this.emitStatus();
      } else if (ctx.code === BAD_CONNECT_DATA) {
        this.problem = { kind: "connect-data", message: ctx.reason || "bad connect data" };
        this.emitStatus();
      } else {
        this.problem = { kind: "refused", message: ctx.reason || `code ${ctx.code}` };
        this.emitStatus();
      }
    });
    this.client.on("subscribed", (ctx) => {
      const sp = ctx.streamPosition;
      this.events.emit("subscribed", {
        channel: ctx.channel,
        recovered: ctx.recovered,
        position: sp && sp.epoch ? { epoch: sp.epoch, offset: Number(sp.offset) } : undefined,
      });
    });
    this.client.on("publication", (ctx) => {
      if (ctx.channel.startsWith("topic:")) {
        const u = ctx.data as Update;
        if (u && typeof u.offset === "number" && typeof u.epoch === "string") this.events.emit("topic", u);
      } else if (ctx.channel.startsWith("live:")) {
        const d = ctx.data as Delta | CallDelta;
        if (d?.type === "message.delta") this.events.emit("delta", d);
        else if (d?.type === "tool_call.delta") this.events.emit("callDelta", d);
      }
    });
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  get status(): ConnectionStatus {
    return { state: this.stateValue, retryAt: this.retryAt, problem: this.problem };
  }

  connect(): void {
    this.closed = false;
    this.client.connect();
  }

  /** Starts the next attempt now instead of at `status.retryAt`. */
  retryNow(): void {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    void this.attempt(this.problem?.kind === "token-rejected");
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.client.disconnect();
  }

  /** The current deadline of attempts and calls (ms). */
  get timeoutMs(): number {
    return this.timeout;
  }

  /** Calls a v1 method over the socket (waits for a connection up to the timeout). */
  async call<T>(method: string, params: object): Promise<T> {
    const deadline = this.timeout;
    const online = this.stateValue === "connected";
    try {
      const res = await this.client.rpc(method, params);
      return res.data as T;
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === TIMEOUT) {
        // Only a call that went out and got no answer in time says the link is slow.
        if (online && this.stateValue === "connected") this.grow();
        throw new RpcTimeout(deadline);
      }
      throw toRpcError(err);
    }
  }

  /** Doubles the deadline of attempts and calls, up to its cap. */
  private grow(): void {
    const next = Math.min(this.baseTimeout * MAX_TIMEOUT_FACTOR, this.timeout * 2);
    if (next === this.timeout) return;
    // centrifuge-js reads its `timeout` option at each attempt and call but has no
    // setter; the option object is where it reads it (the version is pinned).
    const config = (this.client as unknown as { _config?: { timeout?: unknown } })._config;
    if (!config || typeof config.timeout !== "number") return;
    config.timeout = this.timeout = next;
  }

  /** Resolves once connected (or rejects after `timeoutMs`). */
  ready(timeoutMs?: number): Promise<void> {
    return this.client.ready(timeoutMs);
  }

  private async token(): Promise<string> {
    let t: string | null | undefined;
    try {
      t = await this.opts.getToken();
    } catch (err) {
      if (err instanceof ReloginRequired || err instanceof UnauthorizedError) throw new UnauthorizedError(String(err));
      throw err; // temporary: retried with backoff
    }
    if (!t) throw new UnauthorizedError("no token");
    const shape = tokenShapeProblem(t);
    // Retried like a failing token endpoint, with a message that names the fix.
    if (shape) throw new Error(`getToken returned ${shape}; it must return the JWT itself`);
    return t;
  }

  /**
   * An attempt failed: stop Centrifuge's own retry and wait for a delay of ours,
   * known in advance, then try again (with a new token when `freshToken`).
   */
  private offline(problem: ConnectionProblem, freshToken = false): void {
    this.problem = problem;
    if (this.retryTimer) return this.emitStatus();
    // Ends the attempt and Centrifuge's reconnect timer ("disconnected", code 0).
    this.client.disconnect();
    const cap = Math.min(this.maxDelay, this.minDelay * 2 ** Math.min(this.failures++, 30));
    const delay = Math.round(Math.min(this.maxDelay, this.minDelay + Math.random() * cap));
    this.retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.attempt(freshToken);
    }, delay);
    this.emitStatus();
  }

  private async attempt(freshToken: boolean): Promise<void> {
    this.retryAt = undefined;
    if (this.closed) return;
    if (freshToken) {
      try {
        this.client.setToken(await this.token());
      } catch (err) {
        if (this.closed) return;
        if (err instanceof UnauthorizedError) {
          this.problem = { kind: "relogin", message: "invalid token" };
          this.emitStatus();
          this.events.emit("relogin", { reason: "invalid token" });
        } else this.offline({ kind: "token", message: (err as Error)?.message ?? String(err) }, true);
        return;
      }
    }
    if (!this.closed) this.client.connect();
  }

  private setState(s: ConnectionState): void {
    if (s === this.stateValue) return;
    this.stateValue = s;
    this.events.emit("state", s);
    this.emitStatus();
  }

  private emitStatus(): void {
    this.events.emit("status", this.status);
  }
}

/** ws(s)://host/connection/websocket for an http(s) server URL. */
export function websocketUrl(serverUrl: string): string {
  const u = new URL(serverUrl, typeof location !== "undefined" ? location.href : undefined);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  u.pathname = u.pathname.replace(/\/$/, "") + "/connection/websocket";
  u.search = "";
  u.hash = "";
  return u.toString();
}

/**
 * What is wrong with a token's shape, or null for a JWT's (three dot-separated
 * base64url parts): the usual slip is returning a token endpoint's JSON body.
 */
export function tokenShapeProblem(token: string): string | null {
  const t = token.trim();
  if (t.startsWith("{")) return "a JSON body (return its token field: `(await response.json()).token`)";
  if (t.startsWith('"')) return "a JSON string (parse it: `await response.json()`)";
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(t)) return "a string that is not a JWT (three dot-separated base64url parts)";
  return null;
}
