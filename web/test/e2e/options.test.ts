// <rtc-agent dev-token …> whose options a later script sets (a module script
// after the SDK's): the agent starts with them, not with the defaults.

import { eq, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, newProfile } from "./pages.js";
import { GoServer } from "./servers.js";

test("element options set by a script after the element apply (dev-token)", async () => {
  const go = await GoServer.start({ script: { name: "late", turns: [{ match: "(?i)hi", steps: [{ chunks: ["Hi."] }] }] } });
  const p = new AgentPage(await (await newProfile()).newPage());
  await p.page.goto(`http://localhost:${host.port}/late.html?go=${go.port}`);
  await p.connected();
  const got = await p.page.evaluate(() => {
    const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
    return { user: a.userId, device: a.deviceId, mode: a.defaultWorkMode };
  });
  eq(got, { user: "late-user", device: "late-device", mode: "plan" }, "the agent uses the later options");
  await until("the work mode shown", async () => (await p.page.locator("rtc-agent select.work-mode").inputValue()) === "plan");
  eq(p.noErrors(), [], "no page errors");
});
