// Test 1: through the demo page's UI, one message makes the scripted model use
// write, read, ls, edit, grep, find and script; the files appear in the explorer
// and in IndexedDB; the final answer renders as Markdown.

import { eq, includes, ok, test, until } from "./harness.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "all-tools",
  turns: [
    turn("(?i)tools", [
      { text: "Writing a file.", tool_calls: [call("write", { path: "/docs/a.md", content: "hello world\nsecond line\n" })] },
      { text: "Reading it back.", tool_calls: [call("read", { path: "/docs/a.md" }), call("ls", { path: "/docs" })] },
      { text: "Editing.", tool_calls: [call("edit", { path: "/docs/a.md", old_string: "world", new_string: "there" })] },
      { text: "Searching.", tool_calls: [call("grep", { pattern: "there", path: "/" }), call("find", { pattern: "**/*.md", path: "/" })] },
      {
        text: "Scripting.",
        tool_calls: [call("script", { action: "eval", code: "const t = await rtcAgent.fs.read('/docs/a.md');\nawait rtcAgent.fs.write('/docs/b.txt', t.toUpperCase());\nreturn t.length;" })],
      },
      { chunks: ["All **tools** ran.", " The script returned:\n\n```\n", "{{last_result}}", "\n```\n"] },
    ]),
  ],
};

test("1 UI: one message uses write, read, ls, edit, grep, find and script", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const p = await AgentPage.open(ctx, `${go.url}/`); // the demo page, served by the Go server
  await p.setMode("bypass"); // no confirmation for script in this test (test 3 covers confirmations)
  await p.send("Please use all the tools");
  const answer = await p.waitForAnswer("All tools ran.");
  includes(answer, '"result": 24', "the script's result is quoted");
  ok(await p.page.locator("rtc-agent .msg.assistant .md strong", { hasText: "tools" }).count(), "Markdown bold rendered");
  const cards = await p.toolCards();
  eq(cards.map((c) => c.tool), ["write", "read", "ls", "edit", "grep", "find", "script"], "tool cards in order");
  ok(cards.every((c) => c.status === "completed"), `all completed: ${JSON.stringify(cards)}`);
  eq(await p.vfsFile("/docs/a.md"), "hello there\nsecond line\n", "edited file in IndexedDB");
  eq(await p.vfsFile("/docs/b.txt"), "HELLO THERE\nSECOND LINE\n", "file written by the script in IndexedDB");
  const paths = await until("the explorer to list both files", async () => {
    const list = await p.explorerPaths();
    return list.includes("/docs/a.md") && list.includes("/docs/b.txt") ? list : null;
  });
  ok(paths.includes("/docs"), "the folder is listed");
  await p.page.locator("rtc-agent aside.files li[data-path='/docs/b.txt']").click();
  const viewer = p.page.locator("rtc-agent aside.files textarea");
  await until("the viewer to load the file", async () => (await viewer.inputValue()) !== "");
  eq(await viewer.inputValue(), "HELLO THERE\nSECOND LINE\n", "the viewer shows the file");
  eq(p.noErrors(), [], "no page errors");
});
