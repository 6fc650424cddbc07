// Connection states a person understands: "Offline, retrying in N s" counting
// down after a failed attempt (and "retry now"), and a banner naming the cause
// when the server refuses the page's origin or its connection data (4501), when the host's token endpoint
// fails, and when the server rejects the token; each clears once connected.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = { name: "conn", turns: [turn("(?i)ping", [{ chunks: ["Pong."] }])] };

async function connText(p: AgentPage): Promise<string> {
  return p.page.locator("rtc-agent .conn").innerText();
}

async function connBanner(p: AgentPage): Promise<string> {
  const b = p.page.locator("rtc-agent .conn-banner");
  return (await b.isVisible()) ? b.innerText() : "";
}

/** Opens the host page without waiting for a connection. */
async function openHost(go: GoServer, params: Record<string, string>): Promise<AgentPage> {
  const p = new AgentPage(await (await newProfile()).newPage());
  await p.page.goto(host.url(go, params));
  return p;
}

test("conn offline: the header counts down to the next attempt; retry now connects", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "offline-user", minDelay: "4000", maxDelay: "8000" }));
  eq(await connText(p), "connected");
  await go.kill();
  const first = await until("the countdown", async () => /^Offline, retrying in (\d+) s$/.exec(await connText(p)), 30_000);
  const n = Number(first[1]);
  ok(n >= 2 && n <= 8, `a delay within the backoff: ${n} s`);
  const later = await until("the count to go down", async () => {
    const m = /^Offline, retrying in (\d+) s$/.exec(await connText(p));
    return m && Number(m[1]) < n ? Number(m[1]) : null;
  });
  ok(later < n, `counts down: ${n} → ${later}`);
  eq(await connBanner(p), "", "an unreachable server is said in the header, with no banner");
  eq(await p.page.locator("rtc-agent .conn").getAttribute("data-state"), "disconnected");
  await go.start();
  // Wait for a fresh countdown of at least 2 s, then ask for the attempt now.
  await until("a countdown with time left", async () => Number(/retrying in (\d+) s/.exec(await connText(p))?.[1] ?? 0) >= 2, 30_000);
  await p.page.locator("rtc-agent .conn").click();
  await until("connected again at once", async () => (await connText(p)) === "connected", 1500);
  await p.send("ping");
  includes(await p.waitForAnswer("Pong."), "Pong.");
});

test("conn origin refused: a banner names the cause, the server logs the Origin", async () => {
  const go = await GoServer.start({ script, args: ["-allowed-origins", "https://app.example"] });
  const p = await openHost(go, { user: "origin-user" });
  const text = await until("the origin banner", () => connBanner(p));
  const origin = new URL(host.url(go)).origin;
  includes(text, `does not accept connections from this page (${origin})`);
  includes(text, "origin not allowed");
  await until("offline without retrying", async () => (await connText(p)) === "offline");
  await until("the warning in the server log", () => go.log.includes("websocket origin refused") && go.log.includes(origin));
  ok(/level=WARN|"level":"WARN"/.test(go.log), `logged at warn level:\n${go.log}`);
  const state = await p.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { connectionStatus: { problem?: { kind: string } } } }).agent.connectionStatus.problem?.kind);
  eq(state, "origin");
});

test("conn bad connect data: a device id the server refuses gets a banner of its own, and no retry", async () => {
  const go = await GoServer.start({ script });
  const p = await openHost(go, { user: "device-user", device: "not a valid device id!" });
  const text = await until("the connect-data banner", () => connBanner(p));
  includes(text, "refused this page's connection data");
  includes(text, "bad connect data", "the server's reason is shown");
  includes(text, "retrying will not help");
  await until("offline without retrying", async () => (await connText(p)) === "offline");
  const state = await p.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { connectionStatus: { problem?: { kind: string }; retryAt?: number } } }).agent.connectionStatus);
  eq(state.problem?.kind, "connect-data");
  eq(state.retryAt, undefined, "no attempt is planned");
});

test("conn token endpoint fails: a banner says so while it retries, and clears once a token comes", async () => {
  const go = await GoServer.start({ script });
  host.tokenOverrides.set("token-down-user", { status: 503 });
  const p = await openHost(go, { user: "token-down-user", minDelay: "300", maxDelay: "1500" });
  try {
    const text = await until("the token banner", () => connBanner(p));
    includes(text, "Could not get a sign-in token");
    includes(text, "HTTP 503");
    await until("the countdown", async () => /^Offline, retrying in \d+ s$/.test(await connText(p)));
  } finally {
    host.tokenOverrides.delete("token-down-user");
  }
  await p.connected(20_000);
  await until("the banner to go", async () => (await connBanner(p)) === "");
  eq(p.noErrors(), [], "no page errors");
});

test("conn token of the wrong shape: a JSON body from getToken gets a banner naming the fix, not 'invalid token'", async () => {
  const go = await GoServer.start({ script });
  // The host's getToken returns the token endpoint's whole JSON body instead of its token field.
  host.tokenOverrides.set("json-token-user", { token: JSON.stringify({ token: "eyJ.x.y", expires_at: "2030-01-01T00:00:00Z" }) });
  const p = await openHost(go, { user: "json-token-user", minDelay: "300", maxDelay: "1500" });
  try {
    const text = await until("the token-shape banner", () => connBanner(p));
    includes(text, "getToken returned a JSON body");
    includes(text, "(await response.json()).token");
  } finally {
    host.tokenOverrides.delete("json-token-user");
  }
  await p.connected(20_000);
  await until("the banner to go", async () => (await connBanner(p)) === "");
});

test("conn token rejected: a banner says the server refused it, and clears once a valid token comes", async () => {
  const go = await GoServer.start({ script });
  host.tokenOverrides.set("bad-token-user", { token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiYWQtdG9rZW4tdXNlciJ9.c2lnbmF0dXJl" });
  const p = await openHost(go, { user: "bad-token-user", minDelay: "300", maxDelay: "1500" });
  try {
    const text = await until("the rejected-token banner", () => connBanner(p));
    includes(text, "rejected the sign-in token");
    includes(text, "invalid token");
  } finally {
    host.tokenOverrides.delete("bad-token-user");
  }
  await p.connected(20_000);
  await until("the banner to go", async () => (await connBanner(p)) === "");
  eq(p.noErrors(), [], "no page errors");
});
