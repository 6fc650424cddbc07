// The host site of the end-to-end tests: another origin than the RTC Agent
// server, a strict CSP, the SDK loaded as a module like from a CDN. Query
// parameters: go (server port), user, scriptTimeout (ms), locks=off (no Web Locks),
// minDelay and maxDelay (reconnect backoff, ms), device (the deviceId option),
// timeout (the timeoutMs option: deadline of attempts and calls).
// Host tools record each run in localStorage so tests can count executions
// across reloads and tabs.
import { ReloginRequired } from "/sdk/rtc-agent.js";

const q = new URLSearchParams(location.search);
const user = q.get("user") ?? "host-user";
const tab = sessionStorage.getItem("tab") ?? crypto.randomUUID().slice(0, 8);
sessionStorage.setItem("tab", tab);

const bump = (key) => {
  const n = Number(localStorage.getItem(key) ?? "0") + 1;
  localStorage.setItem(key, String(n));
  return n;
};
const log = (entry) => {
  const list = JSON.parse(localStorage.getItem("runs") ?? "[]");
  list.push({ ...entry, tab });
  localStorage.setItem("runs", JSON.stringify(list));
};

const el = document.getElementById("agent");
el.setAttribute("server-url", `http://127.0.0.1:${q.get("go")}`);
el.setAttribute("user-id", user);
el.options = {
  minReconnectDelayMs: Number(q.get("minDelay") ?? 100),
  maxReconnectDelayMs: Number(q.get("maxDelay") ?? 1000),
  ...(q.get("scriptTimeout") ? { scriptTimeoutMs: Number(q.get("scriptTimeout")) } : {}),
  ...(q.get("locks") === "off" ? { locks: null } : {}),
  ...(q.get("device") ? { deviceId: q.get("device") } : {}),
  ...(q.get("timeout") ? { timeoutMs: Number(q.get("timeout")) } : {}),
};
let tokens = 0;
el.getToken = async () => {
  // refuseAfter=N: the host's login has expired after N tokens (tests re-login).
  if (q.get("refuseAfter") && ++tokens > Number(q.get("refuseAfter"))) throw new ReloginRequired("session expired");
  const r = await fetch(`/token?go=${q.get("go")}&user=${encodeURIComponent(user)}`);
  if (r.status === 400) throw new ReloginRequired("refused");
  if (!r.ok) throw new Error(`token: HTTP ${r.status}`);
  return (await r.json()).token;
};

el.registerTool({
  name: "slowTool",
  description: "Takes a long time.",
  parameters: { type: "object", properties: {} },
  handler: () => {
    log({ tool: "slowTool" });
    bump("calls:slowTool");
    return new Promise(() => {}); // never ends: the test reloads the page meanwhile
  },
});
el.registerTool({
  name: "countTool",
  description: "Counts its calls per n.",
  parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  handler: (args) => {
    log({ tool: "countTool", n: args.n });
    bump(`calls:countTool:${args.n}`);
    return `counted ${args.n}`;
  },
});
el.registerTool({
  name: "killTool",
  description: "Asks the test to kill the server, then returns.",
  parameters: { type: "object", properties: {} },
  handler: async () => {
    log({ tool: "killTool" });
    const n = bump("calls:killTool");
    await fetch(`/hook/kill?go=${q.get("go")}`);
    return `finished after the server died (run ${n})`;
  },
});
el.registerTool({
  name: "weatherTool",
  description: "The weather of a city, shown in the chat by the page's own view.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: ({ city }) => ({ city, sky: "sunny" }),
  render: ({ state, args, output }) => {
    const view = document.createElement("p");
    view.className = "weather";
    view.dataset.state = state;
    view.textContent = output ? `${output.city}: ${output.sky}` : `Weather for ${args?.city ?? "…"}`;
    return view;
  },
});
el.registerTool({
  name: "brokenView",
  description: "A tool whose view throws.",
  parameters: { type: "object", properties: {} },
  execute: () => "fine",
  render: () => {
    throw new Error("no view today");
  },
});
el.addEventListener("rtc-agent-relogin", (e) => (window.__relogin = e.detail.reason));
window.__tab = tab;
