// Styles of code blocks (bar, copy button, highlight.js token colours) and of
// message actions, inside the shadow root. Token colours derive from the theme's
// custom properties where one fits, so light and dark both read well.

export const CODE_STYLES = `
.code { position: relative; margin: 0 0 8px; border-radius: 8px; background: var(--rtc-code); }
.code-bar { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding: 2px 6px 0 12px; font: 11px/1.6 var(--rtc-mono); color: var(--rtc-muted); }
.code-bar .copy { font-size: 12px; padding: 0 8px; }
.code pre { margin: 0; padding: 4px 12px 10px; background: none; overflow: auto; }
.md .code pre { margin: 0; }
.tool .code pre { max-height: 320px; white-space: pre; overflow-wrap: normal; }
.msg .actions-bar { display: flex; gap: 4px; margin-top: 2px; opacity: .75; }
.msg .actions-bar button { font-size: 12px; padding: 0 8px; }
.render-failed pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.45 var(--rtc-mono); }
.tool .args-list { display: flex; flex-direction: column; gap: 4px; padding: 2px 0 4px; }
.tool .arg .key { font: 600 11px/1.6 var(--rtc-mono); color: var(--rtc-muted); }
.tool .arg pre { margin: 0; }
.tool .args-more summary { font-size: 12px; font-family: var(--rtc-mono); }
.hljs-keyword, .hljs-selector-tag, .hljs-built_in, .hljs-type, .hljs-doctag { color: #8839ef; }
.hljs-string, .hljs-regexp, .hljs-addition, .hljs-attribute, .hljs-template-tag { color: #2b8a3e; }
.hljs-number, .hljs-literal, .hljs-symbol, .hljs-bullet { color: #c2410c; }
.hljs-comment, .hljs-quote, .hljs-meta { color: var(--rtc-muted); font-style: italic; }
.hljs-title, .hljs-section, .hljs-name, .hljs-selector-id, .hljs-selector-class { color: #1d4ed8; }
.hljs-variable, .hljs-params, .hljs-attr, .hljs-property { color: #b45309; }
.hljs-deletion { color: var(--rtc-bad); }
.hljs-emphasis { font-style: italic; } .hljs-strong { font-weight: 600; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) .hljs-keyword, :host(:not([theme="light"])) .hljs-built_in, :host(:not([theme="light"])) .hljs-type, :host(:not([theme="light"])) .hljs-selector-tag { color: #c4a7ff; }
  :host(:not([theme="light"])) .hljs-string, :host(:not([theme="light"])) .hljs-regexp, :host(:not([theme="light"])) .hljs-addition, :host(:not([theme="light"])) .hljs-attribute { color: #8ce99a; }
  :host(:not([theme="light"])) .hljs-number, :host(:not([theme="light"])) .hljs-literal, :host(:not([theme="light"])) .hljs-symbol { color: #ffa94d; }
  :host(:not([theme="light"])) .hljs-title, :host(:not([theme="light"])) .hljs-section, :host(:not([theme="light"])) .hljs-name { color: #74c0fc; }
  :host(:not([theme="light"])) .hljs-variable, :host(:not([theme="light"])) .hljs-params, :host(:not([theme="light"])) .hljs-attr, :host(:not([theme="light"])) .hljs-property { color: #ffd43b; }
}
:host([theme="dark"]) .hljs-keyword, :host([theme="dark"]) .hljs-built_in, :host([theme="dark"]) .hljs-type, :host([theme="dark"]) .hljs-selector-tag { color: #c4a7ff; }
:host([theme="dark"]) .hljs-string, :host([theme="dark"]) .hljs-regexp, :host([theme="dark"]) .hljs-addition, :host([theme="dark"]) .hljs-attribute { color: #8ce99a; }
:host([theme="dark"]) .hljs-number, :host([theme="dark"]) .hljs-literal, :host([theme="dark"]) .hljs-symbol { color: #ffa94d; }
:host([theme="dark"]) .hljs-title, :host([theme="dark"]) .hljs-section, :host([theme="dark"]) .hljs-name { color: #74c0fc; }
:host([theme="dark"]) .hljs-variable, :host([theme="dark"]) .hljs-params, :host([theme="dark"]) .hljs-attr, :host([theme="dark"]) .hljs-property { color: #ffd43b; }
`;
