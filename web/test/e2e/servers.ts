// Processes and servers of the end-to-end suite: the Go server (built once per
// run, one process per test on a random loopback port, SIGKILL-able and
// restartable on the same data file and port), the streamtool that edits a
// stopped server's history, and a static "host site" on another origin.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { defer } from "./harness.js";

const run = promisify(execFile);

export interface Paths {
  repo: string;
  web: string;
  build: string;
}

export const bin = { server: "", streamtool: "", mcpserver: "" };

/** Builds the server (embedding the current web/dist) and the streamtool. */
export async function buildBinaries(p: Paths): Promise<void> {
  bin.server = join(p.build, "rtcagent");
  bin.streamtool = join(p.build, "streamtool");
  bin.mcpserver = join(p.build, "mcpserver");
  // One go command: all link in parallel.
  await run("go", ["build", "-o", p.build + "/", "./cmd/rtcagent", "./web/test/testdata/streamtool", "./internal/testkit/mcptest/mcpserver"], { cwd: p.repo });
}

/** Builds examples/ag-ui with its own build script, as its README says, into build/ag-ui. */
export async function buildAgUiExample(p: Paths): Promise<void> {
  await run("node", [join(p.repo, "examples/ag-ui/build.mjs"), join(p.build, "ag-ui")], { cwd: p.repo });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface GoOptions {
  /** The scripted model's script (internal/llm/scripted/doc.go). */
  script: object;
  args?: string[];
}

export class GoServer {
  proc: ChildProcess | null = null;
  log = "";
  readonly dataFile: string;
  readonly scriptFile: string;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly opts: GoOptions,
  ) {
    this.dataFile = join(dir, "data.db");
    this.scriptFile = join(dir, "script.json");
  }

  /** Starts a server for the current test; it is stopped and removed after the test. */
  static async start(opts: GoOptions): Promise<GoServer> {
    const dir = await mkdtemp(join(tmpdir(), "rtc-e2e-"));
    const s = new GoServer(dir, await freePort(), opts);
    await writeFile(s.scriptFile, JSON.stringify(opts.script));
    defer(async () => {
      await s.kill();
      await rm(dir, { recursive: true, force: true });
    });
    await s.start();
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ["serve", "-dev", "-addr", `127.0.0.1:${this.port}`, "-data", this.dataFile, "-model-provider", "scripted", "-script", this.scriptFile,
      "-poll-interval", "100ms", "-exec-timeout", "5m", "-log-level", "warn", ...(this.opts.args ?? [])];
    const proc = spawn(bin.server, args, { stdio: ["ignore", "pipe", "pipe"] });
    this.proc = proc;
    proc.stdout!.on("data", (d: Buffer) => (this.log += d.toString()));
    proc.stderr!.on("data", (d: Buffer) => (this.log += d.toString()));
    this.exited = new Promise((resolve) => proc.once("exit", () => resolve()));
    const end = Date.now() + 15_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${this.log}`);
      try {
        const r = await fetch(`${this.url}/readyz`);
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > end) throw new Error(`server not ready:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  /** Kills the process (SIGKILL by default: no graceful shutdown) and waits for its exit. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    p.kill(signal);
    await this.exited;
    this.proc = null;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** Restarts with a new development token secret: every token issued so far is refused. */
  async restartWithNewSecret(): Promise<void> {
    await this.kill();
    await rm(join(dirname(this.dataFile), ".rtcagent-dev-secret"), { force: true });
    await this.start();
  }

  /** Runs streamtool on the data file; the server must be stopped. */
  async streamtool(...args: string[]): Promise<{ Epoch: string; Top: number; Floor: number }> {
    if (this.proc) throw new Error("stop the server before editing its data file");
    const { stdout } = await run(bin.streamtool, ["-data", this.dataFile, ...args]);
    return JSON.parse(stdout) as { Epoch: string; Top: number; Floor: number };
  }

  /** A development token for `user`. */
  async token(user: string): Promise<string> {
    const r = await fetch(`${this.url}/api/dev/token`, { method: "POST", body: JSON.stringify({ user_id: user }) });
    return ((await r.json()) as { token: string }).token;
  }

  /** Calls a v1 method over HTTP as `user` on `device`. */
  async rpc<T>(user: string, device: string, method: string, params: object): Promise<T> {
    const r = await fetch(`${this.url}/api/v1/rpc/${method}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await this.token(user)}`, "X-Device-Id": device, "Content-Type": "application/json" },
      body: JSON.stringify(params),
    });
    const body = (await r.json()) as T & { error?: { code: string; message: string } };
    if (!r.ok) throw new Error(`${method}: ${r.status} ${JSON.stringify(body.error)}`);
    return body;
  }
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };

/**
 * The "host site": test/e2e/host.html on http://localhost:<port> (another origin
 * than the Go server), the SDK from its own /sdk/ (as from a CDN; the page keeps
 * loading while the Go server is down), /token proxying the Go server's dev
 * token endpoint, and /hook/<name> for actions a page asks the test to do.
 */
export type Hook = (q: URLSearchParams) => Promise<unknown>;

/** How /token answers for a user instead of asking the Go server (tests of failures). */
export type TokenOverride = { status: number } | { token: string };

/**
 * The host-site CSP of web/README.md ("Host sites" section: the line that starts
 * with `Content-Security-Policy:`) for a server on 127.0.0.1:port, after
 * `default-src 'none'`: so the test breaks when the README's advice does.
 */
