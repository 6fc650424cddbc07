// Test 6: the server is killed (SIGKILL) while an RTC waits for the person and
// restarted on the same data file and port (with a new development token
// secret, so the page must also get a new token); the page reconnects and the
// turn completes.

import { includes, test, until } from "./harness.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const ask = { questions: [{ question: "Which size?", header: "Size", options: [{ label: "Small" }, { label: "Large" }] }] };
const script = {
  name: "restart",
  turns: [turn("(?i)restart", [{ text: "A question first.", tool_calls: [call("askUser", ask)] }, { chunks: ["After the restart: ", "{{last_result}}"] }])],
};

test("6 server killed and restarted mid-turn: the page reconnects and the turn completes", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  await p.send("Survive a restart");
  const form = p.page.locator("rtc-agent form.prompt.ask");
  await form.waitFor();
  await go.kill("SIGKILL");
  const conn = p.page.locator("rtc-agent .conn");
  await until("the page to notice", async () => (await conn.getAttribute("data-state")) !== "connected");
  await go.start();
  await until("the page to reconnect", async () => (await conn.getAttribute("data-state")) === "connected", 20_000);
  await form.locator("input[value='Large']").check();
  await form.getByRole("button", { name: "Send answer" }).click();
  includes(await p.waitForAnswer("After the restart:"), "A: Large");
  await p.waitForCard("askUser", "completed");
});
