// The headless agent: one object that connects, keeps the entity store in sync,
// executes tools (when this tab leads) and exposes sessions, messages, prompts
// and events to a UI — the <rtc-agent> element or the host site's own.

import { Executor } from "../executor/executor.js";
import { Journal } from "../executor/journal.js";
import { ConnectedLeadership, createLeadership } from "../executor/leader.js";
import { Outbox } from "../executor/outbox.js";
import { PromptBoard, type Prompt, type PromptAnswer } from "../executor/prompts.js";
import type { Message, MessageSendResult, Rtc, Session, SessionResult, Turn, TurnQueuedResult, WorkMode } from "../protocol/types.js";
import { RpcError, TURN_TERMINAL, WORK_MODES, isRetryable } from "../protocol/types.js";
import { readAgentMd, utf8Bytes, VIEW_CONTEXT_MAX_BYTES, viewsToSend } from "./context.js";
import { Connection, type ConnectionState, type ConnectionStatus, websocketUrl } from "../realtime/connection.js";
import { deviceId as storedDeviceId } from "../realtime/device.js";
import { EntityStore } from "../realtime/entities.js";
import { hydrateSession } from "./hydrate.js";
import { LiveStreams } from "../realtime/live.js";
import { type WritingCall, WritingCalls } from "../realtime/writing.js";
import { TopicSync } from "../realtime/topic.js";
import { ScriptRunner } from "../script/runner.js";
import { SearchClient } from "../tools/search/client.js";
import { openStateDb, stateDbName } from "../state/db.js";
import { requestPersistence } from "../state/persist.js";
import { ToolRegistry } from "../tools/registry.js";
import type { HostToolDefinition, HostTools, ToolArgs, ToolParameters, ToolTypes } from "../tools/typed.js";
import { bridgeWebMcp } from "./webmcp.js";
import { Emitter, backoffMs, sleep } from "../util/emitter.js";
import { VirtualFS } from "../vfs/vfs.js";
import type { MethodName, MethodParams, MethodResult } from "../protocol/methods.js";
import type { Agent, AgentEvents, AgentOptions, AgentStats, CallParams, SendOptions } from "./types.js";

/**
 * Creates an agent, opens its storage and connects. Each of `options.tools` is
 * typed by its own `parameters` (a misspelt argument does not compile).
 */
export async function createAgent<const T extends readonly ToolParameters[] = []>(options: Omit<AgentOptions, "tools"> & { tools?: HostTools<T> }): Promise<Agent>;
export async function createAgent(options: AgentOptions): Promise<Agent> {
  if (typeof options?.getToken !== "function") throw new TypeError("createAgent needs a getToken function");
  let firstToken: string | undefined;
  let userId = options.userId;
  if (!userId) {
    firstToken = (await options.getToken()) ?? undefined;
    userId = firstToken ? subjectOf(firstToken) : undefined;
    if (!userId) throw new TypeError("createAgent: no userId given and the token has no readable `sub`");
  }
  const device = options.deviceId ?? (await storedDeviceId());
  const [db, vfs] = await Promise.all([openStateDb(stateDbName(userId, device)), VirtualFS.open({ userId, deviceId: device })]);
  if (options.persistStorage !== false) void requestPersistence();
  const agent = new AgentCore(options, userId, device, db, vfs, firstToken);
  agent.connect();
  return agent;
}

/** How long "Continue here" waits for a change before it asks the server again. */
const MOVE_RECHECK_MS = 15_000;
/** The least it waits after a refusal, whatever this tab sees: no tight loop of refusals. */
const MOVE_MIN_WAIT_MS = 1_000;

/**
 * The agent typed by the tool map of the host's tools (`InferToolTypes<typeof
 * tools>`): its `rtcs()` and `prompts()` then narrow each call by its tool. A
 * type only: the map is the host's word for the tools it registers, and
 * nothing checks it at run time.
 */
export function withToolTypes<TT extends ToolTypes>(agent: Agent): Agent<TT> {
  return agent as unknown as Agent<TT>;
}

/**
 * The agent behind the public `Agent` interface. Not exported by the package:
 * a host gets one from createAgent and sees the interface, whose views are
 * read-only; the SDK's own parts and tests use the rest.
 */