export async function readmeHostCsp(p: Paths, port: number): Promise<string> {
  const readme = await readFile(join(p.web, "README.md"), "utf8");
  const line = /^Content-Security-Policy: (.*agent\.example\.com.*)$/m.exec(readme)?.[1];
  if (!line) throw new Error("web/README.md gives no host-site Content-Security-Policy line");
  const csp = line.replaceAll("https://agent.example.com", `http://127.0.0.1:${port}`).replaceAll("wss://agent.example.com", `ws://127.0.0.1:${port}`);
  return `default-src 'none'; ${csp}`;
}

export class HostServer {
  /** Per user id: a failing status or a fixed token for /token. */
  readonly tokenOverrides = new Map<string, TokenOverride>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    /** Named actions a page can trigger with fetch("/hook/<name>"). */
    readonly hooks: Map<string, Hook>,
  ) {}

  static async start(p: Paths): Promise<HostServer> {
    const hooks = new Map<string, Hook>();
    let self: HostServer | null = null;
    const server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://x");
        const send = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => res.writeHead(status, headers).end(body);
        try {
          if (url.pathname === "/token") {
            const o = self?.tokenOverrides.get(url.searchParams.get("user") ?? "");
            if (o && "status" in o) return send(o.status, "token service unavailable");
            if (o) return send(200, JSON.stringify({ token: o.token }), { "Content-Type": "application/json" });
            const r = await fetch(`http://127.0.0.1:${url.searchParams.get("go")}/api/dev/token`, { method: "POST", body: JSON.stringify({ user_id: url.searchParams.get("user") }) });
            return send(r.status, await r.text(), { "Content-Type": "application/json" });
          }
          if (url.pathname.startsWith("/hook/")) {
            const fn = hooks.get(url.pathname.slice(6));
            if (!fn) return send(404, "no hook");
            return send(200, JSON.stringify((await fn(url.searchParams)) ?? null), { "Content-Type": "application/json" });
          }
          if (url.pathname.startsWith("/sdk/")) {
            const name = url.pathname.slice(5);
            const manifest = JSON.parse(await readFile(join(p.web, "dist/headers.json"), "utf8")) as Record<string, Record<string, string>>;
            if (!Object.hasOwn(manifest, name)) return send(404, "not found");
            return send(200, await readFile(join(p.web, "dist", name)), manifest[name]);
          }
          if (url.pathname === "/late.html" || url.pathname === "/late.js" || url.pathname === "/modes.html") {
            // Pages of one element on the server named by ?go= (late: options set in a script after it).
            const go = url.searchParams.get("go") ?? "0";
            const body = (await readFile(join(p.web, "test/e2e", url.pathname.slice(1)), "utf8")).replaceAll("__GO__", go);
            return send(200, body, {
              "Content-Type": TYPES[extname(url.pathname)]!,
              "Cache-Control": "no-cache",
              "Content-Security-Policy": `default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' http://127.0.0.1:${go} ws://127.0.0.1:${go}; frame-src 'self'`,
            });
          }
          if (url.pathname === "/csp.html" || url.pathname === "/csp.js") {
            // The CSP the README gives host sites, and nothing else allowed (default-src 'none').
            const go = url.searchParams.get("go") ?? "0";
            return send(200, await readFile(join(p.web, "test/e2e", url.pathname.slice(1))), {
              "Content-Type": TYPES[extname(url.pathname)]!,
              "Cache-Control": "no-cache",
              "Content-Security-Policy": await readmeHostCsp(p, Number(go)),
            });
          }
          if (url.pathname === "/host.html" || url.pathname === "/host.js") {
            const go = url.searchParams.get("go") ?? "0";
            return send(200, await readFile(join(p.web, "test/e2e", url.pathname.slice(1))), {
              "Content-Type": TYPES[extname(url.pathname)]!,
              "Cache-Control": "no-cache",
              // A strict host CSP: the SDK needs only its own origin, the server's socket and the sandbox frame.
              "Content-Security-Policy": `default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ws://127.0.0.1:${go}; frame-src 'self'`,
            });
          }
          if (url.pathname.startsWith("/ag-ui/")) {
            // The AG-UI example (examples/ag-ui, built by its build.mjs into build/ag-ui): nothing
            // allowed but its own files and the Go server's endpoints.
            const name = normalize(url.pathname.slice("/ag-ui/".length) || "index.html");
            if (name.startsWith("..")) return send(403, "forbidden");
            const go = url.searchParams.get("server") ?? "";
            return send(200, await readFile(join(p.build, "ag-ui", name)), {
              "Content-Type": TYPES[extname(name)] ?? "text/css; charset=utf-8",
              "Cache-Control": "no-cache",
              "Content-Security-Policy": `default-src 'none'; script-src 'self'; style-src 'self'; connect-src ${go}`,
            });
          }
          if (url.pathname === "/favicon.ico") return send(204, "");
          send(404, "not found");
        } catch (err) {
          send(500, String(err));
        }
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new HostServer(server, (server.address() as { port: number }).port, hooks);
    return self;
  }

  /** The host page for a server, with options as query parameters (see host.js). */
  url(go: GoServer, params: Record<string, string> = {}): string {
    const q = new URLSearchParams({ go: String(go.port), ...params });
    return `http://localhost:${this.port}/host.html?${q}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
