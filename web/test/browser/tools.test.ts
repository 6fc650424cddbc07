import type { ToolResult, VirtualFS } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, includes, ok, test } from "./harness.js";

/** Runs a built-in tool through the registry, as an RTC would. */
async function call(vfs: VirtualFS, name: string, args: unknown): Promise<ToolResult> {
  return new ctx.sdk.ToolRegistry().execute(name, args, { vfs });
}

function output(r: ToolResult): string {
  if (!r.ok) throw new Error(`expected success, got error: ${r.error}`);
  return r.output;
}

function error(r: ToolResult): string {
  if (r.ok) throw new Error(`expected an error, got output: ${r.output}`);
  return r.error;
}

test("tools: ls marks directories and shows sizes", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/docs/readme.md", "hello");
  await vfs.writeFile("/a.txt", "12345678");
  await vfs.mkdir("/empty");
  eq(output(await call(vfs, "ls", {})), "a.txt (8 bytes)\ndocs/\nempty/");
  eq(output(await call(vfs, "ls", { path: "/docs" })), "readme.md (5 bytes)");
  eq(output(await call(vfs, "ls", { path: "/docs/readme.md" })), "readme.md (5 bytes)");
  eq(output(await call(vfs, "ls", { path: "/empty", extra: "ignored" })), "/empty is an empty directory");
  includes(error(await call(vfs, "ls", { path: "/missing" })), "ENOENT: no such file or directory: /missing");
  eq(error(await call(vfs, "ls", { path: 7 })), 'Invalid arguments for ls: "path" must be a string, got number 7');
  includes(error(await call(vfs, "ls", "not an object")), "expected a JSON object, got string");
});

test("tools: read numbers lines like cat -n", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/f.txt", "alpha\nbeta\r\n\tgamma\n");
  eq(output(await call(vfs, "read", { path: "/f.txt" })), "     1\talpha\n     2\tbeta\n     3\t\tgamma");
  eq(output(await call(vfs, "read", { path: "/f.txt", offset: 2, limit: 1 })), "     2\tbeta\n\n[Showing lines 2-2 of 3. Use offset=3 to read more.]");
  eq(output(await call(vfs, "read", { path: "/f.txt", offset: 3 })), "     3\t\tgamma");
  includes(error(await call(vfs, "read", { path: "/f.txt", offset: 4 })), "offset 4 is past the end of /f.txt, which has 3 lines");
  includes(error(await call(vfs, "read", { path: "/f.txt", offset: 0 })), '"offset" must be an integer >= 1, got number 0');
  includes(error(await call(vfs, "read", { path: "/f.txt", limit: "10" })), '"limit" must be an integer >= 1, got string "10"');
  eq(error(await call(vfs, "read", {})), 'Invalid arguments for read: "path" is required');
  includes(error(await call(vfs, "read", { path: "/" })), "EISDIR");
  await vfs.writeFile("/empty.txt", "");
  eq(output(await call(vfs, "read", { path: "/empty.txt" })), "[/empty.txt is empty]");
});