export class AgentCore implements Agent {
  readonly events = new Emitter<AgentEvents>();
  /** Identifies this tab in the journal and the lease. */
  readonly tabId: string = crypto.randomUUID();
  readonly serverUrl: string;
  readonly tools = new ToolRegistry();
  readonly store: EntityStore;
  private readonly script: ScriptRunner;
  /** Runs grep and find in a worker of the sandbox frame. */
  private readonly search: SearchClient;
  private readonly conn: Connection;
  private readonly topic: TopicSync;
  private readonly live: LiveStreams;
  private readonly writing = new WritingCalls();
  private readonly executor: Executor;
  private readonly promptBoard: PromptBoard;
  private readonly leadership: ConnectedLeadership;
  private readonly hydrating = new Map<string, Promise<void>>();
  private readonly ready: Promise<void>;
  private destroyed = false;
  private stopWebMcp: (() => void) | null = null;
  private started = false;
  defaultWorkMode: WorkMode;
  readonly modes: readonly WorkMode[];
  /** Counters of the Topic rules at work (diagnostics, tests). */
  readonly stats: AgentStats = { refills: 0, refilled: 0, resets: 0, lastReset: "", duplicates: 0 };

  constructor(
    options: AgentOptions,
    readonly userId: string,
    readonly deviceId: string,
    private readonly db: IDBDatabase,
    readonly vfs: VirtualFS,
    firstToken?: string,
  ) {
    this.serverUrl = options.serverUrl ?? location.origin;
    // In the given order: the first is where a chat goes when its mode is not offered (as on the server).
    this.modes = options.modes ? [...new Set(options.modes.filter((m) => WORK_MODES.includes(m)))] : WORK_MODES;
    if (this.modes.length === 0) throw new TypeError(`modes: name at least one of ${WORK_MODES.join(", ")}`);
    const mode = options.workMode ?? "edit";
    this.defaultWorkMode = this.modes.includes(mode) ? mode : this.modes[0]!;
    this.store = new EntityStore(db);
    // Named in the sandbox's error when the default location (next to the SDK's code) fails.
    const serverSandboxUrl = `${this.serverUrl.replace(/\/+$/, "")}/sdk/sandbox.html`;
    this.script = new ScriptRunner({
      vfs,
      sandboxUrl: options.sandboxUrl,
      serverSandboxUrl,
      timeoutMs: options.scriptTimeoutMs,
      memoryLimitBytes: options.scriptMemoryLimitBytes,
    });
    this.search = new SearchClient({ sandboxUrl: options.sandboxUrl, serverSandboxUrl, timeoutMs: options.searchTimeoutMs });
    let pendingToken = firstToken;
    this.conn = new Connection({
      url: websocketUrl(this.serverUrl),
      deviceId,
      getToken: async () => {
        const t = pendingToken;
        pendingToken = undefined;
        return t ?? options.getToken();
      },
      minReconnectDelayMs: options.minReconnectDelayMs,
      maxReconnectDelayMs: options.maxReconnectDelayMs,
      timeoutMs: options.timeoutMs,
    });
    const call = <T>(method: string, params: object) => this.conn.call<T>(method, params);
    this.topic = new TopicSync(this.store, call);
    this.live = new LiveStreams(call, {
      isFinal: (id) => {
        const m = this.store.messages.get(id);
        return !!m && m.status !== "streaming";
      },
      onMessage: (m) => void this.store.merge([{ kind: "message", entity: m }]).catch((e) => this.events.emit("error", asError(e))),
    });
    const ns = `${encodeURIComponent(userId)}/${encodeURIComponent(deviceId)}`;
    this.promptBoard = new PromptBoard(`rtc-agent-prompts/${ns}`);
    const journal = new Journal(db);
    const outbox = new Outbox(journal, call, { baseMs: options.retryBaseMs, capMs: options.retryCapMs });
    const locks = options.locks === undefined ? (globalThis.navigator?.locks ?? null) : options.locks;
    // Only a connected tab may hold the executor role: one that cannot reach the
    // server would otherwise keep it from a tab that can.
    this.leadership = new ConnectedLeadership(createLeadership(`rtc-agent-executor/${ns}`, db, this.tabId, locks), {
      busy: async () => (await journal.entries()).some((e) => e.phase === "executing" && e.tab === this.tabId),
    });
    this.executor = new Executor({
      journal,
      outbox,
      call,
      store: this.store,
      deviceId,
      tabId: this.tabId,
      tools: this.tools,
      context: () => ({ vfs: this.vfs, script: this.script, search: this.search }),
      prompts: this.promptBoard,
      leadership: this.leadership,
    });
    // Typed where they were written (createAgent, defineTool); checked again at every call.
    for (const t of options.tools ?? []) this.registerTool(t as HostToolDefinition);
    if (options.webmcp !== false) this.stopWebMcp = bridgeWebMcp(this);
    this.wire();
    // Old journal entries are only needed while their RTCs could still be delivered.
    this.ready = this.store.load().then(() => void journal.prune(7 * 24 * 3600_000).catch(() => undefined));
  }

