// Test: a tool that runs as an MCP task, on a server of the official
// TypeScript SDK over Streamable HTTP (test/testdata/task-server.mjs), is not
// cut off by a restart: the RTC Agent server is killed (SIGKILL) while the
// task runs, started again on the same data, and the page shows the task's
// result; the tool ran once.

import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { defer, eq, includes, test } from "./harness.js";
import { host, paths } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

/** Starts the task server over HTTP for the current test; returns its base URL. */
async function taskServer(): Promise<string> {
  const proc = spawn(process.execPath, [join(paths.web, "test/testdata/task-server.mjs"), "http"], { stdio: ["ignore", "pipe", "inherit"] });
  defer(async () => {
    proc.kill("SIGKILL");
  });
  for await (const line of createInterface({ input: proc.stdout! })) {
    const port = /^listening (\d+)$/.exec(line)?.[1];
    if (port) return `http://127.0.0.1:${port}`;
  }
  throw new Error("the task server did not start");
}

test("a tool that runs as an MCP task survives a restart of the server: the page shows its result", async () => {
  const url = await taskServer();
  const config = join(tmpdir(), `rtc-e2e-tasks-${process.pid}.json`);
  await writeFile(config, JSON.stringify({ servers: { tasks: { url: `${url}/mcp` } } }));
  const script = {
    name: "tasks",
    turns: [turn("(?i)count", [{ text: "Counting.", tool_calls: [call("tasks__count", { steps: 16, ms: 300 })] }, { chunks: ["After: ", "{{last_result}}"] }])],
  };
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "task-user" }));

  await p.send("count to sixteen");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor({ timeout: 60_000 });
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  // The task's status is shown under its call while it runs.
  await p.page.locator("rtc-agent .tool .progress .message", { hasText: /^step \d+ of 16$/ }).waitFor({ timeout: 30_000 });

  await go.restart();
  includes(await p.waitForAnswer("counted to", 60_000), "After: counted to 16", "the task's result reached the model after the restart");
  const tasks = (await (await fetch(`${url}/tasks`)).json()) as Record<string, string>;
  eq(Object.values(tasks), ["completed"], "the tool ran once, as one task");
  eq(p.noErrors().filter((e) => !e.includes("ERR_CONNECTION_REFUSED")), [], "no page errors but the refused reconnects of the restart");
});
