// A host site on another origin than the RTC Agent server, under the strict CSP
// the README gives (served by HostServer): it loads the SDK from the server's own
// /sdk/, as an integrator would, and adds the element. Query: go (server port), user.
const q = new URLSearchParams(location.search);
const server = `http://127.0.0.1:${q.get("go")}`;
const user = q.get("user") ?? "csp-user";
await import(`${server}/sdk/rtc-agent.js`);
const el = document.createElement("rtc-agent");
el.setAttribute("server-url", server);
el.setAttribute("user-id", user);
el.setAttribute("title", "Strict CSP host");
el.getToken = async () => {
  const r = await fetch(`/token?go=${q.get("go")}&user=${encodeURIComponent(user)}`);
  if (!r.ok) throw new Error(`token: HTTP ${r.status}`);
  return (await r.json()).token;
};
document.body.append(el);
