// Linear rendering (#26, items 2-3): a change to one tool call of a large step
// updates that call's card only; calls added or removed leave the other cards
// alone; the Files panel renders only the rows of a long folder that are in view.
// The UI runs on a real agent fed with Topic updates (long.test.ts's rig);
// nothing reaches a server.

import type { Message, Rtc } from "../../src/protocol/types.js";
import { eq, note, ok, test } from "./harness.js";
import { fillFolder } from "../bench/vfsfill.js";
import { at, msg, open, rig, turnOf } from "./long.test.js";

const N = 500;

const callOf = (i: number) => ({ id: `c${i}`, name: "read", arguments: { path: `/data/report-${i}.csv` } });

const rtcOf = (i: number, extra: Partial<Rtc> = {}): Rtc => ({
  id: `r${i}`, session_id: "s1", turn_id: "t1", user_id: "ui-user", message_id: "m2", tool_call_id: `c${i}`, seq: i + 1, step: 1,
  tool_name: "read", arguments: { path: `/data/report-${i}.csv` }, status: "sent", needs_confirmation: false,
  timeout_ms: 300000, created_at: at(2), updated_at: at(2), offset: 0, ...extra,
});

test("render: a change to one tool call of 500 updates its card in place and re-creates no other card", async () => {
  const r = await rig();
  try {
    const calls = Array.from({ length: N }, (_, i) => callOf(i));
    const step = (list: typeof calls): Message => msg("m2", 2, "assistant", "", { tool_calls: list });
    await r.push(
      ["session.created", r.mine("s1", 0, { active_turn_id: "t1" })],
      ["turn.created", turnOf("t1", 1, "waiting")],
      ["message.created", msg("m1", 1, "user", "Read them all")],
      ["message.created", step(calls)],
      ...calls.map((_, i): [string, object] => ["rtc.created", rtcOf(i)]),
    );
    await open(r, "s1");
    const cardsOf = () => r.qa('.msg[data-id="m2"] > .tool');
    await r.until("500 cards", () => cardsOf().length === N && r.q('.tool[data-call="c499"][data-rtc="r499"]'));
    const cards = cardsOf();
    eq(cards.map((c) => c.dataset.call).join(), calls.map((c) => c.id).join(), "one card per call, in call order");
    const heads = cards.map((c) => c.querySelector(".head"));
    note(`a collapsed card in view is ${cards[N - 1]!.getBoundingClientRect().height} px high (styles.ts sizes a card out of view as 62 px and its borders)`);
    // A section the person opened on the changing card stays open.
    const args = cards[250]!.querySelector<HTMLDetailsElement>(":scope > details.args")!;
    args.open = true;

    // Everything the update changes in the message's subtree, recorded.
    const changed = new Set<Node>();
    const mo = new MutationObserver((records) => {
      for (const m of records) changed.add(m.target);
    });
    mo.observe(r.q('.msg[data-id="m2"]')!, { subtree: true, childList: true, attributes: true, characterData: true });
    const t0 = performance.now();
    await r.push(["rtc.updated", rtcOf(250, { status: "completed", output: "date,amount\n2024-01-01,1\n" })]);
    await r.until("the completed card", () => r.q('.tool[data-call="c250"][data-status="completed"] details.result'));
    note(`one call of ${N} completed, shown after ${(performance.now() - t0).toFixed(0)} ms`);
    mo.disconnect();
    const after = cardsOf();
    ok(after.every((c, i) => c === cards[i]), "every card element is the one that was there, the changed one too");
    ok(after.every((c, i) => i === 250 || c.querySelector(".head") === heads[i]), "no other card was rebuilt");
    const outside = [...changed].filter((n) => !cards[250]!.contains(n));
    ok(outside.length === 0, `nothing outside the changed card was touched: ${outside.map((n) => (n as Element).outerHTML?.slice(0, 80) ?? n.nodeName).join(", ")}`);
    ok(args.isConnected && args.open, "the arguments section the person opened is kept, open");

    // A call added to the message: a new card; the others are kept.
    await r.push(["message.updated", step([...calls, callOf(N)])]);
    await r.until("the new card", () => cardsOf().length === N + 1);
    const grown = cardsOf();
    ok(grown.slice(0, N).every((c, i) => c === cards[i] && c.querySelector(".head") === heads[i] || i === 250), "the 500 cards are kept");
    eq(grown[N]!.dataset.call, `c${N}`, "the new card comes last");

    // A call removed: its card goes, the others stay as they are.
    await r.push(["message.updated", step([...calls.slice(0, 100), ...calls.slice(101)])]);
    await r.until("the card gone", () => cardsOf().length === N - 1);
    const shrunk = cardsOf();
    ok(!shrunk.includes(cards[100]!), "the removed call's card is gone");
    ok(shrunk.every((c, i) => c === cards[i < 100 ? i : i + 1]), "the other cards are the same elements, in order");
  } finally {
    await r.close();
  }
});

