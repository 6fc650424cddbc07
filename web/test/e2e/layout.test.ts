// Phones and desktops: at 390×844 and 1280×800 every header control lies inside
// the viewport and nothing covers it (elementFromPoint at its centre); on a
// phone the session list is a drawer, closed unless opened, that closes on a
// choice; on a desktop it is a sidebar beside the chat. The work-mode control
// says whether it changes the open conversation or the default of new chats.

import { eq, includes, ok, test, until } from "./harness.js";
import { AgentPage, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = { name: "layout", turns: [turn("(?i)hello", [{ chunks: ["Hello ", "there."] }]), turn("(?i)second", [{ chunks: ["Second answer."] }])] };

type Box = { name: string; x: number; y: number; w: number; h: number; hit: boolean };

/** Each visible header control: its box and whether a tap at its centre reaches it. */
async function headerControls(p: AgentPage): Promise<Box[]> {
  return p.page.evaluate(() => {
    const root = document.querySelector("rtc-agent")!.shadowRoot!;
    const els = [...root.querySelectorAll<HTMLElement>("header.bar button, header.bar select")].filter((e) => e.getClientRects().length > 0);
    return els.map((e) => {
      const r = e.getBoundingClientRect();
      const hit = root.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return { name: e.getAttribute("aria-label") || e.textContent || e.className, x: r.x, y: r.y, w: r.width, h: r.height, hit: !!hit && (hit === e || e.contains(hit)) };
    });
  });
}

/** Whether the element matching `selector` is the one a tap at its centre reaches. */
async function reachable(p: AgentPage, selector: string): Promise<boolean> {
  return p.page.evaluate((sel) => {
    const root = document.querySelector("rtc-agent")!.shadowRoot!;
    const e = root.querySelector<HTMLElement>(sel);
    if (!e || e.getClientRects().length === 0) return false;
    const r = e.getBoundingClientRect();
    const hit = root.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !!hit && (hit === e || e.contains(hit));
  }, selector);
}

function checkInside(boxes: Box[], width: number, height: number): void {
  ok(boxes.length >= 5, `header controls found: ${JSON.stringify(boxes.map((b) => b.name))}`);
  for (const b of boxes) {
    ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= width + 0.5 && b.y + b.h <= height + 0.5, `${b.name} inside the ${width}×${height} viewport: ${JSON.stringify(b)}`);
    ok(b.hit, `${b.name} is not covered: ${JSON.stringify(b)}`);
  }
}

async function open(go: GoServer, width: number, height: number): Promise<AgentPage> {
  const p = await AgentPage.open(await newProfile({ width, height }), `${go.url}/`);
  await p.send("Hello");
  await p.waitForAnswer("Hello there.");
  await p.page.locator("rtc-agent button.close-session").waitFor(); // a session is open: every control shows
  return p;
}

