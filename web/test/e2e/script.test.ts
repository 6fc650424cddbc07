// Test 8: a script with an endless loop is stopped at its deadline and reported
// to the model as failed; the page stays responsive and the next script works,
// calling a host tool through rtcAgent.call.

import { eq, includes, ok, test } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "loop",
  turns: [
    turn("(?i)loop", [{ text: "Looping.", tool_calls: [call("script", { action: "eval", code: "while (true) {}" })] }, { chunks: ["Script outcome: ", "{{last_result}}"] }]),
    turn("(?i)add", [{ text: "Adding.", tool_calls: [call("script", { action: "eval", code: "const host = await rtcAgent.call('countTool', { n: 7 });\nreturn { sum: 2 + 3, host };" })] }, { chunks: ["Sum outcome: ", "{{last_result}}"] }]),
  ],
};

test("8 endless script loop: killed at its deadline, reported as failed", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "loop-user", scriptTimeout: "1500" }));
  await p.setMode("bypass");
  const started = Date.now();
  await p.send("Run an endless loop");
  const answer = await p.waitForAnswer("Script outcome:");
  includes(answer, "[Tool Error] Script failed: script timed out after 1500 ms and was stopped");
  ok(Date.now() - started < 15_000, "stopped near its deadline");
  await p.waitForCard("script", "failed");
  eq(await p.page.evaluate(() => 1 + 1), 2, "the page still responds");
  await p.send("Now add two numbers");
  const sum = await p.waitForAnswer("Sum outcome:");
  includes(sum, '"sum": 5');
  includes(sum, '"host": "counted 7"', "a host tool called from the script");
  eq(await p.localStorageNumber("calls:countTool:7"), 1);
});