test("render: the Files panel with 20,001 entries renders the rows in view; scrolling, keys and selection work", async () => {
  const r = await rig();
  try {
    const paths = await fillFolder(r.agent.vfs, "/big", 20_000);
    const t0 = performance.now();
    r.q<HTMLButtonElement>(".files-toggle")!.click();
    await r.until("the first rows", () => r.q('aside.files li[data-path="/big"]'));
    note(`20,001 entries: first rows shown after ${(performance.now() - t0).toFixed(0)} ms`);
    const tree = r.q<HTMLElement>('aside.files [role="tree"]')!;
    const rows = () => r.qa('aside.files li[data-path]');
    ok(rows().length > 10 && rows().length < 200, `far fewer rows than entries: ${rows().length}`);
    eq(rows()[0]!.getAttribute("aria-setsize"), "20001", "each row tells how many there are");
    ok(tree.scrollHeight > 20_001 * 15, `the list is as high as all its rows: ${tree.scrollHeight} px`);

    // Selection: the open file's row is marked, and still is when rendered again.
    const fifth = r.q<HTMLElement>(`aside.files li[data-path="${paths[4]}"]`)!;
    fifth.click();
    await r.until("the editor", () => !r.q<HTMLElement>("aside.files .editor")!.hidden);
    ok(fifth.classList.contains("active"), "the opened file's row is active");

    // Scrolling to the end shows the last entry, in view.
    tree.scrollTop = tree.scrollHeight;
    const last = paths[paths.length - 1]!;
    await r.until("the last row", () => r.q(`aside.files li[data-path="${last}"]`));
    const box = tree.getBoundingClientRect();
    const lastBox = r.q(`aside.files li[data-path="${last}"]`)!.getBoundingClientRect();
    ok(lastBox.top >= box.top && lastBox.bottom <= box.bottom + 1, "the last row is in view");
    ok(rows().length < 200, `still few rows: ${rows().length}`);
    eq(r.q(`aside.files li[data-path="${paths[4]}"]`), null, "rows scrolled far away are gone");
    tree.scrollTop = 0;
    await r.until("the first rows again", () => r.q(`aside.files li[data-path="${paths[4]}"]`));
    ok(r.q(`aside.files li[data-path="${paths[4]}"]`)!.classList.contains("active"), "the open file's row is still marked");

    // Keys: down, End, Home and Enter, from the focused row.
    const press = (key: string) => (r.root.activeElement as HTMLElement).dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
    r.q<HTMLElement>(`aside.files li[data-path="${paths[0]}"]`)!.focus();
    press("ArrowDown");
    eq((r.root.activeElement as HTMLElement).dataset.path, paths[1], "ArrowDown moves to the next row");
    press("End");
    eq((r.root.activeElement as HTMLElement).dataset.path, last, "End moves to the last row, rendered for it");
    await r.until("the list scrolled to it", () => tree.scrollTop > 20_000 * 15);
    press("Enter");
    await r.until("the last file open", () => r.q("aside.files .editor .path")?.textContent === last);
    ok(r.q(`aside.files li[data-path="${last}"]`)!.classList.contains("active"), "Enter opened it");
    press("Home");
    eq((r.root.activeElement as HTMLElement).dataset.path, "/big", "Home moves to the first row");

    // A new file shows up; rows whose entry did not change are kept.
    const kept = r.q(`aside.files li[data-path="${paths[2]}"]`);
    await r.agent.vfs.writeFile("/big/file-000002a.txt", "new");
    await r.until("the new row", () => r.q('aside.files li[data-path="/big/file-000002a.txt"]'));
    ok(r.q(`aside.files li[data-path="${paths[2]}"]`) === kept, "an unchanged row is the same element");
    eq(r.root.activeElement, r.q('aside.files li[data-path="/big"]'), "the focused row kept the focus");
  } finally {
    await r.close();
  }
});
