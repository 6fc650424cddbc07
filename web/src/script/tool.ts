import { ArgumentError, ToolFailure, argsObject, guard, optionalObject, requiredString } from "../tools/args.js";
import type { ToolContext, ToolResult, ToolSpec } from "../tools/types.js";
import { SCRIPTS_DIR, ScriptError, type ScriptLogEntry, type ScriptOutcome } from "./runner.js";

export const scriptSpec: ToolSpec = {
  name: "script",
  kind: "script",
  description:
    "Run JavaScript in an isolated sandbox in the user's browser (a worker with no network, no DOM and no " +
    "access to the page). The code is the body of an async function: use `await`, and `return` a " +
    "JSON-serialisable value (a lone expression, or a last line after a complete statement, is returned " +
    "too). Available inside: `params` (the params object), `console.log/info/warn/error` (captured), " +
    "`rtcAgent.fs.read(path)`, `.write(path, content)`, `.ls(path)`, `.stat(path)`, `.exists(path)`, " +
    "`.mkdir(path)`, `.remove(path)`, `.rename(from, to)`, `.walk(path)` on the virtual file system, and " +
    "`rtcAgent.call(name, args)` for the host site's functions (all return promises). fetch, XMLHttpRequest, " +
    "WebSocket and import() are blocked. Actions: `eval` runs `code` once; `save` stores " +
    `\`code\` as ${SCRIPTS_DIR}/<name>.js after a syntax check; \`run\` runs a saved script by \`name\`. ` +
    "Saved scripts live in /.scripts/, a protected path: changing it, or /AGENT.md, asks the user in every work mode " +
    "except bypass. The user approves `run` after seeing the saved code, and only that code runs. Each " +
    "`rtcAgent.call` asks the user where a direct call of that host tool would; a refused call throws a PermissionError. " +
    "Returns {result, logs, duration_ms}; a script that exceeds its time limit is stopped and reported as failed.",
  parameters: {
    type: "object",
    properties: {
      action: { type: "string", enum: ["eval", "run", "save"], description: "eval: run `code`; save: store `code` as `name`; run: run the saved script `name`." },
      code: { type: "string", description: "JavaScript source (for eval and save)." },
      name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", description: "Script name (for save and run), e.g. summarize-orders." },
      params: { type: "object", description: "JSON object passed to the script as `params` (for eval and run).", additionalProperties: true },
    },
    required: ["action"],
    additionalProperties: false,
  },
};

/** `script {action: "eval"|"run"|"save", code?, name?, params?}`. */
export function scriptTool(args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return guard("script", async () => {
    const a = argsObject("script", args);
    const action = requiredString("script", a, "action");
    const runner = ctx.script;
    if (!runner) throw new ToolFailure("the script tool is not available on this page (no sandbox configured)");
    switch (action) {
      case "save": {
        const name = requiredString("script", a, "name", { nonEmpty: true });
        const code = requiredString("script", a, "code", { nonEmpty: true });
        try {
          const r = await runner.save(name, code);
          return `Saved script ${JSON.stringify(name)} to ${r.path} (${r.bytes} bytes). Run it with {"action": "run", "name": ${JSON.stringify(name)}, "params": {...}}.`;
        } catch (err) {
          if (err instanceof ScriptError) throw new ToolFailure(err.message);
          throw err;
        }
      }
      case "run": {
        const name = requiredString("script", a, "name", { nonEmpty: true });
        const pin = ctx.scriptSha256 === undefined ? {} : { expectSha256: ctx.scriptSha256 };
        return report(await runner.run(name, optionalObject("script", a, "params") ?? {}, { authorize: ctx.authorize, ...pin }));
      }
      case "eval": {
        const code = requiredString("script", a, "code", { nonEmpty: true });
        return report(await runner.eval(code, optionalObject("script", a, "params") ?? {}, { authorize: ctx.authorize }));
      }
      default:
        throw new ArgumentError(`Invalid arguments for script: "action" must be one of eval, run, save; got ${JSON.stringify(action)}`);
    }
  });
}

/** Successful runs become JSON output; failures throw so `guard` reports them with the logs. */
function report(o: ScriptOutcome): string {
  if (o.ok) {
    return JSON.stringify({ result: o.result ?? null, logs: o.logs.map(logLine), duration_ms: o.duration_ms }, null, 2);
  }
  const parts = [`Script failed: ${o.error ?? "unknown error"}`, `duration_ms: ${o.duration_ms}`];
  if (o.logs.length > 0) parts.push("logs:", ...o.logs.map(logLine));
  throw new ToolFailure(parts.join("\n"));
}

function logLine(l: ScriptLogEntry): string {
  return l.level === "log" ? l.text : `[${l.level}] ${l.text}`;
}