test("tools: read defaults to 2000 lines and cuts long lines", async () => {
  const vfs = await freshVfs();
  const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`);
  await vfs.writeFile("/long.txt", lines.join("\n"));
  const out = output(await call(vfs, "read", { path: "/long.txt" }));
  const shown = out.split("\n");
  eq(shown[0], "     1\tline 1");
  eq(shown[1999], "  2000\tline 2000");
  eq(shown[shown.length - 1], "[Showing lines 1-2000 of 2500. Use offset=2001 to read more.]");
  const rest = output(await call(vfs, "read", { path: "/long.txt", offset: 2001 }));
  eq(rest.split("\n").length, 500, "the remaining 500 lines, no note");
  eq(rest.split("\n")[499], "  2500\tline 2500");
  await vfs.writeFile("/wide.txt", "x".repeat(2500));
  const wide = output(await call(vfs, "read", { path: "/wide.txt" }));
  ok(wide.endsWith("… [line cut, 500 more characters]"), wide.slice(-60));
});

test("tools: write creates and overwrites, reporting bytes", async () => {
  const vfs = await freshVfs({ maxFileBytes: 20 });
  eq(output(await call(vfs, "write", { path: "/n/new.txt", content: "héllo" })), "Wrote 6 bytes to /n/new.txt (new file)");
  eq(output(await call(vfs, "write", { path: "/n/new.txt", content: "" })), "Wrote 0 bytes to /n/new.txt (replaced the previous content)");
  eq(await vfs.readFile("/n/new.txt"), "");
  eq(error(await call(vfs, "write", { path: "/x.txt" })), 'Invalid arguments for write: "content" is required');
  includes(error(await call(vfs, "write", { path: "/x.txt", content: { a: 1 } })), '"content" must be a string, got object');
  includes(error(await call(vfs, "write", { path: "/x.txt", content: "x".repeat(21) })), "EFBIG");
  includes(error(await call(vfs, "write", { path: "/../x.txt", content: "x" })), "'..' is not allowed");
});

test("tools: edit requires a unique match unless replace_all", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/e.txt", "a = 1\nb = 1\nc = 1\nname = old\n");
  eq(output(await call(vfs, "edit", { path: "/e.txt", old_string: "old", new_string: "new" })), "Edited /e.txt: replaced 1 occurrence (file is now 29 bytes)");
  const many = error(await call(vfs, "edit", { path: "/e.txt", old_string: " = 1", new_string: " = 2" }));
  includes(many, "occurs 3 times in /e.txt");
  includes(many, "replace_all");
  eq(await vfs.readFile("/e.txt"), "a = 1\nb = 1\nc = 1\nname = new\n", "a refused edit changes nothing");
  eq(output(await call(vfs, "edit", { path: "/e.txt", old_string: " = 1", new_string: " = 2", replace_all: true })), "Edited /e.txt: replaced 3 occurrences (file is now 29 bytes)");
  eq(await vfs.readFile("/e.txt"), "a = 2\nb = 2\nc = 2\nname = new\n");
  includes(error(await call(vfs, "edit", { path: "/e.txt", old_string: "zzz", new_string: "y" })), "old_string was not found in /e.txt");
  includes(error(await call(vfs, "edit", { path: "/e.txt", old_string: "new", new_string: "new" })), "identical");
  includes(error(await call(vfs, "edit", { path: "/e.txt", old_string: "", new_string: "y" })), '"old_string" must not be empty');
  includes(error(await call(vfs, "edit", { path: "/e.txt", old_string: "a", new_string: "b", replace_all: "yes" })), '"replace_all" must be true or false');
  includes(error(await call(vfs, "edit", { path: "/nope.txt", old_string: "a", new_string: "b" })), "ENOENT");
});

test("tools: edit inserts new_string literally ($& and $1 are not patterns)", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/p.txt", "price: X");
  output(await call(vfs, "edit", { path: "/p.txt", old_string: "X", new_string: "$&$1 $$" }));
  eq(await vfs.readFile("/p.txt"), "price: $&$1 $$");
});

test("tools: grep prints path:line: text, recursive or one file", async () => {
  const vfs = await freshVfs();
  await vfs.writeFile("/src/a.js", "const x = 1;\n// TODO fix\nlet y;\n");
  await vfs.writeFile("/src/lib/b.js", "todo: lowercase\nTODO: upper\n");
  await vfs.writeFile("/notes.md", "nothing here\n");
  eq(output(await call(vfs, "grep", { pattern: "TODO" })), "/src/a.js:2: // TODO fix\n/src/lib/b.js:2: TODO: upper");
  eq(output(await call(vfs, "grep", { pattern: "todo", path: "/src/lib", ignore_case: true })), "/src/lib/b.js:1: todo: lowercase\n/src/lib/b.js:2: TODO: upper");
  eq(output(await call(vfs, "grep", { pattern: "^let\\s+\\w+;$", path: "/src/a.js" })), "/src/a.js:3: let y;");
  eq(output(await call(vfs, "grep", { pattern: "absent" })), "No matches for /absent/ in 3 files under /");
  includes(error(await call(vfs, "grep", { pattern: "(unclosed" })), 'Invalid regular expression "(unclosed"');
  eq(error(await call(vfs, "grep", { path: "/" })), 'Invalid arguments for grep: "pattern" is required');
  includes(error(await call(vfs, "grep", { pattern: "x", path: "/missing" })), "ENOENT");
});

test("tools: grep caps matches and cuts long lines", async () => {
  const vfs = await freshVfs();
  const lines = Array.from({ length: 250 }, (_, i) => `match ${i + 1} ` + "y".repeat(i === 0 ? 400 : 1));
  await vfs.writeFile("/big.txt", lines.join("\n"));
  const out = output(await call(vfs, "grep", { pattern: "match" })).split("\n");
  eq(out.length, 202, "200 matches, a blank line, the note");
  eq(out[out.length - 1], "[Stopped after 200 matches; narrow the pattern or the path to see the rest.]");
  eq(out[199], "/big.txt:200: match 200 y");
  const first = out[0] ?? "";
  ok(first.startsWith("/big.txt:1: match 1 yyy"), first.slice(0, 40));
  ok(first.endsWith("… [108 more characters]"), first.slice(-40));
  eq(first.length, "/big.txt:1: ".length + 300 + "… [108 more characters]".length);
});

test("tools: find matches globs", async () => {
  const vfs = await freshVfs();
  for (const p of ["/README.md", "/docs/a.md", "/docs/b.txt", "/docs/deep/c.md", "/docs/deep/d1.json", "/src/x.ts", "/src/y.js"]) {
    await vfs.writeFile(p, "");
  }
  const find = async (args: object) => output(await call(vfs, "find", args));
  eq(await find({ pattern: "*.md" }), "/README.md\n/docs/a.md\n/docs/deep/c.md", "no slash: names at any depth");
  eq(await find({ pattern: "docs/*.md" }), "/docs/a.md", "* does not cross directories");
  eq(await find({ pattern: "docs/**/*.md" }), "/docs/a.md\n/docs/deep/c.md", "**/ matches zero or more directories");
  eq(await find({ pattern: "**/*.{ts,js}" }), "/src/x.ts\n/src/y.js");
  eq(await find({ pattern: "d?.json" }), "/docs/deep/d1.json");
  eq(await find({ pattern: "[ab].*" }), "/docs/a.md\n/docs/b.txt");
  eq(await find({ pattern: "[!ab].md" }), "/docs/deep/c.md");
  eq(await find({ pattern: "/docs/deep/*" }), "/docs/deep/c.md\n/docs/deep/d1.json", "absolute pattern");
  eq(await find({ pattern: "*.md", path: "/docs" }), "/docs/a.md\n/docs/deep/c.md");
  eq(await find({ pattern: "deep/*", path: "/docs" }), "/docs/deep/c.md\n/docs/deep/d1.json", "relative to path");
  eq(await find({ pattern: "de*" }), "/docs/deep/", "directories end with /");
  eq(await find({ pattern: "*.png" }), 'No files or directories match "*.png" under /');
  includes(error(await call(vfs, "find", { pattern: "[abc" })), "has no closing ']'");
  eq(error(await call(vfs, "find", {})), 'Invalid arguments for find: "pattern" is required');
});

test("tools: find caps results", async () => {
  const vfs = await freshVfs();
  await Promise.all(Array.from({ length: 510 }, (_, i) => vfs.writeFile(`/many/f${String(i).padStart(3, "0")}.txt`, "")));
  const out = output(await call(vfs, "find", { pattern: "*.txt" })).split("\n");
  eq(out.length, 502);
  eq(out[out.length - 1], "[Showing 500 of 510 matches; use a more specific pattern or path to see the rest.]");
});

test("tools: registry lists the built-ins with kinds and strict schemas", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  const specs = reg.list();
  eq(specs.map((s) => `${s.name}:${s.kind}`), ["ls:read", "read:read", "write:write", "edit:write", "grep:read", "find:read", "script:script", "askUser:ask"]);
  for (const s of specs) {
    ok(s.description.length > 40, `${s.name} has a description`);
    eq(s.parameters.type, "object", `${s.name} schema type`);
    eq(s.parameters.additionalProperties, false, `${s.name} schema is closed`);
  }
  const byName = Object.fromEntries(specs.map((s) => [s.name, s.parameters]));
  eq(byName.read?.required, ["path"]);
  eq(byName.edit?.required, ["path", "old_string", "new_string"]);
  eq(byName.script?.required, ["action"]);
  eq(JSON.parse(JSON.stringify(specs)).length, 8, "specs are plain JSON");
  const vfs = await freshVfs();
  includes(error(await reg.execute("nope", {}, { vfs })), 'unknown tool "nope"');
  includes(error(await reg.execute("askUser", {}, { vfs })), "answered by the user interface");
});

test("tools: host tools register, run and cannot replace built-ins", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  reg.registerHostTool({
    name: "getCart",
    description: "Return the cart",
    parameters: { type: "object", properties: {} },
    handler: async (args) => ({ items: 2, args }),
  });
  reg.registerHostTool({ name: "fail", description: "x", parameters: { type: "object" }, handler: () => { throw new Error("nope"); } });
  const vfs = await freshVfs();
  eq(output(await reg.execute("getCart", { a: 1 }, { vfs })), '{"items":2,"args":{"a":1}}');
  includes(error(await reg.execute("fail", {}, { vfs })), "fail failed unexpectedly: Error: nope");
  eq(reg.get("getCart")?.kind, "host");
  let threw = "";
  try {
    reg.registerHostTool({ name: "read", description: "x", parameters: {}, handler: () => "" });
  } catch (err) {
    threw = (err as Error).message;
  }
  includes(threw, "built-in tool");
  // A name like an MCP tool's is refused where it is registered, with the reason.
  threw = "";
  try {
    reg.registerHostTool({ name: "files__read", description: "x", parameters: {}, handler: () => "" });
  } catch (err) {
    threw = (err as Error).message;
  }
  includes(threw, "reserved for the server's MCP tools");
  eq(reg.get("files__read"), undefined);
  // Nor the name of an MCP server's question, which the page answers itself.
  threw = "";
  try {
    reg.registerHostTool({ name: "elicitation", description: "x", parameters: {}, handler: () => "" });
  } catch (err) {
    threw = (err as Error).message;
  }
  includes(threw, "MCP servers' questions");
  eq(reg.unregister("read"), false);
  eq(reg.unregister("getCart"), true);
});

test("tools: a host tool's view is a node, text, nothing, or why it failed", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  const views: Record<string, (v: unknown) => unknown> = {
    node: () => document.createElement("b"),
    text: () => "Paris",
    none: () => null,
    throws: () => {
      throw new Error("no view today");
    },
    object: () => ({ not: "a node" }),
  };
  for (const [name, render] of Object.entries(views)) {
    reg.registerHostTool({ name, description: "x", parameters: { type: "object" }, handler: () => "", render: render as never });
  }
  const view = (name: string) => reg.view(name, { callId: "c", state: "input-streaming", args: {} });
  eq((view("node") as Element).tagName, "B");
  eq(view("text")?.textContent, "Paris");
  eq(view("none"), null);
  eq(view("throws")?.textContent, "The tool's view failed: no view today");
  eq(view("object")?.textContent, "The tool's view failed: render returned object, not a DOM node or text");
});