test("layout phone 390×844: header controls reachable, sessions in a drawer that closes on a choice", async () => {
  const go = await GoServer.start({ script });
  const p = await open(go, 390, 844);
  const drawer = p.page.locator("rtc-agent aside.sessions");
  const toggle = p.page.locator("rtc-agent button.sessions-toggle");
  eq(await drawer.isVisible(), false, "the drawer is closed at first");
  eq(await toggle.getAttribute("aria-expanded"), "false");
  checkInside(await headerControls(p), 390, 844);
  // The work-mode select is wide enough for its label (a select clips what does not fit).
  const fits = await p.page.evaluate(() => {
    const sel = document.querySelector("rtc-agent")!.shadowRoot!.querySelector<HTMLSelectElement>("select.work-mode")!;
    const c = document.createElement("canvas").getContext("2d")!;
    c.font = getComputedStyle(sel).font;
    return { text: c.measureText(sel.selectedOptions[0]!.text).width, box: sel.clientWidth };
  });
  ok(fits.text + 16 <= fits.box, `the mode select shows its whole label: ${JSON.stringify(fits)}`);
  ok(await reachable(p, "textarea[aria-label='Message']"), "the composer is not covered");
  ok(await reachable(p, ".msg.assistant .md"), "the conversation is not covered");

  await toggle.click();
  await drawer.waitFor({ state: "visible" });
  eq(await toggle.getAttribute("aria-expanded"), "true");
  const box = (await drawer.boundingBox())!;
  ok(box.x >= 0 && box.x + box.width <= 390, `the drawer fits: ${JSON.stringify(box)}`);
  ok(await reachable(p, "aside.sessions button.new"), "the drawer is on top when open");
  await p.page.locator("rtc-agent aside.sessions button.new").click();
  await drawer.waitFor({ state: "hidden" });
  await toggle.click();
  await p.openSession("Hello");
  await drawer.waitFor({ state: "hidden" });
  await p.waitForAnswer("Hello there.");
  checkInside(await headerControls(p), 390, 844);
  // With a chat open, the header keeps to two rows: its title row, then the controls in one row.
  const rows = await p.page.evaluate(() => {
    const root = document.querySelector("rtc-agent")!.shadowRoot!;
    return ["select.work-mode", ".files-toggle"].map((q) => Math.round(root.querySelector(q)!.getBoundingClientRect().top));
  });
  ok(Math.abs(rows[0]! - rows[1]!) <= 4, `the mode select and the Files button share a row: ${JSON.stringify(rows)}`);
  eq(await p.page.locator("rtc-agent select.work-mode").getAttribute("aria-label"), "Work mode of this conversation", "its name says what it changes");

  // The file explorer opens over the chat and closes again from the header.
  await p.page.locator("rtc-agent .files-toggle").click();
  await p.page.locator("rtc-agent aside.files").waitFor({ state: "visible" });
  checkInside(await headerControls(p), 390, 844);
  const files = (await p.page.locator("rtc-agent aside.files").boundingBox())!;
  const body = (await p.page.locator("rtc-agent .body").boundingBox())!;
  ok(Math.abs(files.x - body.x) < 1 && Math.abs(files.width - body.width) < 1, `the file explorer covers the chat whole, no strip of it left: ${JSON.stringify({ files, body })}`);
  await p.page.locator("rtc-agent .files-toggle").click();
  await p.page.locator("rtc-agent aside.files").waitFor({ state: "hidden" });
  eq(p.noErrors(), [], "no page errors");
});

test("layout desktop 1280×800: header controls reachable, the session list beside the chat", async () => {
  const go = await GoServer.start({ script });
  const p = await open(go, 1280, 800);
  checkInside(await headerControls(p), 1280, 800);
  const list = (await p.page.locator("rtc-agent aside.sessions").boundingBox())!;
  const chat = (await p.page.locator("rtc-agent main.chat").boundingBox())!;
  ok(list.x + list.width <= chat.x + 0.5, `the sidebar does not overlap the chat: ${JSON.stringify({ list, chat })}`);
  ok(await reachable(p, "textarea[aria-label='Message']"), "the composer is not covered");
  await p.page.locator("rtc-agent button.sessions-toggle").click();
  await p.page.locator("rtc-agent aside.sessions").waitFor({ state: "hidden" });
  checkInside(await headerControls(p), 1280, 800);
  eq(p.noErrors(), [], "no page errors");
});

test("layout work mode: the control says whether it sets this chat's mode or the default of new chats", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  const label = p.page.locator("rtc-agent label.mode");
  const select = p.page.locator("rtc-agent select.work-mode");
  const agentState = () =>
    p.page.evaluate(() => {
      const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
      return { default: a.defaultWorkMode, sessions: a.sessions().map((s) => s.work_mode) };
    });
  includes(await label.innerText(), "New chats");
  eq(await select.getAttribute("aria-label"), "Work mode for new conversations");
  await p.setMode("plan");
  eq(await agentState(), { default: "plan", sessions: [] }, "the default changed");

  await p.send("Hello");
  await p.waitForAnswer("Hello there.");
  await until("the scope to follow the open chat", async () => (await label.innerText()).includes("This chat"));
  eq(await select.getAttribute("aria-label"), "Work mode of this conversation");
  eq((await agentState()).sessions, ["plan"], "the new chat started in the default mode");
  await p.setMode("bypass");
  await until("the session's mode to change", async () => (await agentState()).sessions[0] === "bypass");
  eq((await agentState()).default, "plan", "the default of new chats is unchanged");

  await p.page.locator("rtc-agent aside.sessions button.new").click();
  await until("the scope to be new chats again", async () => (await label.innerText()).includes("New chats"));
  eq(await select.inputValue(), "plan", "a new chat shows the default");
  eq(p.noErrors(), [], "no page errors");
});
