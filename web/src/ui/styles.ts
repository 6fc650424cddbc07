// Styles of <rtc-agent>, inside its shadow root. Colours are custom properties so
// a host can restyle with `rtc-agent { --rtc-accent: … }`; dark mode follows
// prefers-color-scheme unless the host sets theme="light" or theme="dark".

import { CODE_STYLES } from "./styles-code.js";

export const STYLES = `
:host {
  --rtc-bg: #ffffff; --rtc-panel: #f6f7f9; --rtc-text: #1c2024; --rtc-muted: #60646c;
  --rtc-border: #e0e3e8; --rtc-accent: #3b5bdb; --rtc-accent-text: #ffffff;
  --rtc-user: #eef2ff; --rtc-code: #f1f3f5; --rtc-ok: #2b8a3e; --rtc-warn: #b35c00; --rtc-bad: #c92a2a;
  --rtc-radius: 10px; --rtc-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --rtc-mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  display: block; height: 640px; min-height: 320px; color: var(--rtc-text); font: 14px/1.5 var(--rtc-font);
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) {
    --rtc-bg: #17181b; --rtc-panel: #1f2125; --rtc-text: #e6e8eb; --rtc-muted: #9ba1a6;
    --rtc-border: #2e3137; --rtc-accent: #6e8bff; --rtc-accent-text: #0b0d12;
    --rtc-user: #232a44; --rtc-code: #24272c; --rtc-ok: #51cf66; --rtc-warn: #fab005; --rtc-bad: #ff6b6b;
    color-scheme: dark;
  }
}
:host([theme="dark"]) {
  --rtc-bg: #17181b; --rtc-panel: #1f2125; --rtc-text: #e6e8eb; --rtc-muted: #9ba1a6;
  --rtc-border: #2e3137; --rtc-accent: #6e8bff; --rtc-accent-text: #0b0d12;
  --rtc-user: #232a44; --rtc-code: #24272c; --rtc-ok: #51cf66; --rtc-warn: #fab005; --rtc-bad: #ff6b6b;
  color-scheme: dark;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
button, input, select, textarea { font: inherit; color: inherit; }
button { cursor: pointer; border: 1px solid var(--rtc-border); background: var(--rtc-bg); border-radius: 7px; padding: 4px 10px; }
button:hover:not(:disabled) { border-color: var(--rtc-accent); }
button:disabled { opacity: .5; cursor: default; }
button.primary { background: var(--rtc-accent); color: var(--rtc-accent-text); border-color: var(--rtc-accent); }
button.danger { color: var(--rtc-bad); }
button.ghost { border-color: transparent; background: transparent; }
button.ghost:hover { background: var(--rtc-panel); }
:focus-visible { outline: 2px solid var(--rtc-accent); outline-offset: 1px; }
.app { display: flex; flex-direction: column; height: 100%; background: var(--rtc-bg); border: 1px solid var(--rtc-border); border-radius: var(--rtc-radius); overflow: hidden; position: relative; isolation: isolate; }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; padding: 8px 12px; border-bottom: 1px solid var(--rtc-border); background: var(--rtc-panel); }
.bar .title { font-weight: 600; flex: 1 1 6em; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.conn { display: inline-flex; align-items: center; gap: 6px; font-size: 12px; color: var(--rtc-muted); white-space: nowrap; padding: 2px 6px; }
.conn:disabled { opacity: 1; cursor: default; }
.conn[data-state="disconnected"] { color: var(--rtc-bad); }
.mode { display: inline-flex; align-items: center; gap: 6px; font-size: 12px; color: var(--rtc-muted); white-space: nowrap; }
.mode select { font-size: 13px; color: var(--rtc-text); max-width: 100%; }
.conn::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--rtc-warn); }
.conn[data-state="connected"]::before { background: var(--rtc-ok); }
.conn[data-state="disconnected"]::before { background: var(--rtc-bad); }
.usage { font-size: 12px; color: var(--rtc-muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
select { border: 1px solid var(--rtc-border); border-radius: 7px; padding: 3px 6px; background: var(--rtc-bg); }
.body { flex: 1; display: flex; min-height: 0; }
.sessions { width: 220px; flex: none; border-right: 1px solid var(--rtc-border); display: flex; flex-direction: column; background: var(--rtc-panel); }
.sessions[hidden], .files[hidden], .toolcalls[hidden] { display: none; }
.toolcalls { width: 340px; flex: none; border-left: 1px solid var(--rtc-border); display: flex; flex-direction: column; background: var(--rtc-panel); min-height: 0; overflow: auto; }
.toolcalls .tools { display: flex; gap: 6px; padding: 8px; align-items: center; }
.toolcalls .tools .label { flex: 1; font-weight: 600; }
.toolcalls .note { margin: 0 8px; color: var(--rtc-muted); font-size: 12px; }
.toolcalls table { border-collapse: collapse; font-size: 12px; margin: 0 8px 8px; }
.toolcalls th, .toolcalls td { text-align: left; padding: 3px 6px 3px 0; border-bottom: 1px solid var(--rtc-border); vertical-align: top; }
.toolcalls td.tool { font-family: var(--rtc-mono); }
.sessions .new { margin: 10px; }
.sessions ul { list-style: none; margin: 0; padding: 0 6px 10px; overflow: auto; flex: 1; }
.sessions li { display: flex; align-items: center; gap: 4px; border-radius: 7px; padding: 6px 8px; cursor: pointer; }
.sessions li:hover { background: var(--rtc-bg); }
.sessions li.active { background: var(--rtc-bg); box-shadow: inset 3px 0 0 var(--rtc-accent); }
.sessions .name { flex: 1; min-width: 0; }
.sessions .name div { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.sessions .meta { font-size: 11px; color: var(--rtc-muted); }
.sessions li button { padding: 0 5px; font-size: 12px; visibility: hidden; }
.sessions li:hover button, .sessions li.active button, .sessions li button.armed { visibility: visible; }
.sessions li input { width: 100%; }
.chat { flex: 1; display: flex; flex-direction: column; min-width: 0; }
.messages { flex: 1; overflow: auto; padding: 16px; display: flex; flex-direction: column; gap: 12px; }
.empty { margin: auto; text-align: center; color: var(--rtc-muted); max-width: 340px; }
.empty h2 { color: var(--rtc-text); font-size: 18px; margin: 0 0 6px; }
.msg { max-width: 100%; }
.msg.user { align-self: flex-end; background: var(--rtc-user); padding: 8px 12px; border-radius: 12px 12px 2px 12px; max-width: 80%; white-space: pre-wrap; overflow-wrap: anywhere; position: relative; }
.msg.user .fork { position: absolute; right: 100%; top: 2px; margin-right: 4px; font-size: 12px; padding: 1px 7px; color: var(--rtc-muted); white-space: nowrap; opacity: 0; }
.msg.user:hover .fork, .msg.user .fork:focus-visible { opacity: 1; }
.msg.user.forking { width: min(520px, 80%); display: flex; flex-direction: column; gap: 6px; white-space: normal; }
.msg.user.forking textarea { resize: vertical; border: 1px solid var(--rtc-border); border-radius: 8px; padding: 6px 8px; background: var(--rtc-bg); }
.msg.user.forking .meta { font-size: 12px; color: var(--rtc-muted); }
.msg.user.forking .actions { display: flex; gap: 8px; justify-content: flex-end; }
.msg.summary { border: 1px dashed var(--rtc-border); border-radius: 8px; padding: 6px 10px; background: var(--rtc-panel); }
.msg.summary > summary { cursor: pointer; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; list-style: none; }
.msg.summary > summary::-webkit-details-marker { display: none; }
.msg.summary > summary::before { content: "▸"; color: var(--rtc-muted); width: 10px; }
.msg.summary[open] > summary::before { content: "▾"; }
.msg.summary > summary .label { font-weight: 600; }
.msg.summary .meta { font-size: 12px; color: var(--rtc-muted); }
.msg.summary[open] > summary { margin-bottom: 6px; }
.msg .note .retry, .turn-end .retry { margin-left: 8px; font-size: 12px; padding: 1px 9px; }
.turn-end { font-size: 12px; color: var(--rtc-muted); }
.msg.assistant .md { overflow-wrap: anywhere; }
.msg .note { font-size: 12px; color: var(--rtc-muted); margin-top: 4px; }
.msg .note.bad { color: var(--rtc-bad); }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
/* A message's blocks come in pages; pages above the growing one are skipped by layout and paint while off screen (their last size is kept). */
.md > .page:first-child > :first-child { margin-top: 0; } .md > .page:last-child > :last-child { margin-bottom: 0; }
.md > .settled { content-visibility: auto; contain-intrinsic-size: auto 600px; }
.md p, .md ul, .md ol, .md pre, .md blockquote, .md .table { margin: 0 0 8px; }
.md h1, .md h2, .md h3, .md h4 { margin: 12px 0 6px; line-height: 1.3; } .md h1 { font-size: 1.3em; } .md h2 { font-size: 1.18em; } .md h3 { font-size: 1.05em; }
.md code { font-family: var(--rtc-mono); font-size: .92em; background: var(--rtc-code); padding: 1px 4px; border-radius: 4px; }
.md pre { background: var(--rtc-code); padding: 10px 12px; border-radius: 8px; overflow: auto; }
.md pre code { background: none; padding: 0; }
.md blockquote { border-left: 3px solid var(--rtc-border); padding-left: 10px; color: var(--rtc-muted); }
.md a { color: var(--rtc-accent); }
.md li.task { list-style: none; margin-left: -1.2em; }
.md table { border-collapse: collapse; } .md th, .md td { border: 1px solid var(--rtc-border); padding: 3px 8px; }
.md .plain { white-space: pre-wrap; }
.md > .pending > .settled { content-visibility: auto; contain-intrinsic-size: auto 600px; }
.md hr { border: none; border-top: 1px solid var(--rtc-border); }
.cursor::after { content: "▍"; animation: blink 1s steps(2) infinite; color: var(--rtc-muted); }
@keyframes blink { 50% { opacity: 0; } }
.tool { border: 1px solid var(--rtc-border); border-radius: 8px; margin: 6px 0; background: var(--rtc-panel); font-size: 13px; }
.tool .head { display: flex; align-items: center; gap: 8px; padding: 6px 10px; }
.tool .name { font-family: var(--rtc-mono); font-weight: 600; }
.tool .summary { flex: 1; min-width: 0; color: var(--rtc-muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-family: var(--rtc-mono); font-size: 12px; }
.status { font-size: 11px; padding: 1px 7px; border-radius: 10px; border: 1px solid currentColor; color: var(--rtc-muted); white-space: nowrap; }
.status[data-s="completed"] { color: var(--rtc-ok); }
.status[data-s="executing"], .status[data-s="sent"], .status[data-s="pending"] { color: var(--rtc-accent); }
.status[data-s="writing"] { font-style: italic; }
.status[data-s="failed"], .status[data-s="timeout"], .status[data-s="rejected"] { color: var(--rtc-bad); }
.tool .progress { display: flex; align-items: center; gap: 8px; padding: 2px 10px 6px; font-size: 12px; color: var(--rtc-muted); }
.tool .progress progress { flex: 0 0 120px; accent-color: var(--rtc-accent); }
.tool .progress .count { font-variant-numeric: tabular-nums; white-space: nowrap; }
.tool .progress .message { flex: 1; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tool .view { border-top: 1px solid var(--rtc-border); padding: 6px 10px; overflow-wrap: anywhere; }
.tool .view .view-error { color: var(--rtc-bad); }
.tool .view .app-view iframe.app { display: block; width: 100%; height: 120px; border: 0; background: transparent; color-scheme: normal; }
.msg.many > .tool:has(.app-view.fullscreen), .msg.many > .tool:has(.app-view.pip) { content-visibility: visible; contain: none; }
.app-view.pip { position: absolute; right: 16px; width: min(360px, calc(100% - 32px)); z-index: 5; display: flex; flex-direction: column; background: var(--rtc-bg); border: 1px solid var(--rtc-border); border-radius: var(--rtc-radius); box-shadow: 0 4px 16px rgb(0 0 0 / 0.25); overflow: hidden; }
.tool .view .app-view.pip iframe.app { height: 220px !important; }
.app-view.fullscreen { position: absolute; inset: 0; z-index: 5; display: flex; flex-direction: column; background: var(--rtc-bg); }
.tool .view .app-view.fullscreen iframe.app { flex: 1; height: auto !important; }
.app-view .app-bar { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding: 6px 10px; border-bottom: 1px solid var(--rtc-border); font-size: 13px; }
.app-view .app-bar[hidden] { display: none; }
.tool .view .app-ask { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-top: 6px; }
.tool .view .app-ask strong { overflow-wrap: anywhere; }
.tool .view .app-ask .app-text { flex-basis: 100%; margin: 0; padding: 4px 8px; border-left: 3px solid var(--rtc-border); white-space: pre-wrap; overflow-wrap: anywhere; max-height: 12em; overflow: auto; }
.tool details { border-top: 1px solid var(--rtc-border); padding: 4px 10px; }
.tool summary { cursor: pointer; color: var(--rtc-muted); font-size: 12px; }
.tool pre { margin: 4px 0; max-height: 240px; overflow: auto; font: 12px/1.45 var(--rtc-mono); white-space: pre-wrap; overflow-wrap: anywhere; }
/* A step of many calls: the browser skips the style, layout and paint of cards out of view (the height a card had, or a collapsed card's until it is shown). */
.msg.many > .tool { content-visibility: auto; contain-intrinsic-size: auto 62px; }
.prompt { border-top: 1px solid var(--rtc-border); padding: 10px; background: var(--rtc-bg); border-radius: 0 0 8px 8px; }
.prompt .q { font-weight: 600; margin: 0 0 6px; }
.prompt .chip { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: var(--rtc-user); margin-right: 6px; font-weight: 500; }
.prompt label { display: flex; gap: 8px; align-items: flex-start; padding: 4px 6px; border-radius: 6px; cursor: pointer; }
.prompt label:hover { background: var(--rtc-panel); }
.prompt label small { display: block; color: var(--rtc-muted); }
.prompt fieldset { border: none; margin: 0 0 10px; padding: 0; }
.prompt input[type="text"] { border: 1px solid var(--rtc-border); border-radius: 6px; padding: 3px 6px; background: var(--rtc-bg); flex: 1; }
.prompt .actions { display: flex; gap: 8px; justify-content: flex-end; }
.prompt-head { display: flex; gap: 6px; align-items: center; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; margin: -10px -10px 8px; padding: 4px 10px; }
.prompt.confirm { border: 2px solid var(--rtc-warn); border-radius: 0 0 8px 8px; }
.prompt.confirm .deny-reason { width: 100%; box-sizing: border-box; margin: 8px 0 0; padding: 4px 6px; font: inherit; }
.approvals { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; padding: 4px 12px; font-size: 0.85em; border-bottom: 1px solid var(--rtc-border, #ddd); }
.approvals[hidden] { display: none; }
.approvals .approval { display: inline-flex; align-items: center; gap: 2px; padding: 0 2px 0 8px; border-radius: 10px; background: var(--rtc-code-bg, rgba(127,127,127,.15)); }
.approvals .revoke { padding: 0 6px; min-height: 0; line-height: 1.4; }
.prompt.confirm .prompt-head { background: var(--rtc-warn); color: #ffffff; }
.prompt.confirm .note.again { color: var(--rtc-warn); font-weight: 600; margin-bottom: 6px; }
.prompt .script-code { margin: 6px 0; }
/* What a confirmation acts on: whole, wrapped anywhere, never cut or ellipsized. */
.prompt .target { margin: 6px 0; display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; }
.prompt .target .what { font-size: 12px; color: var(--rtc-muted); }
.prompt .target code { flex: 1 1 100%; min-width: 0; font: 600 12px/1.45 var(--rtc-mono); white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal; }
.prompt .warnings { margin: 4px 0 6px; padding-left: 18px; color: var(--rtc-bad); font-size: 12px; }
.prompt .call-args { margin: 6px 0; max-height: 320px; overflow: auto; padding: 6px 8px; background: var(--rtc-code); border-radius: 6px; font: 12px/1.45 var(--rtc-mono); white-space: pre-wrap; overflow-wrap: anywhere; }
.prompt.ask { border: 1px dashed var(--rtc-accent); border-left: 4px solid var(--rtc-accent); background: var(--rtc-user); border-radius: 0 0 8px 8px; }
.prompt.ask .prompt-head { color: var(--rtc-accent); font-style: italic; }
.prompt.ask .note { color: var(--rtc-muted); font-size: 12px; margin-bottom: 6px; }
.prompt .note.bad { color: var(--rtc-bad); }
.prompt.elicit { border: 1px dashed var(--rtc-accent); border-left: 4px solid var(--rtc-muted); background: var(--rtc-panel); border-radius: 0 0 8px 8px; max-height: 70vh; overflow: auto; }
.prompt.elicit .prompt-head { font-style: italic; }
.prompt.elicit .note { color: var(--rtc-muted); font-size: 12px; margin-bottom: 6px; }
.prompt.elicit .note.again, .prompt.elicit .note.bad { color: var(--rtc-bad); white-space: pre-wrap; }
.prompt.elicit .field { margin: 0 0 8px; }
.prompt.elicit .field > label { flex-direction: column; gap: 2px; cursor: default; }
.prompt.elicit .field > label:hover { background: none; }
.prompt.elicit .field input:not([type="checkbox"]):not([type="radio"]), .prompt.elicit select { border: 1px solid var(--rtc-border); border-radius: 6px; padding: 3px 6px; background: var(--rtc-bg); font: inherit; width: 100%; box-sizing: border-box; }
.prompt.elicit .field input:invalid:not(:placeholder-shown) { border-color: var(--rtc-bad); }
.prompt.elicit .desc { display: block; color: var(--rtc-muted); font-size: 12px; padding: 0 6px; }
.prompt.elicit legend { padding: 0 6px; }
.prompt.elicit .req { color: var(--rtc-bad); }
.prompt.elicit .link { margin: 6px 0 10px; }
.prompt.elicit .link .origin { font-size: 15px; }
.prompt.elicit .link .url { font: 12px/1.45 var(--rtc-mono); color: var(--rtc-muted); overflow-wrap: anywhere; }
.prompt .sample { margin: 6px 0; max-height: 320px; overflow: auto; display: flex; flex-direction: column; gap: 4px; }
.prompt .sample-msg { background: var(--rtc-code); border-radius: 6px; padding: 4px 8px; }
.prompt .sample-msg .role { font-size: 11px; color: var(--rtc-muted); text-transform: uppercase; }
.prompt .sample-msg pre { margin: 2px 0 0; font: 12px/1.45 var(--rtc-mono); white-space: pre-wrap; overflow-wrap: anywhere; }
.note.elicit-refused { margin: 4px 10px; font-size: 12px; color: var(--rtc-bad); }
.thinking { color: var(--rtc-muted); font-size: 13px; }
.thinking::after { content: " ···"; animation: blink 1.2s steps(2) infinite; }
.banner { padding: 6px 12px; background: var(--rtc-user); font-size: 13px; display: flex; gap: 8px; align-items: center; }
.banner.bad { color: var(--rtc-bad); }
.conn-banner { padding: 6px 12px; font-size: 13px; color: var(--rtc-bad); background: var(--rtc-user); border-bottom: 1px solid var(--rtc-border); }
.closed-bar button, .other-device button { white-space: nowrap; }
.closed-bar, .other-device { display: flex; gap: 8px; align-items: center; justify-content: space-between; padding: 8px 12px; border-top: 1px solid var(--rtc-border); background: var(--rtc-panel); font-size: 13px; color: var(--rtc-muted); }
.composer { display: flex; gap: 8px; padding: 10px 12px; border-top: 1px solid var(--rtc-border); align-items: flex-end; }
.composer textarea { flex: 1; resize: none; border: 1px solid var(--rtc-border); border-radius: 8px; padding: 8px 10px; min-height: 40px; max-height: 160px; background: var(--rtc-bg); }
.files { width: 300px; flex: none; border-left: 1px solid var(--rtc-border); display: flex; flex-direction: column; background: var(--rtc-panel); min-height: 0; }
.files .tools { display: flex; gap: 6px; padding: 8px; align-items: center; }
.files .tools .label { flex: 1; font-weight: 600; }
.files ul { list-style: none; margin: 0; padding: 0 6px 8px; overflow: auto; flex: 1; font: 12px/1.6 var(--rtc-mono); min-height: 80px; }
.files li { padding: 1px 6px; border-radius: 5px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.files li.dir { color: var(--rtc-muted); cursor: default; }
.files ul.virtual { position: relative; }
.files ul.virtual > li[data-path] { position: absolute; left: 6px; right: 6px; }
.files ul.virtual > li.sizer { padding: 0; visibility: hidden; }
.files .new-path { padding: 0 12px 6px; } .files .new-path[hidden] { display: none; } .files .new-path input { width: 100%; box-sizing: border-box; }
.files li.active, .files li:not(.dir):hover { background: var(--rtc-bg); }
.files .editor { border-top: 1px solid var(--rtc-border); display: flex; flex-direction: column; flex: 1.4; min-height: 0; padding: 8px; gap: 6px; }
.files .editor .path { font: 12px var(--rtc-mono); overflow-wrap: anywhere; }
.files .editor textarea { flex: 1; font: 12px/1.5 var(--rtc-mono); resize: none; border: 1px solid var(--rtc-border); border-radius: 6px; padding: 6px; background: var(--rtc-bg); min-height: 120px; }
.files .editor .row { display: flex; gap: 6px; align-items: center; }
.files .editor .row span { flex: 1; font-size: 11px; color: var(--rtc-muted); }
.files .hint { padding: 8px; color: var(--rtc-muted); font-size: 12px; }
.files .storage { padding: 0 12px 6px; color: var(--rtc-muted); font-size: 11px; }
.narrow .usage { display: none; }
.narrow .bar { padding: 6px 8px; gap: 6px 5px; }
.narrow .mode select { max-width: 14em; }
.short { display: none; }
.narrow .short { display: inline; }
.narrow .long { display: none; }
/* On a phone the header keeps to two rows: the select's own name says whether it changes this chat or new chats. */
.narrow .mode .scope { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.narrow .bar button { padding: 3px 6px; }
.narrow .body { position: relative; }
.narrow .sessions { position: absolute; top: 0; bottom: 0; left: 0; z-index: 6; width: min(280px, 85%); box-shadow: 0 4px 20px rgba(0,0,0,.2); }
.narrow .files { position: absolute; top: 0; bottom: 0; right: 0; left: 0; z-index: 6; width: auto; box-shadow: 0 4px 20px rgba(0,0,0,.2); }
.narrow .sessions li button { visibility: visible; }
.narrow .messages { padding: 12px; }
.narrow .msg.user { max-width: 92%; }
${CODE_STYLES}`;