  // ---- connection -------------------------------------------------------------

  get connectionState(): ConnectionState {
    return this.conn.state;
  }

  /** The connection's state with the time of the next attempt and the cause of the last failure. */
  get connectionStatus(): ConnectionStatus {
    return this.conn.status;
  }

  /** While offline and waiting to retry: tries to connect now. */
  reconnectNow(): void {
    this.conn.retryNow();
  }

  /** True when this tab is the one executing tools for this user and device. */
  get isExecutor(): boolean {
    return this.executor.isLeader;
  }

  /** Connects (createAgent does); after a `relogin`, call it again once the user logged in. */
  connect(): void {
    void this.ready.then(() => {
      if (this.destroyed) return;
      if (!this.started) this.executor.start();
      this.started = true;
      this.conn.connect();
    });
  }

  /** Calls a v1 method over the socket (see Methods for what each takes and answers). */
  call<M extends MethodName>(method: M, ...params: CallParams<M>): Promise<MethodResult<M>> {
    return this.conn.call<MethodResult<M>>(method, params[0] ?? {});
  }

  destroy(): void {
    this.destroyed = true;
    this.stopWebMcp?.();
    this.executor.stop();
    this.topic.close();
    this.live.close();
    this.conn.close();
    this.promptBoard.dispose();
    this.script.dispose();
    this.search.dispose();
    this.vfs.close();
    this.db.close();
    this.events.clear();
  }

  // ---- conversation -----------------------------------------------------------

  /**
   * Sends a user message; the turn runs on the server, its progress arrives as
   * events. `/AGENT.md` of the virtual file system, when there, goes with it as
   * `context.agent_md` (capped at 32 KiB).
   */
  async send(text: string, opts: SendOptions = {}): Promise<MessageSendResult> {
    const hostTools = this.tools
      .list()
      .filter((t) => t.kind === "host")
      .map(({ name, description, parameters, approval }) => ({ name, description, parameters, ...(approval ? { approval } : {}) }));
    const agentMd = await readAgentMd(this.vfs);
    const kept = opts.sessionId ? this.viewContexts.get(opts.sessionId) : undefined;
    const views = kept ? viewsToSend(kept) : [];
    const params = {
      client_id: crypto.randomUUID(), // the idempotency key: retries cannot send twice
      session_id: opts.sessionId,
      content: { text },
      work_mode: opts.workMode ?? (opts.sessionId ? undefined : this.defaultWorkMode),
      tools: hostTools.length ? hostTools : undefined,
      context: agentMd === undefined && !views.length ? undefined : { agent_md: agentMd, views: views.length ? views : undefined },
    };
    const call = (p: typeof params) =>
      callIdempotent<MethodResult<"v1.message.send">>(this.conn.call.bind(this.conn), "v1.message.send" satisfies MethodName, p satisfies MethodParams<"v1.message.send">);
    let res: MessageSendResult;
    try {
      res = await call(params);
    } catch (e) {
      // Views' contexts the server refuses (another limit, a view it no
      // longer knows) are dropped, and the person's message goes without them.
      if (!views.length || !(e instanceof RpcError) || !e.message.includes("context.views")) throw e;
      this.viewContexts.delete(opts.sessionId!);
      return call({ ...params, client_id: crypto.randomUUID(), context: agentMd === undefined ? undefined : { agent_md: agentMd, views: undefined } });
    }
    // Sent: each view's context goes once (unless the view changed it meanwhile).
    for (const v of views) if (kept?.get(v.rtc_id) === v.text) kept.delete(v.rtc_id);
    return res;
  }

