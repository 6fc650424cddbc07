// Where the page gets its user's RTC Agent token, and the server's sandbox page. A
// real shop asks its own backend, which signs a JWT for the logged-in customer;
// this example uses the development server's token endpoint (rtcagent serve -dev).

const params = new URLSearchParams(location.search);
export const serverUrl = params.get("server") ?? location.origin;
export const userId = params.get("user") ?? "shopper";
/**
 * The script tool's sandbox page, served by the RTC Agent server. The SDK is bundled
 * into app.js, so its default (next to its own code: this site) has none.
 */
export const sandboxUrl = new URL("/sdk/sandbox.html", serverUrl).href;

export async function getToken(): Promise<string> {
  const r = await fetch(new URL("/api/dev/token", serverUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_id: userId }),
  });
  if (!r.ok) throw new Error(`token: HTTP ${r.status}`);
  return ((await r.json()) as { token: string }).token;
}
