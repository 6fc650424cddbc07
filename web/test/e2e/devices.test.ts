// One user on two devices (two browser profiles, each its own device id): a
// chat started on the laptop is listed on the phone as the other device's and
// opens read-only there with "Continue here"; after it, the phone sends and
// runs the chat's tools, and the laptop shows it read-only in turn.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { eq, ok, test, until } from "./harness.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "devices",
  turns: [
    turn("(?i)first", [{ tool_calls: [call("ls", { path: "/" })] }, { chunks: ["Listed on the first device."] }]),
    turn("(?i)second", [{ tool_calls: [call("ls", { path: "/" })] }, { chunks: ["Listed on the second device."] }]),
    turn("(?i)slow", [
      { tool_calls: [call("script", { action: "eval", code: "const t = Date.now(); while (Date.now() - t < 3000) {} return 'slept';" })] },
      { chunks: ["Slow work done."] },
    ]),
    turn("(?i)after", [{ tool_calls: [call("ls", { path: "/" })] }, { chunks: ["Listed after the move."] }]),
  ],
};

/** A browser profile (a device) of the demo page's user "two-devices". */
async function device(width: number): Promise<AgentPage> {
  const ctx = await newProfile();
  // Init scripts run in every frame: not in the script sandbox's, which has no storage.
  await ctx.addInitScript(() => window === window.top && localStorage.setItem("rtc-agent-demo:user", "two-devices"));
  const p = new AgentPage(await ctx.newPage());
  await p.page.setViewportSize({ width, height: 800 });
  return p;
}

const readOnly = (p: AgentPage) => p.page.locator("rtc-agent textarea[aria-label='Message']").isDisabled();

test("devices: another device's chat is read-only until Continue here; then it sends and runs the tools there", async () => {
  const go = await GoServer.start({ script });
  const laptop = await device(1280);
  await laptop.page.goto(`${go.url}/`);
  await laptop.connected();
  await laptop.send("first question");
  await laptop.waitForAnswer("Listed on the first device.");

  const phone = await device(390);
  await phone.page.goto(`${go.url}/`);
  await phone.connected();
  await until("the laptop's chat listed on the phone", async () => (await phone.snapshot()).sessions.length === 1);
  await phone.page.locator("rtc-agent button.menu, rtc-agent button[aria-label*='onversations']").first().click().catch(() => undefined);
  await phone.openSession("first question");
  const bar = phone.page.locator("rtc-agent .other-device");
  await bar.waitFor();
  ok(await readOnly(phone), "the composer is read-only on the other device");
  await phone.waitForAnswer("Listed on the first device.");
  const shots = process.env.RTC_SCREENSHOTS;
  if (shots) {
    await mkdir(shots, { recursive: true });
    await phone.page.screenshot({ path: join(shots, "cross-device-390.png") });
  }

  await bar.getByRole("button", { name: "Continue here" }).click();
  const phoneDevice = await phone.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { deviceId: string } }).agent.deviceId);
  await until("the chat to belong to the phone", async () => (await phone.snapshot()).sessions[0]?.device_id === phoneDevice);
  await until("the phone's composer to open", async () => !(await readOnly(phone)));
  eq(await bar.isHidden(), true, "no read-only bar on the device that runs it");
  await phone.send("second question");
  await phone.waitForAnswer("Listed on the second device.");
  await phone.waitForCard("ls", "completed");

  // The laptop now shows it as the phone's.
  await laptop.page.locator("rtc-agent .other-device").waitFor();
  ok(await readOnly(laptop), "the laptop's composer is read-only now");
  await laptop.waitForAnswer("Listed on the second device.");
  if (shots) await laptop.page.screenshot({ path: join(shots, "cross-device-1280.png") });
  eq(phone.noErrors(), [], "no page errors on the phone");
  eq(laptop.noErrors(), [], "no page errors on the laptop");
});

test("devices: Continue here while a call runs on the other device waits for it to end, then moves", async () => {
  const go = await GoServer.start({ script });
  const laptop = await device(1280);
  await laptop.page.goto(`${go.url}/`);
  await laptop.connected();
  await laptop.setMode("bypass"); // the script runs without asking
  const phone = await device(1280);
  await phone.page.goto(`${go.url}/`);
  await phone.connected();

  await laptop.send("slow work");
  await laptop.waitForCard("script", "executing");
  await until("the laptop's chat listed on the phone", async () => (await phone.snapshot()).sessions.length === 1);
  await phone.openSession("slow work");
  const bar = phone.page.locator("rtc-agent .other-device");
  await bar.getByRole("button", { name: "Continue here" }).click();
  await until("the bar to say it waits for the call", async () => (await bar.innerText()).includes("running on the other device"));
  ok((await phone.snapshot()).sessions[0]?.device_id !== (await phone.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { deviceId: string } }).agent.deviceId)), "not moved while the call runs");

  // The laptop's call ends and its result counts; then the chat is the phone's.
  await laptop.waitForAnswer("Slow work done.");
  await until("the phone's composer to open", async () => !(await readOnly(phone)), 20_000);
  eq(await bar.isHidden(), true, "no read-only bar once moved");
  await phone.send("after the move");
  await phone.waitForAnswer("Listed after the move.");
  eq(await phone.banner(), "", "no error banner on the phone");
  eq(phone.noErrors(), [], "no page errors on the phone");
  eq(laptop.noErrors(), [], "no page errors on the laptop");
});
