// At the storage quota (issue 26, item 4): the origin's quota is cut to what it
// already uses with Chromium's own override (DevTools' Storage.overrideQuotaForOrigin),
// so every IndexedDB write of the page fails with QuotaExceededError. A tool call
// still runs once, its real result reaches the server, a banner names what to
// free, and the next message is answered.

import { eq, includes, note, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "quota",
  turns: [
    turn("(?i)read my note", [{ text: "Reading.", tool_calls: [call("read", { path: "/note.txt" })] }, { chunks: ["The note says: ", "{{last_result}}"] }]),
    turn("(?i)still there", [{ chunks: ["Yes, still here."] }]),
  ],
};


test("quota: a result whose journal write fails is still submitted; a banner says what to free", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const url = host.url(go, { user: "quota-user" });
  const origin = new URL(url).origin;
  const p = new AgentPage(await ctx.newPage());
  const cdp = await ctx.newCDPSession(p.page);
  // Chromium takes the quota an origin has when its storage is first used (a later
  // override does not apply): a small one, then filled up to the last byte below.
  await cdp.send("Storage.overrideQuotaForOrigin", { origin, quotaSize: 4 << 20 });
  await p.page.goto(url);
  await p.connected();
  await p.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent.vfs.writeFile("/note.txt", "quota-proof-4711"));
  const filled = await p.page.evaluate(fillQuota);
  note(`filled the quota with ${filled.bytes} bytes; usage ${filled.usage} B; a 200-byte write then: ${filled.probe}`);
  eq(filled.probe, "QuotaExceededError", "the quota override makes IndexedDB writes fail");

  await p.page.evaluate(() => {
    const w = window as unknown as { __unsaved: string[] };
    w.__unsaved = [];
    const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
    a.events.on("error", (e) => void w.__unsaved.push((e as { what?: string }).what ?? String(e)));
  });
  // Chromium frees space now and then, so a call's journal writes may still
  // fit: the page is asked again (another call) until one does not, and every
  // call's real result must arrive, that one's too.
  const answers = p.page.locator("rtc-agent .msg.assistant[data-status='complete'] .md", { hasText: "The note says:" });
  const unsavedNow = () => p.page.evaluate(() => (window as unknown as { __unsaved: string[] }).__unsaved);
  let calls = 0;
  for (;;) {
    calls++;
    await p.send("Read my note");
    await until(`answer ${calls}`, async () => (await answers.count()) >= calls, 30_000);
    includes(await answers.nth(calls - 1).innerText(), "quota-proof-4711", "the model got the real result");
    if ((await unsavedNow()).includes("tool results") || calls === 10) break;
    note(`call ${calls}: its journal writes fitted in space Chromium freed; asking again`);
  }
  await p.waitForCard("read", "completed");
  const banner = await until("the storage banner", async () => {
    const t = await p.banner();
    return t.includes("storage") ? t : null;
  });
  includes(banner, "Files", "the banner names what to free");
  const unsaved = await unsavedNow();
  ok(unsaved.includes("tool results"), `the journal's write failed and was reported: ${JSON.stringify([...new Set(unsaved)])}`);
  await p.page.locator("rtc-agent .banner button.open-files").click();
  const line = await until("the storage line of the Files panel", async () => {
    const t = await p.page.locator("rtc-agent aside.files .storage").innerText();
    return /^Storage: .+ used of .+/.test(t) ? t : null;
  });
  note(line);
  await p.send("Are you still there?");
  await p.waitForAnswer("Yes, still here.", 30_000);
  const submits = p.calls("v1.rtc.submit_result");
  eq(submits.length, calls, "one submission a call");
  ok(submits.every((s) => (s.data as { ok?: boolean }).ok === true), "ok results, not interrupted or timed out");
  ok(!p.noErrors().some((e) => /JS_FreeRuntime|Uncaught/.test(e)), `no page errors: ${p.noErrors().join("\n")}`);
  await p.page.evaluate(() => void ((window as unknown as { __keepFull?: boolean }).__keepFull = false));
  await cdp.send("Storage.overrideQuotaForOrigin", { origin });
});

/**
 * Runs in the page: writes random (incompressible) bytes to a database of its
 * own in ever smaller pieces until not even 64 bytes fit, then tries a 200-byte
 * write in another database, and goes on taking what frees up until the test
 * ends (window.__keepFull).
 */
async function fillQuota(): Promise<{ bytes: number; usage: number; probe: string }> {
  const open = (name: string) =>
    new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name);
      r.onupgradeneeded = () => r.result.createObjectStore("s");
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  const put = (db: IDBDatabase, value: unknown) =>
    new Promise<string>((resolve) => {
      const t = db.transaction("s", "readwrite");
      t.objectStore("s").put(value, crypto.randomUUID());
      t.oncomplete = () => resolve("written");
      t.onabort = () => resolve(t.error?.name ?? "aborted");
    });
  const random = (n: number) => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i += 65536) crypto.getRandomValues(b.subarray(i, Math.min(n, i + 65536)));
    return b.buffer;
  };
  const other = await open("quota-probe");
  const filler = await open("quota-filler");
  let bytes = 0;
  // Chromium counts usage a little after each commit: pass again until nothing fits.
  for (let pass = 0, wrote = 1; wrote > 0 && pass < 20; pass++) {
    wrote = 0;
    for (let chunk = 1 << 20; chunk >= 64; chunk >>= 1) {
      while ((await put(filler, random(chunk))) === "written") (bytes += chunk), wrote++;
    }
  }
  const probe = await put(other, "x".repeat(200));
  other.close();
  // Chromium frees space after failed writes now and then (compaction): keep
  // taking whatever frees up, so the page's own small writes keep failing.
  const w = window as unknown as { __keepFull?: boolean };
  w.__keepFull = true;
  void (async () => {
    while (w.__keepFull) {
      // From large to small: a compaction may free megabytes at once, and
      // must be taken back before the page's next write.
      for (let chunk = 1 << 20; chunk >= 64; chunk >>= 1) while ((await put(filler, random(chunk))) === "written") bytes += chunk;
      await new Promise((r) => setTimeout(r, 10));
    }
    filler.close();
  })();
  return { bytes, usage: (await navigator.storage.estimate()).usage ?? 0, probe };
}