  /** The context each tool view keeps for the model, by session, then by the view's call (oldest first). */
  private readonly viewContexts = new Map<string, Map<string, string>>();

  setViewContext(sessionId: string, rtcId: string, text: string): boolean {
    if (utf8Bytes(text) > VIEW_CONTEXT_MAX_BYTES) return false;
    let kept = this.viewContexts.get(sessionId);
    if (!kept) this.viewContexts.set(sessionId, (kept = new Map()));
    kept.delete(rtcId); // the newest last
    if (text) kept.set(rtcId, text);
    return true;
  }

  /**
   * Starts a new session from a user message of another (`v1.session.fork`): the
   * finished turns before it are copied, the message is replaced by `text` (or
   * kept) and answered there. The source session is unchanged.
   */
  fork(sessionId: string, messageId: string, text?: string): Promise<MessageSendResult> {
    const params = { client_id: crypto.randomUUID(), session_id: sessionId, message_id: messageId, text: text || undefined };
    return callIdempotent<MethodResult<"v1.session.fork">>(this.conn.call.bind(this.conn), "v1.session.fork" satisfies MethodName, params satisfies MethodParams<"v1.session.fork">);
  }

  /**
   * Queues a compaction of the session (`v1.session.compact`): the model writes a
   * summary (a message with role `summary`) that stands in for the messages before
   * it from then on; they stay in the history. `instruction` says what to keep.
   */
  compact(sessionId: string, instruction?: string): Promise<TurnQueuedResult> {
    // Not repeated on a lost answer: the method has no idempotency key.
    return this.call("v1.session.compact", { session_id: sessionId, instruction: instruction?.trim() || undefined });
  }

  /**
   * Runs the session's latest turn again when it failed or was stopped
   * (`v1.turn.retry`). The client_id is derived from the turn, so asking twice,
   * from two tabs, after a reload or after a lost answer queues one retry: the
   * server answers a repeat with the first result.
   */
  retry(sessionId: string, turnId: string): Promise<TurnQueuedResult> {
    const params = { session_id: sessionId, turn_id: turnId, client_id: retryClientId(turnId) } satisfies MethodParams<"v1.turn.retry">;
    return callIdempotent<MethodResult<"v1.turn.retry">>(this.conn.call.bind(this.conn), "v1.turn.retry" satisfies MethodName, params);
  }

  /** Stops the running turn of a session (`v1.turn.stop`). */
  async stop(sessionId: string): Promise<Turn> {
    const res = await this.call("v1.turn.stop", { session_id: sessionId });
    await this.store.merge([{ kind: "turn", entity: res.turn }]);
    return res.turn;
  }

  sessions(): Session[] {
    return [...this.store.listSessions()];
  }

  session(id: string): Session | undefined {
    const s = this.store.sessions.get(id);
    return s && !s.deleted ? s : undefined;
  }

  /** True when this device created the session (and so may send to it and runs its tools). */
  ownsSession(id: string): boolean {
    return this.store.sessions.get(id)?.device_id === this.deviceId;
  }

  messages(sessionId: string): Message[] {
    return [...this.store.messagesOf(sessionId)];
  }

  turns(sessionId: string): Turn[] {
    return [...this.store.turnsOf(sessionId)];
  }

  rtcs(sessionId: string): Rtc[] {
    return [...this.store.rtcsOf(sessionId)];
  }

  /** What a message shows now: the Live text while streaming, else the stored text. */
  messageText(m: Message): string {
    return m.status === "streaming" ? (this.live.text(m.id) ?? m.text) : m.text;
  }

  writingCalls(sessionId: string): WritingCall[] {
    return this.writing.of(sessionId);
  }

  /** Makes sure a session's messages, turns and RTCs are loaded (once per reset). */
  loadSession(sessionId: string): Promise<void> {
    if (this.store.isHydrated(sessionId)) return Promise.resolve();
    let p = this.hydrating.get(sessionId);
    if (!p) {
      p = this.topic
        .exclusive(() => hydrateSession(this.store, (m, prm) => this.conn.call(m, prm), sessionId))
        .then((streaming) => {
          for (const m of streaming) this.live.watch(m, true);
        })
        .finally(() => this.hydrating.delete(sessionId));
      this.hydrating.set(sessionId, p);
    }
    return p;
  }

