// Not a test: `npm run screenshot` takes the README's pictures of the demo page
// with a finished conversation: web/docs/screenshot.png and screenshot-dark.png
// at 1280 px, screenshot-phone.png and screenshot-phone-dark.png at 390 px. It
// only registers when RTC_SCREENSHOT is set, so `npm test` never rewrites them.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ok, test } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, browser } from "./pages.js";
import { GoServer } from "./servers.js";
import { defer } from "./harness.js";

const SHOTS = [
  { file: "screenshot.png", scheme: "light", width: 1280, height: 820, scale: 1, phone: false },
  { file: "screenshot-dark.png", scheme: "dark", width: 1280, height: 820, scale: 1, phone: false },
  { file: "screenshot-phone.png", scheme: "light", width: 390, height: 844, scale: 2, phone: true },
  { file: "screenshot-phone-dark.png", scheme: "dark", width: 390, height: 844, scale: 2, phone: true },
] as const;

if (process.env.RTC_SCREENSHOT) {
  test("screenshot of the demo page", async () => {
    const script = JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object;
    const go = await GoServer.start({ script });
    for (const s of SHOTS) {
      const ctx = await browser.newContext({ viewport: { width: s.width, height: s.height }, colorScheme: s.scheme, deviceScaleFactor: s.scale, isMobile: s.phone, hasTouch: s.phone });
      defer(() => ctx.close());
      const p = await AgentPage.open(ctx, `${go.url}/`);
      await p.page.locator("rtc-agent").evaluate((el) => (el as unknown as { prefill(t: string, o: object): void }).prefill("Edit and search files", { send: true }));
      await p.waitForAnswer("Things to try next");
      // Then the demo's formatting answer: links, a table and highlighted code.
      await p.send("Show me some formatting");
      await p.waitForAnswer("three ways");
      await p.page.locator("rtc-agent .msg.assistant .md .code code.hljs").nth(2).waitFor();
      if (!s.phone) {
        await p.explorerPaths();
        await p.page.locator("rtc-agent aside.files li[data-path='/notes/todo.md']").click();
      }
      // The formatting answer from its start (links, table), code blocks below.
      await p.page.locator("rtc-agent .msg.assistant").last().evaluate((el) => el.scrollIntoView({ block: "start" }));
      await p.page.locator("rtc-agent .messages").evaluate((el) => (el.scrollTop = Math.max(0, el.scrollTop - 60)));
      const file = join(paths.web, "docs", s.file);
      await p.page.screenshot({ path: file });
      ok(true, file);
    }
  });
}
