// A host site on another origin than the server, under `default-src 'none'` plus
// exactly the CSP web/README.md gives host sites: the element loads from the
// server's /sdk/, connects, answers, and a script runs in the sandbox frame.

import { eq, includes, ok, test } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "csp",
  turns: [
    turn("(?i)csp", [
      { text: "Computing.", tool_calls: [call("script", { action: "eval", code: "return 6 * 7;" })] },
      { chunks: ["Under the **strict CSP** the script returned ", "{{last_result}}", "."] },
    ]),
  ],
};

test("csp host: a page on another origin under the README's strict CSP connects, chats and runs a script", async () => {
  const go = await GoServer.start({ script });
  const url = host.url(go, { user: "csp-user" }).replace("/host.html", "/csp.html");
  const p = new AgentPage(await (await newProfile()).newPage());
  const violations: string[] = [];
  p.page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  const response = await p.page.goto(url);
  const csp = (await response?.allHeaders())?.["content-security-policy"] ?? "";
  ok(csp.startsWith("default-src 'none'; script-src 'self' http://127.0.0.1:"), `the page runs under the README's CSP: ${csp}`);
  ok(new URL(url).origin !== go.url.replace(/\/$/, ""), "the host page is on another origin than the server");
  await p.connected();
  await p.setMode("bypass");
  await p.send("Does it work under a strict CSP?");
  const answer = await p.waitForAnswer("Under the strict CSP the script returned");
  includes(answer, "42", "the script ran in the sandbox frame");
  const cards = await p.toolCards();
  eq(cards.map((c) => `${c.tool}:${c.status}`), ["script:completed"]);
  eq(violations, [], "nothing was blocked");
});
