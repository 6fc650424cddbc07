// Not a test: `npm run screenshot` takes web/docs/screenshot.png (and the dark
// variant) of the demo page with a finished conversation, for the README. It
// only registers when RTC_SCREENSHOT is set, so `npm test` never rewrites them.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ok, test } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, browser } from "./pages.js";
import { GoServer } from "./servers.js";
import { defer } from "./harness.js";

if (process.env.RTC_SCREENSHOT) {
  test("screenshot of the demo page", async () => {
    const script = JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object;
    const go = await GoServer.start({ script });
    for (const scheme of ["light", "dark"] as const) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: scheme, deviceScaleFactor: 1 });
      defer(() => ctx.close());
      const p = await AgentPage.open(ctx, `${go.url}/`);
      await p.page.locator("rtc-agent").evaluate((el) => (el as unknown as { prefill(t: string, o: object): void }).prefill("Edit and search files", { send: true }));
      await p.waitForAnswer("Things to try next");
      await p.explorerPaths();
      await p.page.locator("rtc-agent aside.files li[data-path='/notes/todo.md']").click();
      await p.page.locator("rtc-agent .messages").evaluate((el) => (el.scrollTop = el.scrollHeight * 0.42));
      const file = join(paths.web, "docs", scheme === "light" ? "screenshot.png" : "screenshot-dark.png");
      await p.page.screenshot({ path: file });
      ok(true, file);
    }
  });
}
