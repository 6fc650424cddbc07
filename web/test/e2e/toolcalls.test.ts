// The "Tool calls" panel lists the open conversation's calls from the audit trail:
// tool, time, who decided and how each ended.

import { eq, includes, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "toolcalls",
  turns: [
    turn("(?i)weather", [
      { text: "Looking it up.", tool_calls: [call("weatherTool", { city: "Paris" }), call("brokenView", {})] },
      { chunks: ["Done: ", "{{last_result}}"] },
    ]),
    turn("(?i)forecast", [
      { text: "Checking.", delay_ms: 250, tool_calls: [{ ...call("weatherTool", { city: "Lyon" }), argument_chunks: 4 }] },
      { chunks: ["Forecast: ", "{{last_result}}"] },
    ]),
    turn("(?i)audit", [
      { text: "First file.", tool_calls: [call("write", { path: "/t/one.txt", content: "first" })] },
      { text: "Second file.", tool_calls: [call("write", { path: "/t/two.txt", content: "second" })] },
      { chunks: ["Done: ", "{{last_result}}"] },
    ]),
  ],
};

test("tool calls panel: each call with its decision and outcome", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  await p.setMode("manual");
  await p.send("Audit my files");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor();
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  await until("the second confirmation", async () => (await p.toolCards()).length === 2 && (await confirm.count()) === 1);
  await confirm.getByRole("button", { name: "Deny" }).click();
  await p.waitForAnswer("Done:");
  await p.page.locator("rtc-agent .toolcalls-toggle").click();
  const rows = p.page.locator("rtc-agent .toolcalls tbody tr");
  await until("two rows", async () => (await rows.count()) === 2);
  const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
  eq(cells.map((c) => c[1]), ["write", "write"], "tools");
  eq(cells.map((c) => c[3]), ["completed", "rejected"], "outcomes");
  eq(cells[0]![2], "allowed by you on this device", "the device is named in words, not by its id");
  eq(cells[1]![2], "denied by you on this device");
  eq(cells.every((c) => c[0] !== ""), true, "every call has a time");
  eq(p.noErrors(), [], "no page errors");
});

test("tool cards: a host tool's render shows the call as it stands; a view that throws says so", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "render-user" }));
  await p.setMode("manual");
  await p.send("What is the weather?");
  const view = p.page.locator("rtc-agent .tool[data-tool='weatherTool'] .view .weather");
  await p.page.locator("rtc-agent .prompt.confirm").waitFor();
  eq(await view.getAttribute("data-state"), "awaiting-approval", "the view while the person is asked");
  eq(await view.textContent(), "Weather for Paris");
  await p.page.locator("rtc-agent .prompt.confirm").getByRole("button", { name: "Allow", exact: true }).click();
  await p.page.locator("rtc-agent .tool[data-tool='weatherTool'] .view .weather[data-state='done']").waitFor();
  eq(await view.textContent(), "Paris: sunny", "the view of the result");
  await p.page.locator("rtc-agent .prompt.confirm").getByRole("button", { name: "Allow", exact: true }).click();
  await p.waitForAnswer("Done:");
  includes(await p.page.locator("rtc-agent .tool[data-tool='brokenView'] .view").innerText(), "The tool's view failed: no view today");
  eq(p.noErrors(), [], "no page errors");
});

test("tool cards: a call the model is writing shows as it is written, through the host tool's render", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "writing-user" }));
  await p.setMode("manual");
  await p.send("What is the forecast?");
  const card = p.page.locator("rtc-agent .tool[data-status='writing'][data-tool='weatherTool']");
  const view = card.locator(".view .weather[data-state='input-streaming']");
  await view.waitFor();
  eq(await card.locator(".status").textContent(), "writing…");
  includes((await view.textContent()) ?? "", "Weather for", "the host tool's view of the arguments so far");
  // Written piece by piece (a piece every 250 ms): the city as far as it came.
  const seen = new Set<string>();
  await until("the whole city written, or the call arrived", async () => {
    const text = (await view.count()) ? await view.textContent() : null;
    if (text) seen.add(text);
    return text === "Weather for Lyon" || text === null;
  });
  eq(seen.size >= 2 && seen.has("Weather for Lyon"), true, `the view grew with the arguments: ${[...seen].join(", ")}`);
  await p.page.locator("rtc-agent .tool[data-tool='weatherTool'] .view .weather[data-state='awaiting-approval']").waitFor();
  eq(await p.page.locator("rtc-agent .tool[data-status='writing']").count(), 0, "the written call's card gave way to its RTC's");
  await p.page.locator("rtc-agent .prompt.confirm").getByRole("button", { name: "Allow", exact: true }).click();
  await p.page.locator("rtc-agent .tool[data-tool='weatherTool'] .view .weather[data-state='done']").waitFor();
  await p.waitForAnswer("Forecast:");
  eq(p.noErrors(), [], "no page errors");
});
