// Tool cards and code blocks (src/ui/toolcard.ts, code.ts): a script's code is a
// highlighted code block, other arguments are readable and long ones collapsed;
// every code block copies its code.

import type { Rtc } from "../../src/protocol/types.js";
import { codeBlock, copyText } from "../../src/ui/code.js";
import { toolCard } from "../../src/ui/toolcard.js";
import { endOf } from "../../src/ui/appview.js";
import { eq, includes, ok, test } from "./harness.js";
import { sleep } from "./context.js";

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test("toolcard: a script call shows its code highlighted, not escaped JSON", async () => {
  const code = "const fib = [0, 1];\nfor (let i = 2; i < 20; i++) fib.push(fib[i - 1] + fib[i - 2]);\nreturn fib;";
  const card = toolCard({ id: "c1", name: "script", arguments: { action: "eval", code } }, undefined, null);
  document.body.append(card);
  try {
    const el = card.querySelector('[data-arg="code"] .code code')!;
    ok(el, "the code is a code block");
    eq(el.textContent, code, "the code as written, newlines and all");
    await until("highlighting", () => el.querySelector("span.hljs-keyword") !== null);
    includes(el.querySelector("span.hljs-keyword")!.textContent!, "const");
    eq(card.querySelector('[data-arg="action"] pre')?.textContent, "eval");
  } finally {
    card.remove();
  }
});

test("toolcard: other arguments are readable; long ones start collapsed", () => {
  const content = "# TODO\n\n- [ ] one\n- [ ] two\n";
  const card = toolCard({ id: "c2", name: "write", arguments: { path: "/notes/todo.md", content, meta: { n: 1, tags: ["a"] } } }, undefined, null);
  eq(card.querySelector('[data-arg="content"] pre')?.textContent, content, "multi-line text shown as text, not as an escaped JSON string");
  eq(card.querySelector('[data-arg="meta"] pre')?.textContent, '{\n  "n": 1,\n  "tags": [\n    "a"\n  ]\n}');
  const long = toolCard({ id: "c3", name: "write", arguments: { path: "/big.txt", content: "line\n".repeat(500) } }, undefined, null);
  const more = long.querySelector<HTMLDetailsElement>('[data-arg="content"] details.args-more');
  ok(more && !more.open, "a 500-line value is collapsed");
  includes(more!.querySelector("summary")!.textContent!, "500 lines");
  eq(long.querySelector('[data-arg="path"] details'), null, "short values are not collapsed");
});

test("code: the copy button copies the block's code", async () => {
  const block = codeBlock("print('hi')\n", "python");
  document.body.append(block);
  try {
    const btn = block.querySelector<HTMLButtonElement>("button.copy")!;
    eq(btn.getAttribute("aria-label"), "Copy code");
    btn.click();
    await until("the button to confirm", () => btn.textContent !== "Copy");
    eq(btn.textContent, "Copied");
    eq(await navigator.clipboard.readText(), "print('hi')\n");
    ok(await copyText("second", block), "copyText reports success");
    eq(await navigator.clipboard.readText(), "second");
  } finally {
    block.remove();
  }
});

/** An executing server call's RTC, with what the test gives. */
function serverRtc(over: Partial<Rtc>): Rtc {
  return {
    id: "r-progress", session_id: "s", turn_id: "t", user_id: "u", message_id: "m", tool_call_id: "c-progress", seq: 1, step: 1,
    tool_name: "files__copy", arguments: { from: "/a", to: "/b" }, status: "executing", needs_confirmation: false, executor: "server",
    timeout_ms: 300000, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z", offset: 7, ...over,
  };
}

test("toolcard: a running server call shows its progress, a bar when the total is known, and the message as text", () => {
  const call = { id: "c-progress", name: "files__copy", arguments: { from: "/a", to: "/b" } };
  const message = "copying <b>x</b> \u202Egnp.exe";
  const card = toolCard(call, serverRtc({ progress: { progress: 3, total: 10, message } }), null);
  const bar = card.querySelector<HTMLProgressElement>(".progress progress");
  ok(bar, "a progress bar");
  eq(bar!.max, 10);
  eq(bar!.value, 3);
  eq(card.querySelector(".progress .count")?.textContent, "3 / 10");
  const msg = card.querySelector(".progress .message")!;
  eq(msg.querySelector("b"), null, "the message is text, never markup");
  includes(msg.textContent!, "copying <b>x</b>");
  ok(!msg.textContent!.includes("\u202E"), "a bidi override is shown escaped, as the card shows other text");

  const counting = toolCard(call, serverRtc({ progress: { progress: 42.125 } }), null);
  eq(counting.querySelector(".progress progress"), null, "no bar without a total");
  eq(counting.querySelector(".progress .count")?.textContent, "42.13");
  eq(counting.querySelector(".progress .message"), null);

  const ended = toolCard(call, serverRtc({ status: "completed", output: "done", progress: { progress: 10, total: 10 } }), null);
  eq(ended.querySelector(".progress"), null, "an ended call shows its result, not its last progress");
});

test("tool views: a call's end is told as the MCP Apps messages say it", () => {
  const rtc = (status: string, more: Partial<Rtc> = {}) => ({ id: "v1", status, ...more }) as Rtc;
  eq(endOf(rtc("executing")), null, "nothing while the call runs");
  eq(endOf(rtc("pending")), null, "nothing while it waits");
  eq(endOf(rtc("completed", { output: "plain text" })), { content: [{ type: "text", text: "plain text" }] }, "a text result");
  eq(
    endOf(rtc("completed", { output: '{"total":3}' })),
    { content: [{ type: "text", text: '{"total":3}' }], structuredContent: { total: 3 } },
    "a JSON object's text also goes as structured content",
  );
  eq(endOf(rtc("completed", { output: "[1,2]" })), { content: [{ type: "text", text: "[1,2]" }] }, "an array is text only");
  eq(
    endOf(rtc("completed", { output: "3 figures", structured_output: { figures: 3 } })),
    { content: [{ type: "text", text: "3 figures" }], structuredContent: { figures: 3 } },
    "the structured result the server kept apart goes as structured content",
  );
  eq(endOf(rtc("failed", { error: "boom" })), { content: [{ type: "text", text: "boom" }], isError: true }, "a failure is an error result");
  eq(endOf(rtc("rejected", { error: "the user declined" })), { cancelled: "the user declined" }, "a denied call was cancelled");
  eq(endOf(rtc("timeout")), { cancelled: "timeout" }, "a call past its deadline was cancelled");
});
