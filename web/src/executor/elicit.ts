// An MCP server's question to the person during a call (an elicitation): an RTC
// of the tool "elicitation", which the model never calls. Its arguments are read
// here into the form to show (one field per property, in the server's order, as
// the server read the requested schema) or the link to open; the person's answer
// becomes the call's output, `{action, content}`, checked against the schema
// before it is sent (the server checks it again).

import { compileParameters } from "../tools/typed.js";

/** The tool name of an MCP server's question. */
export const ELICITATION = "elicitation";

/** `sampling:<server>`: the tool of an MCP server's requests to use the model (and of their "Allow for this chat"). */
export const SAMPLING_PREFIX = "sampling:";

/** An MCP server's request to use the model, as its RTC's arguments carry it: what would be sent. */
export interface SampleRequest {
  server: string;
  system_prompt?: string;
  messages: { role: string; text: string }[];
  max_tokens: number;
}

/** The server of a request to use the model, or null when `tool` is not one. */
export function samplingServer(tool: string): string | null {
  return tool.startsWith(SAMPLING_PREFIX) ? tool.slice(SAMPLING_PREFIX.length) : null;
}

/** A tool name as the person reads it: an MCP server's requests to use the model say so. */
export function toolTitle(tool: string): string {
  const server = samplingServer(tool);
  return server === null ? tool : `${server}: use of the model`;
}

export type FieldKind = "text" | "number" | "integer" | "boolean" | "choice" | "choices";

export interface FormOption {
  value: string;
  /** What the person reads; the value when absent. */
  title?: string;
}

/** One field of the form, from one property of the requested schema. */
export interface FormField {
  name: string;
  kind: FieldKind;
  title?: string;
  description?: string;
  required?: boolean;
  /** Text only: `email`, `uri`, `date` or `date-time`. */
  format?: string;
  min_length?: number;
  max_length?: number;
  minimum?: number;
  maximum?: number;
  min_items?: number;
  max_items?: number;
  options?: FormOption[];
  default?: unknown;
}

/** The question, as its RTC's arguments carry it. */
export interface Elicitation {
  /** The MCP server that asks, by its name in the server's configuration. */
  server: string;
  mode: "form" | "url";
  message: string;
  fields?: FormField[];
  schema?: Record<string, unknown>;
  /** URL mode: the link to open, only on the person's click. */
  url?: string;
}

/** The answer: the call's output. */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

const KINDS = new Set<FieldKind>(["text", "number", "integer", "boolean", "choice", "choices"]);

/** The question of an elicitation RTC, or a message saying why it cannot be shown. */
export function elicitationOf(args: unknown): Elicitation | string {
  const bad = (why: string) => `The server's question cannot be shown: ${why}`;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return bad("its arguments are not an object");
  const a = args as Partial<Elicitation>;
  if (typeof a.message !== "string" || typeof a.server !== "string") return bad("it has no message");
  if (a.mode === "url") {
    if (typeof a.url !== "string" || !linkOf(a.url)) return bad("its link is not an http or https URL");
    return { server: a.server, mode: "url", message: a.message, url: a.url };
  }
  if (a.mode !== "form" || !Array.isArray(a.fields) || a.fields.length === 0 || typeof a.schema !== "object" || a.schema === null) {
    return bad("it has no fields");
  }
  for (const f of a.fields as FormField[]) {
    if (typeof f?.name !== "string" || !KINDS.has(f.kind)) return bad("a field has no name or an unknown kind");
    if ((f.kind === "choice" || f.kind === "choices") && !(Array.isArray(f.options) && f.options.every((o) => typeof o?.value === "string"))) {
      return bad(`the field ${f.name} has no choices`);
    }
  }
  return { server: a.server, mode: "form", message: a.message, fields: a.fields as FormField[], schema: a.schema as Record<string, unknown> };
}

/** The link of a URL question, or null when it is not http(s). */
export function linkOf(url: string): URL | null {
  try {
    const u = new URL(url);
    return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password ? u : null;
  } catch {
    return null;
  }
}

const checkers = new WeakMap<object, ReturnType<typeof compileParameters>>();

/**
 * Checks a form's content against the requested schema (formats included):
 * null when it fits, else the fields that do not and why.
 */
export async function checkContent(q: Elicitation, content: Record<string, unknown>): Promise<string | null> {
  if (!q.schema) return null;
  let c = checkers.get(q.schema);
  if (!c) {
    c = compileParameters("the form", q.schema);
    checkers.set(q.schema, c);
  }
  const res = await c.check(content);
  if (res.ok) return null;
  return res.error.replace(/^Invalid arguments for the form; correct these fields and call it again:\n/, "");
}

/** The call's output for the person's answer (a decline carries no content). */
export function elicitOutput(a: ElicitAnswer): ElicitAnswer {
  return a.action === "accept" ? { action: "accept", content: a.content ?? {} } : { action: a.action };
}

/** The title of a field as the person reads it. */
export function fieldTitle(f: FormField): string {
  return f.title?.trim() || f.name;
}
