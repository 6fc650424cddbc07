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

test("modes: the element offers only its modes; the server refuses the others for its token", async () => {
  const go = await GoServer.start({ script: { name: "modes", turns: [{ match: "(?i)hi", steps: [{ chunks: ["Hi."] }] }] } });
  const p = new AgentPage(await (await newProfile()).newPage());
  await p.page.goto(`http://localhost:${host.port}/modes.html?go=${go.port}`);
  await p.connected();
  const offered = await p.page.locator("rtc-agent select.work-mode option:not([disabled])").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  eq(offered, ["manual", "plan"], "only the element's modes are offered");
  const got = await p.page.evaluate(async () => {
    const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
    const sent = await a.send("hi there");
    const code = async (mode: "edit" | "bypass" | "plan") => {
      try {
        await a.setWorkMode(sent.session_id, mode);
        return "ok";
      } catch (e) {
        return (e as { code?: string }).code ?? String(e);
      }
    };
    return { mode: a.defaultWorkMode, modes: a.modes, bypass: await code("bypass"), edit: await code("edit"), plan: await code("plan") };
  });
  eq(got, { mode: "manual", modes: ["manual", "plan"], bypass: "forbidden", edit: "forbidden", plan: "ok" }, "the default is the first offered; the server enforces the token's modes");
  eq(p.noErrors(), [], "no page errors");
});
