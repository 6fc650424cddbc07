// One Centrifuge connection (JSON protocol) per tab: connect with a token and
// `{device_id}`, server-side subscriptions to topic:u=<id> and live:u=<id>
// arriving as client-level events, RPC calls, token refresh and re-login.

import { Centrifuge, UnauthorizedError } from "centrifuge";
import type { Delta, Update } from "../protocol/types.js";
import { toRpcError } from "../protocol/types.js";
import type { Position } from "../state/db.js";
import { Emitter, backoffMs } from "../util/emitter.js";

export type ConnectionState = "connecting" | "connected" | "disconnected";

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
  /** Timeout of calls and connection attempts. Default 10 s. */
  timeoutMs?: number;
}

export interface ConnectionEvents {
  state: ConnectionState;
  subscribed: { channel: string; recovered: boolean; position: Position | undefined };
  topic: Update;
  delta: Delta;
  relogin: { reason: string };
}

const INVALID_TOKEN = 3500;

export class Connection {
  readonly events = new Emitter<ConnectionEvents>();
  private readonly client: Centrifuge;
  private stateValue: ConnectionState = "disconnected";
  private invalidTokenRetries = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(private readonly opts: ConnectionOptions) {
    this.client = new Centrifuge(opts.url, {
      data: { device_id: opts.deviceId },
      getToken: () => this.token(),
      minReconnectDelay: opts.minReconnectDelayMs ?? 500,
      maxReconnectDelay: opts.maxReconnectDelayMs ?? 20_000,
      timeout: opts.timeoutMs ?? 10_000,
    });
    this.client.on("state", (ctx) => this.setState(ctx.newState as ConnectionState));
    this.client.on("connected", () => {
      this.invalidTokenRetries = 0;
    });
    this.client.on("disconnected", (ctx) => {
      if (this.closed) return;
      if (ctx.code === 1) this.events.emit("relogin", { reason: ctx.reason || "unauthorized" });
      // Centrifuge does not reconnect after "invalid token" (e.g. the server restarted
      // with a new secret). A fresh token may well be valid: try again with backoff.
      else if (ctx.code === INVALID_TOKEN) this.retryWithNewToken();
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
        const d = ctx.data as Delta;
        if (d && d.type === "message.delta") this.events.emit("delta", d);
      }
    });
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  connect(): void {
    this.closed = false;
    this.client.connect();
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.client.disconnect();
  }

  /** Calls a v1 method over the socket (waits for a connection up to the timeout). */
  async call<T>(method: string, params: object): Promise<T> {
    try {
      const res = await this.client.rpc(method, params);
      return res.data as T;
    } catch (err) {
      throw toRpcError(err);
    }
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
      throw err; // temporary: Centrifuge retries with backoff
    }
    if (!t) throw new UnauthorizedError("no token");
    return t;
  }

  private retryWithNewToken(): void {
    if (this.retryTimer) return;
    const delay = backoffMs(this.invalidTokenRetries++, 500, 20_000);
    this.retryTimer = setTimeout(async () => {
      this.retryTimer = null;
      if (this.closed) return;
      try {
        this.client.setToken(await this.token());
        this.client.connect();
      } catch (err) {
        if (err instanceof UnauthorizedError) this.events.emit("relogin", { reason: "invalid token" });
        else this.retryWithNewToken();
      }
    }, delay);
  }

  private setState(s: ConnectionState): void {
    if (s === this.stateValue) return;
    this.stateValue = s;
    this.events.emit("state", s);
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
