// The React example shop (examples/shop, built into web/dist by `npm run build`
// and served by the Go server at /examples/shop/) driven by the demo model's shop
// turn (internal/llm/scripted/demo.json), as `make run` shows it: the model lists
// the products and fills the cart through the page's host tools (useTool), the
// page's cart updates, checkout asks in the shop's own dialog (usePrompts), and
// the answer quotes the order. The same tools work under <AgentChat/>.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { eq, includes, ok, test, until } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, cspViolations, newProfile } from "./pages.js";
import { GoServer } from "./servers.js";

async function demoServer(): Promise<GoServer> {
  const script = JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object;
  return GoServer.start({ script });
}

/** [productId, quantity] of the page's cart. */
const cartLines = (page: Page) =>
  page.locator(".cart li[data-product]").evaluateAll((els) => els.map((e) => [e.getAttribute("data-product"), Number(e.getAttribute("data-quantity"))]));

/** {tool: state} of the tool calls shown in the shop's chat, latest call per tool. */
const toolStates = (page: Page) =>
  page.locator(".chat-panel .tool").evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-tool"), e.getAttribute("data-state")])));

/** Answers the shop dialog's confirmations until checkout's (leaving it open); returns the tools that asked before it. */
async function approveUntilCheckout(page: Page): Promise<string[]> {
  const asked: string[] = [];
  const dialog = page.locator(".dialog[role='dialog']");
  for (;;) {
    await dialog.waitFor();
    const tool = (await dialog.getAttribute("data-tool")) ?? "";
    if (tool === "checkout") return asked;
    asked.push(tool);
    await dialog.getByRole("button", { name: "Approve" }).click();
    await until(`the ${tool} dialog to close`, async () => (await dialog.count()) === 0 || (await dialog.getAttribute("data-tool")) !== tool);
  }
}

test("shop: the React example's tools fill the cart, checkout asks in its own dialog, the answer arrives", async () => {
  const go = await demoServer();
  const ctx = await newProfile();
  const violations = await cspViolations(ctx);
  const p = new AgentPage(await ctx.newPage());
  const page = p.page;
  const res = await page.goto(`${go.url}/examples/shop/?user=shop-user`);
  includes(res?.headers()["content-security-policy"] ?? "", "default-src 'none'", "the served shop has a strict CSP");
  await page.locator(".chat-panel .conn[data-state='connected']").waitFor();

  const box = page.getByLabel("Message");
  await box.fill("Buy me a mug");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator(".msg.user", { hasText: "Buy me a mug" }).waitFor();

  eq(await approveUntilCheckout(page), [], "listProducts and addToCart ran without asking (needsApproval: false)");
  const dialog = page.locator(".dialog[role='dialog'][data-tool='checkout']");
  includes(await dialog.locator("h2").innerText(), "Place this order?", "the shop's own dialog");
  includes(await dialog.innerText(), "2 × Enamel mug");
  includes(await dialog.innerText(), "Total €24.00");
  eq(await cartLines(page), [["mug", 2]], "the model's addToCart filled the page's cart");
  eq((await toolStates(page)).checkout, "awaiting-approval", "useChat shows the call waiting for approval");
  eq(await page.locator("form.composer").getAttribute("data-status"), "submitted", "useChat: the turn is under way");
  await dialog.getByRole("button", { name: "Approve" }).click();

  const answer = await until("the checkout's answer", async () => {
    const t = await page.locator(".msg.assistant[data-status='complete']", { hasText: "The checkout answered" }).allInnerTexts();
    return t[0];
  });
  includes(answer, '"orderId":"order-1"');
  includes(answer, '"total":"€24.00"');
  // <Markdown/> renders the answer with the SDK's renderer: a code block, code spans, bold, a quote; no raw markup.
  const md = page.locator(".msg.assistant[data-status='complete'] .md", { hasText: "The checkout answered" }).first();
  eq(
    await md.evaluate((el) => ["pre code", "p code", "strong", "blockquote", "hr"].map((s) => el.querySelectorAll(s).length > 0)),
    [true, true, true, true, true],
    "the answer's Markdown is rendered",
  );
  ok(!answer.includes("```") && !answer.includes("**"), "no Markdown syntax shown raw");
  const line = '{m.text && m.role === "assistant" ? <Markdown className="md" text={m.text} highlight={m.status !== "streaming"} /> : null}';
  includes(await readFile(join(paths.web, "README.md"), "utf8"), line, "the README shows the shop's line");
  includes(await readFile(join(paths.repo, "examples/shop/src/assistant.tsx"), "utf8"), line, "as the shop has it");
  eq(await cartLines(page), [], "the order emptied the cart");
  await until("useChat ready again", async () => (await page.locator("form.composer").getAttribute("data-status")) === "ready");
  eq(await toolStates(page), { listProducts: "done", addToCart: "done", checkout: "done" });
  // useChat<ShopToolTypes>: the checkout part's output is the tool's Order, read by its fields.
  includes(await page.locator(".tool[data-tool='checkout']").first().innerText(), "(order order-1, €24.00)", "the typed output of checkout");
  eq(await page.locator(".dialog").count(), 0, "no question left open");

  // Declined: the model reads the reason, the cart keeps what was added.
  await box.fill("Buy one more mug");
  await page.getByRole("button", { name: "Send" }).click();
  eq(await approveUntilCheckout(page), [], "only checkout asks");
  await page.locator(".dialog[data-tool='checkout']").getByRole("button", { name: "Decline" }).click();
  const declined = await until("the declined checkout's answer", async () => {
    const t = await page.locator(".msg.assistant[data-status='complete']", { hasText: "The checkout answered" }).allInnerTexts();
    return t.length === 2 ? t[1] : undefined;
  });
  includes(declined, "The customer declined.");
  eq(await cartLines(page), [["mug", 2]]);
  eq((await toolStates(page)).checkout, "denied");
  eq(p.noErrors(), [], "no page errors");
  eq(violations, [], "nothing the page needs is blocked by its CSP");
});

test("shop: the same tools under <AgentChat/>, answered in the element's own dialog", async () => {
  const go = await demoServer();
  const p = new AgentPage(await (await newProfile()).newPage());
  await p.page.goto(`${go.url}/examples/shop/?ui=element&user=shop-element-user`);
  await p.connected();
  await p.send("Buy me a mug");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor();
  includes(await confirm.innerText(), "checkout", "the first question is checkout's: the other tools do not ask");
  eq(await cartLines(p.page), [["mug", 2]], "addToCart filled the page's cart before checkout");
  // addToCart's render, a React component, draws its call in the card.
  const added = p.page.locator('rtc-agent .tool[data-tool="addToCart"] .view .added');
  await until("the React view shows the result", async () => (await added.textContent()) === "2 × Enamel mug added: the cart is €24.00");
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  const answer = await p.waitForAnswer("The checkout answered");
  includes(answer, "order-1");
  ok((await p.page.locator(".cart .empty").count()) === 1, "the order emptied the page's cart");
  eq(p.noErrors(), [], "no page errors");
});
