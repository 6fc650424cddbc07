// Arguments over the server's limit reach the page cut: a JSON string of their
// first 4 KiB and a note "… [cut: N bytes more]" (docs/protocol.md), in a call
// the server ended failed. The card shows that text escaped, as it is; nothing
// runs; the conversation goes on.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

// Over the 256 KiB a call may carry; both calls together stay under the step's 1 MiB.
const pad = "x".repeat(300_000);
const script = {
  name: "cutargs",
  turns: [
    turn("(?i)huge", [
      // The bidi override in the path must show escaped in the cut text too.
      { text: "Trying.", tool_calls: [call("write", { path: "/big\u202etxt.md", content: pad }), call("countTool", { n: 7, pad })] },
      { chunks: ["After: ", "{{last_result}}"] },
    ]),
    turn("(?i)again", [{ chunks: ["Still here."] }]),
  ],
};

test("cut arguments: a call whose arguments were too large shows them as text and never runs", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "cut-user" }));
  await p.send("Write something huge");
  await p.waitForAnswer("After:");
  await p.waitForCard("write", "failed");
  await p.waitForCard("countTool", "failed");
  const cards = p.page.locator("rtc-agent .tool");
  const shown = await cards.evaluateAll((els) =>
    els.map((e) => ({
      tool: e.getAttribute("data-tool"),
      args: e.querySelector(".args .args-list")?.textContent ?? "",
      rows: e.querySelectorAll(".args [data-arg]").length,
      summary: e.querySelector(".summary")?.textContent ?? "",
      error: e.querySelector(".error pre")?.textContent ?? "",
    })),
  );
  for (const c of shown) {
    ok(/^\{"(path|n)":/.test(c.args), `${c.tool}: the kept prefix is shown as text: ${c.args.slice(0, 60)}`);
    ok(/… \[cut: \d+ bytes more\]$/.test(c.args), `${c.tool}: ends with the note: …${c.args.slice(-60)}`);
    eq(c.rows, 0, `${c.tool}: no argument rows are made up from a string`);
    ok(c.args.length < 10_000, `${c.tool}: only the kept prefix reached the page (${c.args.length} characters)`);
    includes(c.error, "too large", `${c.tool}: the server's reason`);
  }
  const write = shown.find((c) => c.tool === "write")!;
  ok(!write.args.includes("\u202e") && !write.summary.includes("\u202e"), "the bidi override is escaped");
  eq(await p.localStorageNumber("calls:countTool:7"), 0, "the host tool never ran");
  eq(await p.vfsFile("/big\u202etxt.md"), null, "nothing was written");
  await p.send("Again?");
  await p.waitForAnswer("Still here.");
  eq(p.noErrors(), [], "no page errors");
});