  renameSession(id: string, title: string): Promise<Session> {
    return this.changeSession("v1.session.update", { session_id: id, title });
  }

  setWorkMode(id: string, mode: WorkMode): Promise<Session> {
    return this.changeSession("v1.session.update", { session_id: id, work_mode: mode });
  }

  /**
   * Takes back "Allow for this chat" of a tool: its next calls ask again, in every
   * tab and on every device (`v1.session.update` `revoke_approvals`).
   */
  revokeApproval(id: string, tool: string): Promise<Session> {
    return this.changeSession("v1.session.update", { session_id: id, revoke_approvals: [tool] });
  }

  async moveSessionHere(id: string, opts: { signal?: AbortSignal; onWait?: (reason: string) => void } = {}): Promise<Session> {
    for (;;) {
      opts.signal?.throwIfAborted();
      try {
        return await this.changeSession("v1.session.move", { session_id: id });
      } catch (err) {
        // A call runs on the other device: wait for it to end, then ask again.
        if (!(err instanceof RpcError) || err.code !== "conflict") throw err;
        opts.onWait?.(err.message);
        await this.untilNoCallRuns(id, opts.signal);
      }
    }
  }

  /**
   * Resolves, at least a second after the refusal, once a change leaves none
   * of the session's calls executing in a browser (as this tab's copy of the
   * session says), or after a while in any case: the server decides again.
   */
  private untilNoCallRuns(sessionId: string, signal?: AbortSignal): Promise<void> {
    const running = () => this.rtcs(sessionId).some((r) => r.status === "executing" && r.executor !== "server");
    const since = Date.now();
    return new Promise<void>((resolve, reject) => {
      let soon: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        off();
        clearTimeout(timer);
        clearTimeout(soon);
        signal?.removeEventListener("abort", abort);
      };
      const finish = () => {
        done();
        resolve();
      };
      const abort = () => {
        done();
        reject(signal!.reason);
      };
      const off = this.events.on("change", () => {
        if (!running() && soon === undefined) soon = setTimeout(finish, Math.max(0, since + MOVE_MIN_WAIT_MS - Date.now()));
      });
      const timer = setTimeout(finish, MOVE_RECHECK_MS);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }

  closeSession(id: string): Promise<Session> {
    return this.changeSession("v1.session.close", { session_id: id });
  }

  openSession(id: string): Promise<Session> {
    return this.changeSession("v1.session.open", { session_id: id });
  }

  deleteSession(id: string): Promise<Session> {
    return this.changeSession("v1.session.delete", { session_id: id });
  }

  // ---- tools and prompts --------------------------------------------------------

  /**
   * Offers a host function to the model (sent with every message) and to scripts
   * (`rtcAgent.call(name, args)`). The server decides whether a call needs the
   * user's confirmation (work mode), exactly as for the built-in tools, unless
   * the tool declares `needsApproval`.
   *
   * `parameters` is a JSON Schema (the arguments' type is inferred from a literal
   * one) or any Standard Schema (zod 4, valibot, …). Each call's arguments are
   * validated before `execute`; a wrong one gives the model a tool error that
   * names the field.
   */
  registerTool<const P extends ToolParameters = ToolParameters, R = unknown>(def: HostToolDefinition<P, ToolArgs<P>, string, R>): void {
    this.tools.registerHostTool(def);
    const name = def.name;
    this.script.setFunction(name, (args) => this.tools.callHost(name, args));
  }

  unregisterTool(name: string): void {
    this.tools.unregister(name);
    this.script.removeFunction(name);
  }

  /** Open confirmations, askUser forms and MCP servers' questions (of any tab of this device). */
  prompts(): Prompt[] {
    return this.promptBoard.list();
  }

  answer(id: string, answer: PromptAnswer): void {
    this.promptBoard.answer(id, answer);
  }

  // ---- internals ----------------------------------------------------------------

  private async changeSession<M extends "v1.session.update" | "v1.session.move" | "v1.session.close" | "v1.session.open" | "v1.session.delete">(method: M, params: MethodParams<M>): Promise<Session> {
    const res: SessionResult = await this.conn.call<MethodResult<M>>(method, params);
    await this.store.merge([{ kind: "session", entity: res.session }]);
    return res.session;
  }

  private wire(): void {
    const c = this.conn.events;
    c.on("state", (s) => {
      this.leadership.setOnline(s === "connected");
      this.events.emit("state", s);
      if (s === "connected") void this.executor.refresh();
    });
    c.on("status", (s) => this.events.emit("status", s));
    c.on("relogin", (r) => this.events.emit("relogin", r));
    c.on("subscribed", (s) => {
      if (s.channel.startsWith("topic:")) void this.topic.subscribed(s.recovered, s.position);
    });
    c.on("topic", (u) => void this.topic.publication(u));
    c.on("delta", (d) => this.live.delta(d));
    c.on("callDelta", (d) => this.writing.delta(d));
    this.topic.events.on("refill", (r) => {
      this.stats.refills++;
      this.stats.refilled += r.count;
    });
    this.topic.events.on("duplicate", () => this.stats.duplicates++);
    this.topic.events.on("reset", (r) => {
      this.stats.resets++;
      this.stats.lastReset = r.reason;
      this.events.emit("reset", r);
      this.live.close();
      this.writing.close();
    });
    this.topic.events.on("error", (e) => this.events.emit("error", asError(e)));
    this.store.events.on("change", (ch) => {
      if (ch.kind === "message") {
        if (ch.entity.status === "streaming") this.live.watch(ch.entity);
        else this.live.finish(ch.entity.id);
      } else if (ch.kind === "rtc") {
        this.writing.settle(ch.entity.session_id, ch.entity.turn_id, ch.entity.step);
      } else if (ch.kind === "turn" && TURN_TERMINAL.has(ch.entity.status)) {
        this.writing.endTurn(ch.entity.session_id, ch.entity.id);
      }
      this.events.emit("change", ch);
    });
    this.store.events.on("hydrated", (id) => this.events.emit("hydrated", id));
    this.store.events.on("unsaved", (e) => this.events.emit("error", asError(e)));
    this.live.events.on("text", (t) => this.events.emit("text", t));
    this.writing.events.on("change", (w) => this.events.emit("writing", w));
    this.promptBoard.events.on("change", (p) => this.events.emit("prompts", p));
    this.executor.events.on("error", (e) => this.events.emit("error", asError(e)));
    this.leadership.events.on("change", (v) => this.events.emit("leader", v));
  }
}

/**
 * The idempotency key of a turn's retry. Only a session's latest turn can be
 * retried and a retried turn is no longer the latest, so one key per turn is
 * enough; a retry of the retry is another turn, with its own key.
 */
export function retryClientId(turnId: string): string {
  return `retry:${turnId}`;
}

/**
 * Calls a method whose params carry a `client_id` (the server answers a repeat
 * with the first result): temporary failures are retried with the same params,
 * five attempts in all, with backoff.
 */
export async function callIdempotent<T>(
  call: <R>(method: string, params: object) => Promise<R>,
  method: string,
  params: { client_id: string } & Record<string, unknown>,
  opts: { attempts?: number; baseMs?: number } = {},
): Promise<T> {
  const attempts = opts.attempts ?? 5;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call<T>(method, params);
    } catch (err) {
      if (!isRetryable(err) || attempt >= attempts - 1) throw err;
      await sleep(backoffMs(attempt, opts.baseMs));
    }
  }
}

/** The `sub` claim of a JWT, read without verifying (only to name local storage). */
export function subjectOf(token: string): string | undefined {
  try {
    const part = token.split(".")[1] ?? "";
    const json = atob(part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "="));
    const sub = (JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (ch) => ch.charCodeAt(0)))) as { sub?: unknown }).sub;
    return typeof sub === "string" && sub ? sub : undefined;
  } catch {
    return undefined;
  }
}

export { RpcError };

/** What the `error` event carries: the error itself, or one that says what was thrown. */
function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(typeof e === "string" ? e : `non-error thrown: ${String(e)}`);
}
