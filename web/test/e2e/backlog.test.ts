// A long reconnect backlog (issue 26, item 6): while the page is cut off, another
// device of the same user produces ~2 MB of Topic updates; the link comes back
// slow (a throttling proxy between Chromium and the server), so the first page
// of missed updates takes several times the page's connect deadline. The
// deadline grows after each timeout and pages shrink, so the backlog arrives in
// full and in offset order after a few attempts, not a loop of them.

import { createServer, type Server, type Socket, connect } from "node:net";
import { eq, note, ok, test, until, defer } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const ANSWER = 200_000;
const TURNS = 8;
const script = {
  name: "backlog",
  turns: [turn("(?i)long note", [{ chunks: ["A".repeat(ANSWER)] }]), turn("(?i).", [{ chunks: ["Reply to: ", "{{user}}"] }])],
};

/** A TCP proxy to `port` that can refuse connections and throttle what flows to the browser. */
class Proxy {
  private readonly sockets = new Set<Socket>();
  open = true;
  bytesPerSecond = 0;
  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<Proxy> {
    let self: Proxy | null = null;
    const server = createServer((client) => self!.accept(client, port));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new Proxy(server);
    defer(() => self!.close());
    return self;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Drops every connection; new ones are refused until `open` is set again. */
  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, port: number): void {
    if (!this.open) return void client.destroy();
    const up = connect(port, "127.0.0.1");
    for (const s of [client, up]) {
      this.sockets.add(s);
      s.on("close", () => (this.sockets.delete(s), client.destroy(), up.destroy()));
      s.on("error", () => undefined);
    }
    client.pipe(up);
    // Towards the browser at `bytesPerSecond`: pause the server's side after each chunk.
    up.on("data", (chunk: Buffer) => {
      client.write(chunk);
      if (!this.bytesPerSecond) return;
      up.pause();
      setTimeout(() => up.resume(), (chunk.length / this.bytesPerSecond) * 1000);
    });
  }
}

test("backlog: a reconnect backlog larger than one attempt can fetch arrives in full, in order, without a loop", async () => {
  const go = await GoServer.start({ script });
  const proxy = await Proxy.start(go.port);
  const user = "backlog-user";
  const timeout = 1500;
  const p = await AgentPage.open(await newProfile(), host.url(go, { user, go: String(proxy.port), timeout: String(timeout) }));
  await p.send("First visit");
  await p.waitForAnswer("Reply to: First visit");
  await p.page.evaluate(() => {
    const w = window as unknown as { __answers: number[] };
    w.__answers = [];
    const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
    a.events.on("change", (c) => {
      if (c.kind === "message" && c.entity.role === "assistant" && c.entity.status === "complete" && c.entity.text.length >= 200_000) w.__answers.push(c.entity.offset);
    });
  });
  proxy.cut();
  await until("the page to notice", async () => (await p.snapshot()).state !== "connected");
  for (let i = 0; i < TURNS; i++) {
    const r = await go.rpc<{ session_id: string }>(user, "tablet", "v1.message.send", { client_id: `tablet-${i}`, content: { text: `long note ${i} ${"n".repeat(50_000)}` } });
    await until("the tablet's turn to end", async () => !(await go.rpc<{ session: { active_turn_id?: string } }>(user, "tablet", "v1.session.get", { session_id: r.session_id })).session.active_turn_id);
  }
  const server = await go.rpc<{ top: number }>(user, "probe", "v1.update.list", { since_offset: 0, limit: 1 });
  let sockets = 0;
  p.page.on("websocket", () => sockets++);
  proxy.bytesPerSecond = 150_000;
  proxy.open = true;
  const started = Date.now();
  const snap = await until("the backlog to arrive", async () => {
    const s = await p.snapshot();
    return s.position?.offset === server.top ? s : null;
  }, 180_000, 250);
  const seconds = (Date.now() - started) / 1000;
  // The position is stored with the entities; their change events follow it.
  const answers = await until("every long answer's change event", async () => {
    const a = await p.page.evaluate(() => (window as unknown as { __answers: number[] }).__answers);
    return a.length >= TURNS ? a : null;
  }, 30_000, 250).catch(() => p.page.evaluate(() => (window as unknown as { __answers: number[] }).__answers));
  const conn = await p.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { conn: { timeoutMs: number } } }).agent.conn.timeoutMs);
  note(`backlog to offset ${server.top} at 150 kB/s: ${seconds.toFixed(1)} s, ${sockets} connection attempts, deadline ${timeout} ms → ${conn} ms, ${snap.stats.refills} refills of ${snap.stats.refilled} updates`);
  eq(answers.length, TURNS, "every long answer arrived");
  ok(answers.every((o, i) => i === 0 || o > answers[i - 1]!), `in offset order: ${answers.join(", ")}`);
  ok(sockets <= 8, `a few attempts, not a loop: ${sockets}`);
  proxy.bytesPerSecond = 0;
  await p.send("After the backlog");
  await p.waitForAnswer("Reply to: After the backlog");
  // The cut itself shows as failed WebSocket handshakes in the console: expected.
  eq(p.noErrors().filter((e) => !e.startsWith("WebSocket connection to")), [], "no page errors");
});
